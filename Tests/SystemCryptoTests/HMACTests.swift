import SystemCrypto
import Testing

struct HMACTests {
    /// RFC 4231 §4.2, §4.3 and §4.7 (a key longer than the block, hashed first).
    @Test(arguments: [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ])
    func sha256(_ key: [UInt8], _ message: [UInt8], _ mac: String) throws {
        #expect(Digest.hex(try HMAC.sha256(key: key, message: message)) == mac)
    }

    @Test func emptyKeyAndMessage() throws {
        // HMAC-SHA256("", "") (computed by Python's hmac module, an independent implementation).
        #expect(Digest.hex(try HMAC.sha256(key: [], message: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}
