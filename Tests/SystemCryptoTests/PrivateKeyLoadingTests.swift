import Testing
import SystemCrypto

/// Loading a P-256 private key from a PKCS#8 PEM (.p8), and every way a text can fail to be one.
struct PrivateKeyLoadingTests {
    @Test func applesFormAndOpenSSLsFormLoad() throws {
        let apple = try P256PrivateKey(pem: TestKeys.rfc6979)
        let openssl = try P256PrivateKey(pem: TestKeys.opensslP256)
        #expect(apple.publicKey != openssl.publicKey)
    }

    @Test func explanatoryTextAndCRLFLineEndingsAreAllowed() throws {
        // RFC 7468 §2: text before the BEGIN line is ignored; files written on Windows end lines with CRLF.
        let expected = try P256PrivateKey(pem: TestKeys.rfc6979).publicKey
        let annotated = "Subject: my key\nBag Attributes\n" + TestKeys.rfc6979 + "\n\ntrailing text\n"
        #expect(try P256PrivateKey(pem: annotated).publicKey == expected)
        let crlf = TestKeys.rfc6979.split(separator: "\n").joined(separator: "\r\n") + "\r\n"
        #expect(try P256PrivateKey(pem: crlf).publicKey == expected)
        let indented = TestKeys.rfc6979.split(separator: "\n").map { "  \($0)\t" }.joined(separator: "\n")
        #expect(try P256PrivateKey(pem: indented).publicKey == expected)
    }

