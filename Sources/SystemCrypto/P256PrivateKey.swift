import CCrypto

/// An ECDSA P-256 private key loaded from a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, RFC 5208 /
/// RFC 5958 `PrivateKeyInfo` carrying an RFC 5915 `ECPrivateKey`), the form of the `.p8` files App
/// Store Connect hands out. Signs with ES256 (RFC 7518 §3.4).
///
/// Its description never shows key material, only the public key's fingerprint.
public final class P256PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Why a text is not a usable P-256 private key. No case carries any of the text it was given
    /// beyond a PEM label or an algorithm name.
    public enum LoadError: Error, Equatable, CustomStringConvertible, Sendable {
        /// No `-----BEGIN …-----` line, no matching END line, or a body that is not base 64.
        case notPEM(String)
        /// `-----BEGIN ENCRYPTED PRIVATE KEY-----` (RFC 5958 `EncryptedPrivateKeyInfo`).
        case encrypted
        /// A PEM block of another kind (`EC PRIVATE KEY`, `RSA PRIVATE KEY`, `PUBLIC KEY`, …).
        case notPKCS8(label: String)
        /// The base 64 decodes, but not to a PKCS#8 `PrivateKeyInfo` libcrypto accepts.
        case malformedDER
        /// A PKCS#8 key of another algorithm (`RSA`, `ED25519`, …).
        case notEC(algorithm: String)
        /// An EC key on another curve (`secp384r1`, …).
        case wrongCurve(String)
        /// The public key inside the file does not belong to the private scalar.
        case inconsistent

        public var description: String {
            switch self {
            case .notPEM(let reason): "not a PEM private key: \(reason)"
            case .encrypted:
                "the private key is encrypted (ENCRYPTED PRIVATE KEY); use the unencrypted .p8 (PKCS#8 PRIVATE KEY) file"
            case .notPKCS8(let label):
                "found a PEM '\(label)' block, not a PKCS#8 'PRIVATE KEY' (.p8); "
                    + "an EC key in another form converts with: openssl pkcs8 -topk8 -nocrypt -in key.pem"
            case .malformedDER: "the PRIVATE KEY block is not a valid PKCS#8 private key"
            case .notEC(let algorithm): "the private key is \(algorithm), not an elliptic-curve (P-256) key"
            case .wrongCurve(let curve): "the private key is on the curve \(curve), not P-256 (prime256v1)"
            case .inconsistent: "the private key's embedded public key does not match it"
            }
        }
    }

    /// The EVP_PKEY, owned by this object. libcrypto allows concurrent signing with one key
    /// (https://docs.openssl.org/3.0/man7/openssl-threads/): it is never mutated after init.
    nonisolated(unsafe) let pkey: OpaquePointer

    /// The key in the PEM `text` (surrounding text allowed, RFC 7468 §2).
    public init(pem text: String) throws(LoadError) {
        let block: PEMBlock
        do {
            block = try PEMBlock.first(in: text)
        } catch {
            switch error {
            case .noBeginLine: throw .notPEM("no '-----BEGIN PRIVATE KEY-----' line")
            case .noEndLine(let label): throw .notPEM("no '-----END \(label)-----' line")
            case .notBase64(let label): throw .notPEM("the \(label) block is not valid base 64")
            }
        }
        switch block.label {
        case "PRIVATE KEY": break
        case "ENCRYPTED PRIVATE KEY": throw .encrypted
        default: throw .notPKCS8(label: block.label)
        }
        pkey = try Self.load(der: block.der)
    }

    /// The key in DER `PrivateKeyInfo` bytes (RFC 5958 §2).
    public init(pkcs8 der: [UInt8]) throws(LoadError) {
        pkey = try Self.load(der: der)
    }

    deinit { EVP_PKEY_free(pkey) }

    private static func load(der: [UInt8]) throws(LoadError) -> OpaquePointer {
        defer { drainErrorQueue() }
        // d2i_PKCS8_PRIV_KEY_INFO parses exactly PrivateKeyInfo (not the "traditional" SEC1/PKCS#1
        // forms d2i_AutoPrivateKey would also take); all input must be consumed.
        let info: OpaquePointer? = der.withUnsafeBufferPointer { bytes in
            var cursor = bytes.baseAddress
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, bytes.count) else { return nil }
            guard cursor == bytes.baseAddress.map({ $0 + bytes.count }) else {
                PKCS8_PRIV_KEY_INFO_free(info)
                return nil
            }
            return info
        }
        guard let info else { throw .malformedDER }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let key = EVP_PKCS82PKEY(info) else { throw .malformedDER }
        var keep = false
        defer { if !keep { EVP_PKEY_free(key) } }

        guard EVP_PKEY_get_base_id(key) == ccrypto_pkey_ec() else {
            throw .notEC(algorithm: EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "an unknown algorithm")
        }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &nameLength) == 1 else { throw .wrongCurve("an unnamed curve") }
        let curve = String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" else { throw .wrongCurve(curve) }

        // The scalar and the public point (RFC 5915's optional [1]) must be one key pair.
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw .malformedDER }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_pairwise_check(context) == 1 else { throw .inconsistent }
        keep = true
        return key
    }

    /// The ES256 signature of `message`: ECDSA over SHA-256 with this key, as the 64 bytes R‖S,
    /// each a 32-byte big-endian integer keeping its leading zeros (RFC 7518 §3.4), not DER.
    /// Randomized (a fresh nonce per call), so signing twice gives different valid signatures.
    public func signature(for message: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .drained("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { throw .drained("EVP_DigestSignInit") }
        var der = [UInt8](repeating: 0, count: 80)  // ECDSA_size for P-256 is 72
        var length = der.count
        let ok = message.withUnsafeBufferPointer { bytes in
            EVP_DigestSign(context, &der, &length, bytes.baseAddress, bytes.count)
        }
        guard ok == 1 else { throw .drained("EVP_DigestSign") }
        return try ECDSASignature.rawFromDER(Array(der.prefix(length)))
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        // i2d_PUBKEY writes only the SubjectPublicKeyInfo (RFC 5480): no private part leaves.
        let length = i2d_PUBKEY(pkey, nil)
        var spki = [UInt8](repeating: 0, count: Int(max(length, 0)))
        let written = spki.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        // A key that passed the pairwise check always encodes; anything else is a libcrypto bug.
        precondition(length > 0 && written == length, "i2d_PUBKEY failed: \(drainErrorQueue() ?? "")")
        do {
            return try P256PublicKey(spki: spki)
        } catch {
            preconditionFailure("libcrypto's own SubjectPublicKeyInfo did not load: \(error)")
        }
    }

    public var description: String { "P-256 private key (public key SHA-256 \(publicKey.fingerprint.prefix(16))…)" }
    public var debugDescription: String { description }
}
