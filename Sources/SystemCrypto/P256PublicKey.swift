import CCrypto
import FileFormats

/// An ECDSA P-256 public key, for verifying ES256 signatures (RFC 7518 §3.4).
public final class P256PublicKey: Sendable, Equatable, CustomStringConvertible {
    public enum LoadError: Error, Equatable, CustomStringConvertible, Sendable {
        /// Not 65 bytes 0x04‖X‖Y, or not a point on P-256.
        case invalidPoint
        public var description: String { "not an uncompressed P-256 point (0x04 ‖ X ‖ Y, a point on the curve)" }
    }

    /// Never mutated after init; libcrypto allows concurrent verification with one key.
    nonisolated(unsafe) let pkey: OpaquePointer

    /// The uncompressed point 0x04‖X‖Y (SEC 1 §2.3.3), 65 bytes.
    public let x963Representation: [UInt8]

    /// The DER header of a P-256 SubjectPublicKeyInfo (RFC 5480 §2: id-ecPublicKey with the named
    /// curve prime256v1, then a 66-byte BIT STRING of the point).
    private static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
        0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The key with the uncompressed point `x963` (0x04‖X‖Y).
    public convenience init(x963 point: [UInt8]) throws(LoadError) {
        guard point.count == 65, point[0] == 0x04 else { throw .invalidPoint }
        try self.init(spki: Self.spkiPrefix + point)
    }

    /// The key with coordinates `x` and `y` (32 bytes each, big-endian).
    public convenience init(x: [UInt8], y: [UInt8]) throws(LoadError) {
        guard x.count == 32, y.count == 32 else { throw .invalidPoint }
        try self.init(x963: [0x04] + x + y)
    }

    init(spki: [UInt8]) throws(LoadError) {
        defer { drainErrorQueue() }
        guard spki.count == Self.spkiPrefix.count + 65, spki.starts(with: Self.spkiPrefix) else { throw .invalidPoint }
        // d2i_PUBKEY checks that the point is on the curve.
        let key: OpaquePointer? = spki.withUnsafeBufferPointer { bytes in
            var cursor = bytes.baseAddress
            return d2i_PUBKEY(nil, &cursor, bytes.count)
        }
        guard let key else { throw .invalidPoint }
        pkey = key
        x963Representation = Array(spki.suffix(65))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Whether `signature` (64 bytes R‖S, RFC 7518 §3.4) is this key's ES256 signature of `message`.
    /// False for any other length, and for R or S of zero or not below the group order.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { drainErrorQueue() }
        guard let der = ECDSASignature.derFromRaw(signature) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return message.withUnsafeBufferPointer { bytes in
            EVP_DigestVerify(context, der, der.count, bytes.baseAddress, bytes.count) == 1
        }
    }

    /// SHA-256 of the uncompressed point, in hexadecimal: a short name for the key in messages.
    public var fingerprint: String {
        SHA256.hexDigest(x963Representation)
    }

    public var description: String { "P-256 public key (SHA-256 \(fingerprint.prefix(16))…)" }

    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool { lhs.x963Representation == rhs.x963Representation }
}