    @Test func notPEM() {
        for text in ["", "hello", "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCFX", "-----BEGIN -----\n-----END -----"] {
            #expect(throws: P256PrivateKey.LoadError.notPEM("no '-----BEGIN PRIVATE KEY-----' line"), "\(text)") {
                try P256PrivateKey(pem: text)
            }
        }
        let noEnd = TestKeys.rfc6979.replacingOccurrences("-----END PRIVATE KEY-----", "")
        #expect(throws: P256PrivateKey.LoadError.notPEM("no '-----END PRIVATE KEY-----' line")) { try P256PrivateKey(pem: noEnd) }
        let otherEnd = TestKeys.rfc6979.replacingOccurrences("-----END PRIVATE KEY-----", "-----END EC PRIVATE KEY-----")
        #expect(throws: P256PrivateKey.LoadError.notPEM("no '-----END PRIVATE KEY-----' line")) { try P256PrivateKey(pem: otherEnd) }
    }

    @Test(arguments: [
        "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCF!",  // outside the alphabet
        "MIGTAgEAMBMGBy qGSM49",  // a space inside a line
        "MIGTA",  // 5 symbols: a dangling 6 bits
        "MIG=TAgE",  // padding in the middle
        "MIGTAg===",  // too much padding
        "MIGTAh==",  // non-zero unused bits (RFC 4648 §3.5)
        "",  // nothing between the lines
    ])
    func badBase64(_ body: String) {
        let pem = "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n"
        #expect(throws: P256PrivateKey.LoadError.notPEM("the PRIVATE KEY block is not valid base 64")) { try P256PrivateKey(pem: pem) }
    }

    @Test func encrypted() {
        #expect(throws: P256PrivateKey.LoadError.encrypted) { try P256PrivateKey(pem: TestKeys.encrypted) }
    }

    @Test func otherPEMKinds() {
        #expect(throws: P256PrivateKey.LoadError.notPKCS8(label: "EC PRIVATE KEY")) { try P256PrivateKey(pem: TestKeys.sec1) }
        let publicKey = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n"
        #expect(throws: P256PrivateKey.LoadError.notPKCS8(label: "PUBLIC KEY")) { try P256PrivateKey(pem: publicKey) }
    }

    @Test func otherAlgorithms() {
        #expect(throws: P256PrivateKey.LoadError.notEC(algorithm: "RSA")) { try P256PrivateKey(pem: TestKeys.rsa) }
        #expect(throws: P256PrivateKey.LoadError.notEC(algorithm: "ED25519")) { try P256PrivateKey(pem: TestKeys.ed25519) }
    }

    @Test func otherCurve() {
        #expect(throws: P256PrivateKey.LoadError.wrongCurve("secp384r1")) { try P256PrivateKey(pem: TestKeys.p384) }
    }

    @Test func garbageDER() throws {
        let good = try #require(derOf(TestKeys.rfc6979))
        let cases: [(String, [UInt8])] = [
            ("three zero bytes", [0, 0, 0]),
            ("truncated", Array(good.dropLast(10))),
            ("a trailing byte", good + [0]),
            (
                "the version INTEGER tagged as an OCTET STRING",
                {
                    var d = good; d[2] = 0x04; return d
                }()
            ),
            ("an empty SEQUENCE", [0x30, 0x00]),
        ]
        for (name, der) in cases {
            #expect(throws: P256PrivateKey.LoadError.malformedDER, "\(name)") { try P256PrivateKey(pkcs8: der) }
            #expect(throws: P256PrivateKey.LoadError.malformedDER, "\(name) in PEM") { try P256PrivateKey(pem: pem(der)) }
        }
        #expect(try P256PrivateKey(pkcs8: good).publicKey == P256PrivateKey(pem: TestKeys.rfc6979).publicKey)
    }

    @Test func aPublicKeyThatIsNotTheScalarsIsRefused() {
        #expect(throws: P256PrivateKey.LoadError.inconsistent) { try P256PrivateKey(pem: TestKeys.mismatchedPublicKey) }
    }

    /// Neither errors nor descriptions show key material: no line of the PEM body, no hex of the scalar.
    @Test func noKeyMaterialInTextsShown() throws {
        let key = try P256PrivateKey(pem: TestKeys.rfc6979)
        var texts = [String(describing: key), String(reflecting: key), "\(key)"]
        for bad in [
            TestKeys.encrypted, TestKeys.sec1, TestKeys.rsa, TestKeys.ed25519, TestKeys.p384, TestKeys.mismatchedPublicKey,
            TestKeys.rfc6979.replacingOccurrences("-----END PRIVATE KEY-----", ""),
        ] {
            do {
                _ = try P256PrivateKey(pem: bad)
                Issue.record("loaded a bad key")
            } catch {
                texts += [String(describing: error), String(reflecting: error)]
            }
        }
        let secrets =
            [TestKeys.rfc6979, TestKeys.encrypted, TestKeys.sec1, TestKeys.rsa, TestKeys.ed25519, TestKeys.p384]
            .flatMap { $0.split(separator: "\n").filter { !$0.hasPrefix("-----") }.flatMap(chunks) }
            + ["c9afa9d845ba7516", "C9AFA9D845BA7516", "ya+p2EW6dRZrXCFX"]
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
    }

    private func derOf(_ pem: String) -> [UInt8]? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return base64Decode(body)
    }

    private func pem(_ der: [UInt8]) -> String {
        "-----BEGIN PRIVATE KEY-----\n\(base64Encode(der))\n-----END PRIVATE KEY-----\n"
    }

    /// 12-character pieces of a line: long enough to be specific, short enough to catch a partial leak.
    private func chunks(_ line: Substring) -> [String] {
        stride(from: 0, to: max(line.count - 11, 0), by: 6).map { String(line.dropFirst($0).prefix(12)) }
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

func base64Encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    for i in stride(from: 0, to: bytes.count, by: 3) {
        let n = min(3, bytes.count - i)
        let group = Int(bytes[i]) << 16 | (n > 1 ? Int(bytes[i + 1]) << 8 : 0) | (n > 2 ? Int(bytes[i + 2]) : 0)
        for k in 0..<4 { out.append(k <= n ? alphabet[(group >> (18 - 6 * k)) & 0x3F] : UInt8(ascii: "=")) }
    }
    return String(decoding: out, as: UTF8.self)
}

func base64Decode(_ text: String) -> [UInt8]? {
    var out: [UInt8] = [], buffer = 0, bits = 0
    for c in text.utf8 where c != UInt8(ascii: "=") {
        guard let v = alphabet.firstIndex(of: c) else { return nil }
        buffer = buffer << 6 | v
        bits += 6
        if bits >= 8 { bits -= 8; out.append(UInt8((buffer >> bits) & 0xFF)) }
    }
    return out
}
