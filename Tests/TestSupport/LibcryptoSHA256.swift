import CCrypto

/// libcrypto's SHA-256 (EVP_Digest), an implementation independent of the project's own (FileFormats' pure
/// `SHA256`), for the tests that check a hash against another implementation. Tests only: Sources keep one SHA-256.
public enum LibcryptoSHA256 {
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &out, &length, EVP_sha256(), nil) }
        precondition(ok == 1, "EVP_Digest(SHA-256) failed")
        return Array(out.prefix(Int(length)))
    }

    /// Lower-case hexadecimal.
    public static func hexDigest(_ message: [UInt8]) -> String {
        hash(message).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
