/// `application/x-www-form-urlencoded` query parsing (WHATWG URL §5.1): "&"-separated
/// `name=value` pairs, "+" as space, percent-decoding; nil for malformed escapes or invalid UTF-8.
public enum QueryString {
    public static func parse(_ query: Substring?) -> [(name: String, value: String)]? {
        guard let query, !query.isEmpty else { return [] }
        var result: [(name: String, value: String)] = []
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let (rawName, rawValue) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
            guard let name = decode(rawName), let value = decode(rawValue) else { return nil }
            result.append((name, value))
        }
        return result
    }

    static func decode(_ s: Substring) -> String? {
        Router.percentDecode(Substring(s.map { $0 == "+" ? " " : $0 }))
    }
}
