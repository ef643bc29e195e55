import CCrypto

/// One-shot message digests from libcrypto (EVP_Digest, https://docs.openssl.org/3.0/man3/EVP_DigestInit/). SHA-256 is
/// not here: the project's one is FileFormats' pure `SHA256`.
public enum Digest {
    /// MD5 (RFC 1321): 16 bytes. Broken for anything adversarial; only for checksums a peer asks
    /// for in MD5 (App Store Connect's `sourceFileChecksum` of an uploaded file).
    public static func md5(_ message: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        try digest(message, EVP_md5(), name: "MD5")
    }

    /// Lower-case hexadecimal, the form checksums are usually written in.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func digest(_ message: [UInt8], _ md: OpaquePointer?, name: String) throws(OpenSSLFailure) -> [UInt8] {
        guard let md else { throw OpenSSLFailure.drained("EVP_\(name)") }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, md, nil)
        }
        guard ok == 1 else { throw OpenSSLFailure.drained("EVP_Digest(\(name))") }
        return Array(out.prefix(Int(length)))
    }
}
