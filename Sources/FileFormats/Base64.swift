/// Base 64 (RFC 4648): the one encoder and decoder of the project (webhook secrets, `headerImageData`, `GET /v1/bulk`,
/// CSP hashes, PEM bodies, JWS parts).
public enum Base64 {
    /// RFC 4648 §4 (standard, `=` padding) or §5 (URL and file name safe, unpadded as JWS writes it, RFC 7515 §2).
    public enum Alphabet: Sendable {
        case standard
        case url
    }

    static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8], alphabet: Alphabet = .standard) -> String {
        let symbols = alphabet == .standard ? standardSymbols : urlSymbols
        let padded = alphabet == .standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let group = Int(bytes[i]) << 16 | (n > 1 ? Int(bytes[i + 1]) << 8 : 0) | (n > 2 ? Int(bytes[i + 2]) : 0)
            for k in 0..<4 {
                if k <= n {
                    out.append(symbols[(group >> (18 - 6 * k)) & 0x3F])
                } else if padded {
                    out.append(UInt8(ascii: "="))
                }
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// What a decoder accepts besides the standard alphabet.
    public struct DecodingRules: Sendable {
        /// Spaces, tabs and line breaks skipped, and the end not checked (RFC 7468 §3's lax parsing of PEM text).
        public var laxWhitespace = false
        /// `=` padding may be left out; when present it must be right (RFC 4648 §3.2).
        public var paddingOptional = false
        /// The unused bits of the last symbol must be zero (RFC 4648 §3.5: one text for each byte string).
        public var canonical = false

        /// RFC 4648 §3.3: nothing outside the alphabet, padding to a multiple of four and only at the end.
        public static let strict = DecodingRules()
        /// A PEM body with its lines joined (RFC 7468 §3 strict parsing): padding optional, canonical.
        public static let pemBody = DecodingRules(paddingOptional: true, canonical: true)
        /// `laxWhitespace`.
        public static let lax = DecodingRules(laxWhitespace: true)
    }

    /// The bytes, or nil when `text` is not base 64 (standard alphabet) under `rules`.
    public static func decode(_ text: String, rules: DecodingRules = .strict) -> [UInt8]? {
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
                guard rules.laxWhitespace else { return nil }
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
        if rules.laxWhitespace { return out }
        let remainder = symbols % 4
        guard remainder != 1 else { return nil }  // 6 bits: not even one byte
        if padding > 0 || !rules.paddingOptional {
            guard padding == (4 - remainder) % 4 else { return nil }
        }
        if rules.canonical {
            guard buffer & ((1 << bits) - 1) == 0 else { return nil }
        }
        return out
    }

    /// `decode` with `rules` `.lax` when `ignoringWhitespace`, `.strict` otherwise.
    public static func decode(_ text: String, ignoringWhitespace: Bool) -> [UInt8]? {
        decode(text, rules: ignoringWhitespace ? .lax : .strict)
    }
}
