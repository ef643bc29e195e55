/// Base 64 with the URL and file name safe alphabet and no padding (RFC 4648 §5), the encoding
/// JWS uses for every part of a compact serialization (RFC 7515 §2, "Base64url Encoding").
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let group = Int(bytes[i]) << 16 | (n > 1 ? Int(bytes[i + 1]) << 8 : 0) | (n > 2 ? Int(bytes[i + 2]) : 0)
            for k in 0...n { out.append(alphabet[(group >> (18 - 6 * k)) & 0x3F]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
