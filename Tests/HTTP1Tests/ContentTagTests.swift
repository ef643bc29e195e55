import Testing

@testable import HTTP1

struct ContentTagTests {
    @Test func isAQuotedStrongTagOf32HexDigits() {
        for bytes in [[], [0], Array("hello".utf8), [UInt8](repeating: 0xFF, count: 1000)] as [[UInt8]] {
            let tag = ContentTag.of(bytes)
            #expect(tag.utf8.count == 34 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
            #expect(tag.dropFirst().dropLast().allSatisfy { "0123456789abcdef".contains($0) })
            #expect(ContentTag.of(bytes) == tag, "the same bytes, the same tag")
        }
    }

    /// A strong validator changes whenever the bytes do (RFC 9110 §8.8.3): every one-bit flip,
    /// truncation and appended zero of many answers gives a tag of its own.
    @Test func everySmallChangeChangesTheTag() {
        var generator = SystemRandomNumberGenerator()
        var variants = Set<[UInt8]>()
        for length in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 330] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            variants.formUnion([bytes, bytes + [0], bytes + [0, 0], Array(bytes.dropLast())])
            for i in bytes.indices {
                for bit in 0..<8 {
                    var flipped = bytes
                    flipped[i] ^= 1 << bit
                    variants.insert(flipped)
                }
            }
        }
        // Distinct byte strings (a shorter answer's variant may equal a longer one's), distinct tags.
        let seen = Set(variants.map(ContentTag.of))
        let count = variants.count
        #expect(seen.count == count)
    }

    /// Stable across processes and releases (caches keep tags across restarts): fixed vectors,
    /// computed by an independent Python implementation of the same hash.
    @Test(arguments: [
        ("", "\"a9ed6c9d17de473bc4056ced59e0d92c\""),
        ("hello", "\"4d4d58eee69e7277302848529df68d70\""),
        (#"{"url":"https://a.example/"}"#, "\"6b93ebda7ddddea610970b8a98d81a39\""),
    ])
    func isStable(_ text: String, _ tag: String) {
        #expect(ContentTag.of(Array(text.utf8)) == tag)
    }
}
