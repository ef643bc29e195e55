import CCrypto

/// HMAC (RFC 2104) from libcrypto's one-shot `HMAC()` (https://docs.openssl.org/3.0/man3/HMAC/).
public enum HMAC {
    /// HMAC-SHA256 (RFC 2104 with FIPS 180-4 SHA-256; test vectors RFC 4231): 32 bytes.
    public static func sha256(key: [UInt8], message: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                CCrypto.HMAC(
                    EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &length)
            }
        }
        guard done != nil else { throw OpenSSLFailure.drained("HMAC(SHA-256)") }
        return Array(out.prefix(Int(length)))
    }
}
