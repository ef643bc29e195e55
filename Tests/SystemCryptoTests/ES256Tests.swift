import Testing
@testable import SystemCrypto

/// ECDSA P-256 with SHA-256 as JWS's ES256 (RFC 7518 §3.4): verification against published
/// vectors, our own signatures, and the fixed-width R‖S form.
struct ES256Tests {
    /// RFC 6979 Appendix A.2.5, "ECDSA, 256 Bits (Prime Field)", key pair and the SHA-256
    /// signatures of "sample" and "test" (https://www.rfc-editor.org/rfc/rfc6979#appendix-A.2.5).
    enum RFC6979 {
        static let ux = hex("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6")
        static let uy = hex("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")
        static let sample = (
            r: hex("EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"),
            s: hex("F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8")
        )
        static let test = (
            r: hex("F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"),
            s: hex("019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083")
        )
    }

    /// The order n of P-256 (FIPS 186-4 D.1.2.3): R or S equal to it is out of range.
    static let order = hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    @Test func rfc6979VectorsVerify() throws {
        let key = try P256PublicKey(x: RFC6979.ux, y: RFC6979.uy)
        #expect(key.isValidSignature(RFC6979.sample.r + RFC6979.sample.s, for: Array("sample".utf8)))
        #expect(key.isValidSignature(RFC6979.test.r + RFC6979.test.s, for: Array("test".utf8)))
    }

    @Test func rfc6979VectorsRejectedWhenAnythingChanges() throws {
        let key = try P256PublicKey(x: RFC6979.ux, y: RFC6979.uy)
        let signature = RFC6979.sample.r + RFC6979.sample.s
        #expect(!key.isValidSignature(signature, for: Array("samplE".utf8)))
        #expect(!key.isValidSignature(RFC6979.test.r + RFC6979.test.s, for: Array("sample".utf8)))
        #expect(!key.isValidSignature(RFC6979.sample.s + RFC6979.sample.r, for: Array("sample".utf8)))
        for index in [0, 31, 32, 63] {
            var flipped = signature
            flipped[index] ^= 0x01
            #expect(!key.isValidSignature(flipped, for: Array("sample".utf8)), "bit flipped in byte \(index)")
        }
        // Wrong lengths, DER instead of R‖S, and R or S out of range [1, n-1].
        #expect(!key.isValidSignature(Array(signature.dropLast()), for: Array("sample".utf8)))
        #expect(!key.isValidSignature(signature + [0], for: Array("sample".utf8)))
        #expect(!key.isValidSignature([], for: Array("sample".utf8)))
        #expect(!key.isValidSignature(ECDSASignature.derFromRaw(signature)!, for: Array("sample".utf8)))
        #expect(!key.isValidSignature([UInt8](repeating: 0, count: 64), for: Array("sample".utf8)))
        #expect(!key.isValidSignature(Self.order + RFC6979.sample.s, for: Array("sample".utf8)))
        #expect(!key.isValidSignature(RFC6979.sample.r + Self.order, for: Array("sample".utf8)))
        // Another key does not verify it.
        let other = try P256PrivateKey(pem: TestKeys.opensslP256).publicKey
        #expect(!other.isValidSignature(signature, for: Array("sample".utf8)))
    }

    @Test func theRFCKeyAsP8HasTheRFCPublicKey() throws {
        let key = try P256PrivateKey(pem: TestKeys.rfc6979)
        #expect(key.publicKey == (try P256PublicKey(x: RFC6979.ux, y: RFC6979.uy)))
        #expect(key.publicKey.x963Representation == [0x04] + RFC6979.ux + RFC6979.uy)
    }

    @Test func ourSignaturesVerifyAndAreRandomized() throws {
        let key = try P256PrivateKey(pem: TestKeys.rfc6979)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJ4In0".utf8)
        let first = try key.signature(for: message), second = try key.signature(for: message)
        #expect(first.count == 64 && second.count == 64)
        #expect(first != second)
        #expect(key.publicKey.isValidSignature(first, for: message))
        #expect(key.publicKey.isValidSignature(second, for: message))
        #expect(!key.publicKey.isValidSignature(first, for: message + [0x20]))
        // The empty message is a message too.
        #expect(key.publicKey.isValidSignature(try key.signature(for: []), for: []))
    }

    /// About 1 signature in 128 has R or S below 2^248; DER drops that leading zero byte, R‖S must
    /// keep it (RFC 7518 §3.4). Sign until one turns up (the chance of none in 4000 is below 1e-13).
    @Test func signaturesWithALeadingZeroKeepTheirWidth() throws {
        let key = try P256PrivateKey(pem: TestKeys.opensslP256)
        var found = 0
        for n in 0..<4000 where found < 3 {
            let message = Array("message \(n)".utf8)
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            guard signature[0] == 0 || signature[32] == 0 else { continue }
            found += 1
            #expect(key.publicKey.isValidSignature(signature, for: message))
        }
        #expect(found > 0)
    }

    @Test func derToRawLeftPadsShortIntegers() throws {
        // SEQUENCE { INTEGER (31 bytes), INTEGER (1 byte) }: both are padded to 32 bytes.
        let r = [UInt8](repeating: 0x11, count: 31)
        let der: [UInt8] = [0x30, UInt8(2 + 31 + 3), 0x02, 31] + r + [0x02, 0x01, 0x05]
        let raw = try ECDSASignature.rawFromDER(der)
        #expect(raw == [0x00] + r + [UInt8](repeating: 0, count: 31) + [0x05])
        #expect(ECDSASignature.derFromRaw(raw) == der)
        // A high bit set needs DER's extra 0x00; R‖S does not carry it.
        let high = [UInt8](repeating: 0x80, count: 64)
        let highDER = try #require(ECDSASignature.derFromRaw(high))
        #expect(highDER.count == 2 + 2 * (2 + 33))
        #expect(try ECDSASignature.rawFromDER(highDER) == high)
    }

    @Test func oneKeySignsFromManyTasksAtOnce() async throws {
        let key = try P256PrivateKey(pem: TestKeys.rfc6979)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<16 {
                group.addTask {
                    let message = Array("task \(n)".utf8)
                    return key.publicKey.isValidSignature(try key.signature(for: message), for: message)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [Bool](repeating: true, count: 16))
    }

    @Test func aPointOffTheCurveIsRefused() {
        var y = RFC6979.uy
        y[31] ^= 0x01
        #expect(throws: P256PublicKey.LoadError.invalidPoint) { try P256PublicKey(x: RFC6979.ux, y: y) }
        #expect(throws: P256PublicKey.LoadError.invalidPoint) { try P256PublicKey(x963: [0x02] + RFC6979.ux + RFC6979.uy) }
        #expect(throws: P256PublicKey.LoadError.invalidPoint) { try P256PublicKey(x963: [0x04] + RFC6979.ux) }
        #expect(throws: P256PublicKey.LoadError.invalidPoint) { try P256PublicKey(x: RFC6979.ux + [0], y: RFC6979.uy) }
    }
}
