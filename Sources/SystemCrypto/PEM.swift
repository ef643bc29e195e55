import FileFormats

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

    /// The body's base 64 (RFC 7468 §3, strict: its lines joined): `=` padding optional but only at the end, and the
    /// unused bits of the last symbol zero (RFC 4648 §3.5). Nil for anything else.
    static func decodeBase64(_ text: String) -> [UInt8]? { Base64.decode(text, rules: .pemBody) }
}

extension Substring {
    func trimmingASCIIWhitespace() -> Substring {
        let isText: (Character) -> Bool = { $0 != " " && $0 != "\t" }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return self[endIndex...] }
        return self[first...last]
    }
}
