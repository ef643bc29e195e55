/// `application/x-www-form-urlencoded` query parsing (WHATWG URL §5.1): "&"-separated
/// `name=value` pairs, "+" as space, percent-decoding; nil for malformed escapes or invalid UTF-8.
public enum QueryString {
    public static func parse(_ query: Substring?) -> [(name: String, value: String)]? {
        guard let query, !query.isEmpty else { return [] }
        var result: [(name: String, value: String)] = []
        // Over UTF-8: "&" and "=" are ASCII, so no grapheme breaking is needed to find them.
        for pair in query.utf8.split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = Substring(equals.map { pair[..<$0] } ?? pair[...])
            let rawValue = equals.map { Substring(pair[pair.index(after: $0)...]) } ?? ""
            guard let name = decode(rawName), let value = decode(rawValue) else { return nil }
            result.append((name, value))
        }
        return result
    }

    /// `parse` over bytes, into `scratch` (kept by the caller, so nothing is allocated once it has
    /// grown): each item's name and value are decoded and appended, and `visit` gets the name's
    /// bytes and where the value lies in `scratch`. False where `parse` gives nil (having visited
    /// the items before the malformed one).
    public static func decodeItems(
        _ query: UnsafeBufferPointer<UInt8>, into scratch: inout [UInt8], _ visit: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void
    ) -> Bool {
        var start = 0
        while start < query.count {
            let end = query[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.count
            defer { start = end + 1 }
            guard end > start else { continue }  // empty items are skipped, as `split` does
            let pair = query[start..<end]
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let nameStart = scratch.count
            guard PercentDecoding.decode(UnsafeBufferPointer(rebasing: pair[..<(equals ?? end)]), plusIsSpace: true, appendingTo: &scratch)
            else { return false }
            let valueStart = scratch.count
            if let equals {
                guard
                    PercentDecoding.decode(
                        UnsafeBufferPointer(rebasing: query[(equals + 1)..<end]), plusIsSpace: true, appendingTo: &scratch)
                else { return false }
            }
            let value = valueStart..<scratch.count
            scratch.withUnsafeBufferPointer { visit(UnsafeBufferPointer(rebasing: $0[nameStart..<valueStart]), value) }
        }
        return true
    }

    /// "+" is a space, "%XX" a byte; nil for a malformed escape, invalid UTF-8 or NUL.
    static func decode(_ s: Substring) -> String? { PercentDecoding.decode(s, plusIsSpace: true) }

    /// Whether a raw query has an item named `name`, as sent (not decoded): `explain`,
    /// `explain=1` and `a=1&explain` name it; `explained=1` does not.
    public static func names(_ name: String, in query: Substring?) -> Bool {
        guard let query else { return false }
        let wanted = name.utf8
        var atItemStart = true
        var index = query.utf8.startIndex
        let end = query.utf8.endIndex
        while index < end {
            if atItemStart, query.utf8[index...].starts(with: wanted) {
                let after = query.utf8.index(index, offsetBy: wanted.count)
                if after == end || query.utf8[after] == UInt8(ascii: "=") || query.utf8[after] == UInt8(ascii: "&") { return true }
            }
            atItemStart = query.utf8[index] == UInt8(ascii: "&")
            index = query.utf8.index(after: index)
        }
        return false
    }
}
