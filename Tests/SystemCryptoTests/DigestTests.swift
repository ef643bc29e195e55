import Testing
import SystemCrypto

struct DigestTests {
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
        // One million "a" (FIPS 180-4's long example; SHA-256 is FileFormats' now): MD5's value from coreutils' md5sum.
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Digest.hex(try Digest.md5(bytes)) == "7707d6ae4e027c70eea2a935c2296f21")
    }
}
