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

    /// Percent-encodes everything but RFC 3986 §2.3 unreserved characters, so the result is safe
    /// as a path segment or a query name or value.
    public static func encodeComponent(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let unreserved = (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            if unreserved { out.unicodeScalars.append(UnicodeScalar(b)) } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 0xF)])
            }
        }
        return out
    }

    /// "+" is a space, "%XX" a byte; nil for a malformed escape, invalid UTF-8 or NUL.
    static func decode(_ s: Substring) -> String? { Router.percentDecode(s, plusIsSpace: true) }
}
