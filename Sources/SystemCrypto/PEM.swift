/// The first PEM block in a text (RFC 7468): its label and the DER bytes it carries.
///
/// RFC 7468 §2: text before the BEGIN line is allowed (explanatory text); the END line must repeat
/// the BEGIN line's label; the body is base 64 (RFC 4648 §4) in lines, with optional padding only
/// at its end.
struct PEMBlock: Equatable {
    let label: String
    let der: [UInt8]

    enum ParseError: Error, Equatable {
        case noBeginLine
        case noEndLine(label: String)
        case notBase64(label: String)
    }

    static func first(in text: String) throws(ParseError) -> PEMBlock {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { $0.trimmingASCIIWhitespace() }
        guard let begin = lines.firstIndex(where: { label(of: $0, boundary: "BEGIN") != nil }),
            let label = label(of: lines[begin], boundary: "BEGIN")
        else { throw .noBeginLine }
        guard let end = lines[(begin + 1)...].firstIndex(of: "-----END \(label)-----") else { throw .noEndLine(label: label) }
        guard let der = decodeBase64(lines[(begin + 1)..<end].joined()), !der.isEmpty else { throw .notBase64(label: label) }
        return PEMBlock(label: label, der: der)
    }

    /// The label of an encapsulation boundary line `-----BEGIN label-----` (RFC 7468 §3: printable
    /// ASCII without `-` at either end).
    private static func label(of line: Substring, boundary: String) -> String? {
        let prefix = "-----\(boundary) ", suffix = "-----"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix), line.count > prefix.count + suffix.count else { return nil }
        let label = line.dropFirst(prefix.count).dropLast(suffix.count)
        guard label.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), label.first != "-", label.last != "-" else { return nil }
        return String(label)
    }

    /// Base 64 with the standard alphabet; `=` padding optional but only at the end, and the
    /// unused bits of the last symbol zero (RFC 4648 §3.5). Nil for anything else.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 4 * 3)
        var buffer: UInt32 = 0, bits = 0, symbols = 0, padding = 0
        for c in text.utf8 {
            let value: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(c) - 65
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(c) - 71
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c) + 4
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): padding += 1; continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            symbols += 1
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        let remainder = symbols % 4
        guard remainder != 1, buffer == 0 else { return nil }
        guard padding == 0 || (remainder != 0 && padding == 4 - remainder) else { return nil }
        return out
    }
}

extension Substring {
    func trimmingASCIIWhitespace() -> Substring {
        let isText: (Character) -> Bool = { $0 != " " && $0 != "\t" }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return self[endIndex...] }
        return self[first...last]
    }
}
