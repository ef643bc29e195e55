/// Percent-encoding (RFC 3986 §2.1: "%" HEXDIG HEXDIG, upper-case hex preferred): the escape of
/// one byte and the byte one escape stands for, written once. Each rule set that reads escapes
/// has one decoder built on these: URL normalization (`NormalizedURL.normalizePercent`, RFC 3986
/// §6.2.2.1–2) and the AASA evaluator's `percentEncoded: false` (`AASAEvaluator.decode`).
enum PercentEncoding {
    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    /// The byte that the escape starting at `i` stands for, or nil when `bytes[i]` does not
    /// start one ("%" followed by two hexadecimal digits).
    static func escapedByte<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at i: Bytes.Index) -> UInt8? {
        guard bytes[i] == UInt8(ascii: "%"), bytes.distance(from: i, to: bytes.endIndex) > 2,
            let hi = hexValue(bytes[bytes.index(i, offsetBy: 1)]), let lo = hexValue(bytes[bytes.index(i, offsetBy: 2)])
        else { return nil }
        return hi << 4 | lo
    }

    /// Appends `b` as an escape, upper-case.
    static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
    }
}
