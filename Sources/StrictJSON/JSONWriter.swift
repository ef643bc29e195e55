public import ByteScan
/// Serializes a `JSONValue` deterministically: members in the order they were built, no
/// insignificant whitespace unless `pretty`, the same bytes for the same value every time.
public enum JSONWriter {
    public static func string(_ value: JSONValue, pretty: Bool = false) -> String {
        String(decoding: bytes(value, pretty: pretty), as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue, pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, pretty: pretty)
        return out
    }

    /// Appends the serialization of `value` to `out` (UTF-8): for callers that build a larger
    /// buffer, such as an HTTP response, without an intermediate copy.
    public static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool = false) {
        write(value, into: &out, pretty: pretty, indent: 0)
    }

    @inline(__always) private static func append(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func newline(_ out: inout [UInt8], _ pretty: Bool, _ indent: Int) {
        guard pretty else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: 2 * indent))
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null: append("null", &out)
        case .bool(let b): if b { append("true", &out) } else { append("false", &out) }
        case .integer(let n): writeInteger(n, into: &out)
        case .double(let d): out.append(contentsOf: formatDouble(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { append("[]", &out); return }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, pretty, indent + 1)
                write(element, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { append("{}", &out); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, pretty, indent + 1)
                writeString(member.key, into: &out)
                if pretty { append(": ", &out) } else { out.append(UInt8(ascii: ":")) }
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `n` in decimal, without allocating (for callers rendering into a reused buffer).
    public static func writeInteger(_ n: Int64, into out: inout [UInt8]) {
        // Written straight into the array's spare capacity: a slice of a digit buffer took the generic
        // element-by-element append, 247 instructions a call (2% of a resolve request under callgrind).
        out.append(atMost: 20) { writeInteger(n, to: &$0) }
    }

    /// `writeInteger` into room the caller reserved (20 bytes at most: "-" and 19 digits).
    public static func writeInteger(_ n: Int64, to out: inout ByteCursor) {
        if n < 0 { out.write(UInt8(ascii: "-")) }
        out.writeDecimal(n.magnitude)
    }

    /// Shortest round-tripping form; integral values keep no fraction ("3", not "3.0").
    static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// RFC 8259 §7: escape '"', '\' and control characters; everything else as UTF-8, copied in
    /// runs. U+2028 and U+2029 are escaped too: valid JSON, but line breaks to JavaScript.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        var text = s
        text.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// `writeString` for UTF-8 bytes held elsewhere (the read model's byte buffer), without
    /// making a `String` of them: the same escapes, the same output.
    public static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // Nearly every string in one piece of room; a long one in pieces, so that the room reserved for
        // its escapes (six times its length) stays small.
        guard bytes.count > piece else {
            out.append(atMost: stringRoom(bytes.count)) { writeString(utf8: bytes, to: &$0) }
            return
        }
        out.append(UInt8(ascii: "\""))
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + piece)
            i = out.append(atMost: 6 * (end - i)) { writeEscaped(bytes, from: i, upTo: end, to: &$0) }
        }
        out.append(UInt8(ascii: "\""))
    }

    static let piece = 4096

    /// The most `writeString(utf8:to:)` writes for `count` bytes: each one escaped as `\u00XX`, and the quotes.
    public static func stringRoom(_ count: Int) -> Int { 6 * count + 2 }

    /// `writeString` into room the caller reserved (at least `stringRoom(bytes.count)`).
    public static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteCursor) {
        out.write(UInt8(ascii: "\""))
        _ = writeEscaped(bytes, from: 0, upTo: bytes.count, to: &out)
        out.write(UInt8(ascii: "\""))
    }

    /// The bytes from `start` on, escaped, until the first at or past `end` (an escape that starts
    /// before `end` takes the bytes it needs past it): where it stopped. At most six bytes a byte.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, upTo end: Int, to out: inout ByteCursor)
        -> Int
    {
        let scanned = UnsafeBufferPointer(rebasing: bytes[..<end])
        var runStart = start
        var i = start
        while true {
            // Runs of bytes written as they are are skipped a word at a time (`ByteClass`; the
            // resolve answer's strings were 10% of its instructions, a byte at a time).
            i = Self.firstMayNeedEscape(scanned, from: i)
            guard i < end else { break }
            let b = bytes[i]
            let escape: StaticString?
            var width = 1
            switch b {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                escape = bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                width = 3
            default: escape = b < 0x20 ? "" : nil
            }
            guard let escape else {
                i += 1
                continue
            }
            out.write(UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            if escape.utf8CodeUnitCount > 0 {
                out.write(escape)
            } else {
                let hex: StaticString = "0123456789abcdef"
                out.write("\\u00")
                out.write(hex.utf8Start[Int(b >> 4)])
                out.write(hex.utf8Start[Int(b & 0xF)])
            }
            i += width
            runStart = i
        }
        out.write(UnsafeBufferPointer(rebasing: bytes[runStart..<max(runStart, end)]))
        return max(runStart, end)
    }

    /// The first byte at or after `start` that `writeString` looks at: a control, quote, backslash,
    /// or 0xE2, the first byte of U+2028 and U+2029 (escaped, RFC 8259 §7 allows it, so that the
    /// text is also valid JavaScript). Its own function, so that `ByteClass` is inlined and folded here.
    @inline(never) static func firstMayNeedEscape(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        ByteClass(below: 0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"), 0xE2).firstIndex(in: bytes, from: start)
    }
}
