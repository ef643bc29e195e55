/// Serializes a `JSONValue` deterministically: members in the order they were built, no
/// insignificant whitespace unless `pretty`, the same bytes for the same value every time.
public enum JSONWriter {
    public static func string(_ value: JSONValue, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    public static func bytes(_ value: JSONValue, pretty: Bool = false) -> [UInt8] {
        Array(string(value, pretty: pretty).utf8)
    }

    private static func newline(_ out: inout String, _ pretty: Bool, _ indent: Int) {
        guard pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    private static func write(_ value: JSONValue, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let n): out += String(n)
        case .double(let d): out += formatDouble(d)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, pretty, indent + 1)
                write(element, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty, indent)
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, pretty, indent + 1)
                writeString(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty, indent)
            out += "}"
        }
    }

    /// Shortest round-tripping form; integral values keep no fraction ("3", not "3.0").
    static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// RFC 8259 §7: escape '"', '\' and control characters; everything else as UTF-8.
    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"  // valid JSON, but a line break to JavaScript
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
