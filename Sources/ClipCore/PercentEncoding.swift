/// Percent-encoding (RFC 3986 §2.1: "%" HEXDIG HEXDIG, upper-case hex preferred): the escape of
/// one byte and the byte one escape stands for, written once. Each rule set that reads escapes
/// has one decoder built on these: URL normalization (`NormalizedURL.normalizePercent`, RFC 3986
/// §6.2.2.1–2) and the AASA evaluator's `percentEncoded: false` (`AASAEvaluator.decode`). Every
/// text the registry writes escaped goes through `encode`: a request's path segments and query
/// values (`Binding.request`, the card preview's links), what a remote server said (`OutboundHTTP.printable`),
/// the banner's attribute (`SmartBanner`).
public enum PercentEncoding {
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
    package static func escapedByte<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at i: Bytes.Index) -> UInt8? {
        guard bytes[i] == UInt8(ascii: "%"), bytes.distance(from: i, to: bytes.endIndex) > 2,
            let hi = hexValue(bytes[bytes.index(i, offsetBy: 1)]), let lo = hexValue(bytes[bytes.index(i, offsetBy: 2)])
        else { return nil }
        return hi << 4 | lo
    }

    /// Appends `b` as an escape, upper-case.
    package static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
    }

    /// RFC 3986 §2.3's unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
    public static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }

    /// The bytes with each one `keeps` refuses escaped. By default only unreserved bytes stay, so the text
    /// reads back as it was wherever it is put: a path segment (§3.3), a query name or value (§3.4).
    public static func encode(_ bytes: some Sequence<UInt8>, keeping keeps: (UInt8) -> Bool = isUnreserved) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount)
        for b in bytes {
            if keeps(b) { out.append(b) } else { appendEscape(b, to: &out) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
