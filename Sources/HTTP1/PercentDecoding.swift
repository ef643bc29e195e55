/// Percent-decoding (RFC 3986 §2.1) for path segments and, with `plusIsSpace`, for the names and
/// values of an `application/x-www-form-urlencoded` query (WHATWG URL, "application/x-www-form-urlencoded
/// parsing"): the one decoder of the router and of `QueryString`.
enum PercentDecoding {
    /// The decoded text; nil for a malformed escape, invalid UTF-8 or NUL.
    static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        let escaped = utf8.contains { $0 == UInt8(ascii: "%") || $0 == 0 || (plusIsSpace && $0 == UInt8(ascii: "+")) }
        guard escaped else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let b = iterator.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(0x20)
            default: bytes.append(b)
            }
        }
        guard !bytes.contains(0), let s = String(validating: bytes, as: UTF8.self) else { return nil }
        return s
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
