/// Base 64 (RFC 4648 §4): the standard alphabet with `=` padding.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let group = Int(bytes[i]) << 16 | (n > 1 ? Int(bytes[i + 1]) << 8 : 0) | (n > 2 ? Int(bytes[i + 2]) : 0)
            for k in 0..<4 { out.append(k <= n ? alphabet[(group >> (18 - 6 * k)) & 0x3F] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes, or nil when `text` is not base 64. Strict by default (RFC 4648 §3.3: no
    /// characters outside the alphabet, padding to a multiple of four, and only at the end); with
    /// `ignoringWhitespace` (PEM, RFC 7468 §3) spaces and line breaks are skipped and padding is
    /// optional.
    public static func decode(_ text: String, ignoringWhitespace: Bool = false) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 4 * 3)
        var buffer = 0, bits = 0, symbols = 0, padding = 0
        for c in text.utf8 {
            let v: Int
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = Int(c) - 65
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = Int(c) - 71
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = Int(c) + 4
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 0x20, 0x09, 0x0A, 0x0D:
                guard ignoringWhitespace else { return nil }
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // a symbol after padding
            symbols += 1
            buffer = (buffer << 6 | v) & 0xFFFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        if !ignoringWhitespace {
            guard (symbols + padding) % 4 == 0, padding <= 2, padding == (4 - symbols % 4) % 4 else { return nil }
        }
        return out
    }
}
