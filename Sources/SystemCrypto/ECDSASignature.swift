import CCrypto

/// Conversions between libcrypto's ECDSA signatures (DER `ECDSA-Sig-Value`, RFC 3279 §2.2.3) and
/// JWS's fixed-width R‖S for P-256 (RFC 7518 §3.4: "each array being 32 octets long", leading zero
/// octets kept, R then S).
enum ECDSASignature {
    static let scalarSize = 32

    /// R‖S (64 bytes) from DER.
    static func rawFromDER(_ der: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { bytes in
            var cursor = bytes.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, bytes.count)
        }
        guard let signature else { throw .drained("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?, s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 2 * scalarSize)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            (BN_bn2binpad(r, buffer.baseAddress, Int32(scalarSize)), BN_bn2binpad(s, buffer.baseAddress! + scalarSize, Int32(scalarSize)))
        }
        guard written == (Int32(scalarSize), Int32(scalarSize)) else { throw .drained("BN_bn2binpad") }
        return raw
    }

    /// DER from R‖S, or nil when `raw` is not 64 bytes (or libcrypto cannot allocate).
    static func derFromRaw(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarSize else { return nil }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(scalarSize), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + scalarSize, Int32(scalarSize), nil) }
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
