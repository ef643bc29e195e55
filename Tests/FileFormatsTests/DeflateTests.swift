@testable import FileFormats
import Testing

/// The compressor's output is checked by Python's zlib in scripts/formats-check (every stream
/// inflated to the exact input). These tests pin outputs that zlib inflated once, so a change in
/// the bytes is seen by `swift test` alone, and check the rules that need no decoder.
struct DeflateTests {
    /// Streams inflated by Python's zlib 1.2.13 to their input when they were recorded.
    @Test(arguments: [
        ("", "789c030000000001"),
        ("hello hello hello hello", "789ccb48cdc9c957c02001680308b1"),
        (
            "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcxyzzy",
            "789c4b4c4aa611aaa8acaaaa0400d37624d3"
        ),
    ])
    func goldenStreams(_ text: String, _ hex: String) {
        #expect(Zlib.compress(Array(text.utf8)) == bytes(hex: hex))
    }

    /// "a" by hand (RFC 1951 §3.2.6): BFINAL 1, BTYPE 01 (fixed), 'a' (97) as the 8-bit code
    /// 0x30 + 97 = 10010001, end of block (256) as 0000000; packed from the low bit: 4B 04 00.
    /// Python's zlib.compress(b"a") gives the same 789C 4B0400 00620062.
    @Test func oneLetterByHand() {
        #expect(Zlib.compress([UInt8(ascii: "a")]) == bytes(hex: "789c 4b0400 00620062"))
        #expect(Deflate.compress([UInt8(ascii: "a")]) == bytes(hex: "4b0400"))
    }

    /// 1000 zeros: a literal and matches of 258 (symbol 285), in a fixed block (inflated by zlib when recorded).
    @Test func zeros() {
        #expect(Zlib.compress([UInt8](repeating: 0, count: 1000)) == bytes(hex: "789c631805a360140c7b000003e80001"))
    }

    /// Bytes with no repeat cost more coded than stored: one stored block (§3.2.4), LEN 256 and
    /// NLEN its complement, then the bytes as they are.
    @Test func incompressibleBytesAreStored() {
        let input = (0...255).map { UInt8($0) }
        let raw = Deflate.compress(input)
        #expect(Array(raw.prefix(5)) == [0x01, 0x00, 0x01, 0xFF, 0xFE])
        #expect(Array(raw.dropFirst(5)) == input)
    }

    /// Random bytes: stored blocks of at most 65,535 bytes, a few bytes of overhead per block.
    @Test func randomMebibyteStaysNearItsSize() {
        let input = noise(count: 1 << 20, seed: 42)
        let raw = Deflate.compress(input)
        #expect(raw.count >= input.count)
        #expect(raw.count <= input.count + 5 * (input.count / 16384 + 1))
    }

    @Test func repetitionCompresses() {
        #expect(Zlib.compress([UInt8](repeating: 0, count: 1 << 20)).count < 1100)
        let sentence = Array("An App Clip is a small part of an app. ".utf8)
        let text = Array((0..<2000).map { _ in sentence }.joined())
        #expect(Zlib.compress(text).count < text.count / 50)
    }

    /// RFC 1950 §2.2: CMF 0x78 (deflate, 32 KiB window), FCHECK making CMF·256 + FLG a multiple of 31,
    /// no dictionary; the Adler-32 of the input last, big-endian.
    @Test func zlibHeaderAndTrailer() {
        let input = noise(count: 5000, seed: 3)
        let stream = Zlib.compress(input)
        #expect(stream[0] == 0x78)
        #expect((Int(stream[0]) * 256 + Int(stream[1])) % 31 == 0)
        #expect(stream[1] & 0x20 == 0)
        #expect(bigEndian32(stream, at: stream.count - 4) == Adler32.checksum(input))
        #expect(Array(stream.dropFirst(2).dropLast(4)) == Deflate.compress(input))
    }

    @Test func sameInputSameBytes() {
        let input = noise(count: 20000, seed: 9) + [UInt8](repeating: 7, count: 20000) + noise(count: 20000, seed: 9)
        #expect(Zlib.compress(input) == Zlib.compress(input))
    }

    /// Frequencies in Fibonacci proportions make a Huffman tree as deep as there are symbols; the
    /// lengths must still be at most 15 bits (7 for the code length code) and form a complete
    /// code (Kraft sum exactly 1), or a decoder refuses the block.
    @Test(arguments: [15, 7])
    func codeLengthsAreLimitedAndComplete(limit: Int) {
        var frequencies: [Int] = []
        var (a, b) = (1, 1)
        for _ in 0..<(limit == 7 ? 19 : 40) {
            frequencies.append(a)
            (a, b) = (b, a + b)
        }
        let lengths = HuffmanCode.lengths(frequencies: frequencies, limit: limit)
        #expect(lengths.allSatisfy { $0 >= 1 && Int($0) <= limit })
        #expect(lengths.reduce(0.0) { $0 + 1.0 / Double(1 << Int($1)) } == 1.0)
        // Without the limit the same frequencies need more bits: the limit did something.
        #expect(HuffmanCode.lengths(frequencies: frequencies, limit: 64).max()! > UInt8(limit))
    }

    /// One used symbol (or none) still gets a complete two-symbol code.
    @Test(arguments: [[0, 0, 5, 0], [0, 0, 0, 0]])
    func lonelySymbols(frequencies: [Int]) {
        let lengths = HuffmanCode.lengths(frequencies: frequencies, limit: 15)
        #expect(lengths.filter { $0 == 1 }.count == 2)
        #expect(lengths.filter { $0 > 1 }.isEmpty)
    }

    /// Canonical codes (RFC 1951 §3.2.2's example: lengths 3,3,3,3,3,2,4,4 give
    /// 010, 011, 100, 101, 110, 00, 1110, 1111), here bit-reversed for writing.
    @Test func canonicalCodes() {
        let code = HuffmanCode(lengths: [3, 3, 3, 3, 3, 2, 4, 4])
        let expected: [UInt32] = [0b010, 0b011, 0b100, 0b101, 0b110, 0b00, 0b1110, 0b1111]
        for (symbol, value) in expected.enumerated() {
            let bits = Int(code.lengths[symbol])
            var reversed: UInt32 = 0
            for bit in 0..<bits { reversed |= (value >> UInt32(bit) & 1) << UInt32(bits - 1 - bit) }
            #expect(code.reversedCodes[symbol] == reversed)
        }
    }

    /// RFC 1951 §3.2.5: 258 has its own symbol, 285, with no extra bits; 257 is the last of 284.
    @Test func lengthAndDistanceSymbols() {
        #expect(DeflateTables.lengthSymbol[3] == 257)
        #expect(DeflateTables.lengthSymbol[10] == 264)
        #expect(DeflateTables.lengthSymbol[11] == 265)
        #expect(DeflateTables.lengthSymbol[257] == 284)
        #expect(DeflateTables.lengthSymbol[258] == 285)
        #expect(DeflateTables.distanceSymbol[1] == 0)
        #expect(DeflateTables.distanceSymbol[5] == 4)
        #expect(DeflateTables.distanceSymbol[24577] == 29)
        #expect(DeflateTables.distanceSymbol[32768] == 29)
    }
}
