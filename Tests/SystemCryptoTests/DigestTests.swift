import Testing
import SystemCrypto

struct DigestTests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf").
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256(_ message: String, _ digest: String) throws {
        #expect(Digest.hex(try Digest.sha256(Array(message.utf8))) == digest)
    }

    /// RFC 1321 §A.5, the test suite.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5(_ message: String, _ digest: String) throws {
        #expect(Digest.hex(try Digest.md5(Array(message.utf8))) == digest)
    }

    @Test func aMillionBytes() throws {
        // FIPS 180-4's long example: one million "a".
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Digest.hex(try Digest.sha256(bytes)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(try Digest.md5(bytes).count == 16)
    }
}
