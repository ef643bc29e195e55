import FileFormats
import TestSupport
import Testing

/// FIPS 180-4 example vectors (NIST CSRC "SHA256.pdf" and FIPS 180-2 Appendix B).
struct SHA256Tests {
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func vectors(_ message: String, _ digest: String) {
        #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
    }

    @Test func millionAs() {
        var hasher = SHA256()
        hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(
            hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func boundaryLengths() {
        // 55, 56 and 64 bytes straddle the padding boundary (FIPS 180-4 §5.1.1).
        for n in [55, 56, 63, 64, 65] {
            var incremental = SHA256()
            let bytes = [UInt8](repeating: 0x61, count: n)
            for b in bytes { incremental.update([b]) }
            #expect(incremental.finalize() == SHA256.hash(bytes))
        }
    }

    /// Against libcrypto's SHA-256 (an independent implementation) at every length across four blocks, fed whole and
    /// in uneven pieces (a piece that ends inside a block, then whole blocks straight from the input).
    @Test func agreesWithLibcrypto() {
        var generator = SplitMix64(state: 0x5A5A)
        for n in 0...260 {
            let bytes = (0..<n).map { _ in UInt8(generator.next(256)) }
            #expect(SHA256.hexDigest(bytes) == LibcryptoSHA256.hexDigest(bytes), "length \(n)")
            var pieces = SHA256()
            pieces.update(bytes.prefix(n / 3))
            pieces.update(bytes.dropFirst(n / 3))
            #expect(pieces.finalize() == LibcryptoSHA256.hash(bytes), "length \(n) in two pieces")
        }
    }
}
