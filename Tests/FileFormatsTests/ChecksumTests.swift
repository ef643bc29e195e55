import FileFormats
import Testing

struct ChecksumTests {
    /// The check value of the CRC catalogue ("123456789" → CBF43926 for CRC-32/ISO-HDLC), and
    /// values from Python's zlib.crc32, an independent implementation.
    @Test(arguments: [
        ("123456789", 0xCBF4_3926 as UInt32),
        ("", 0),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func crc32(_ text: String, _ expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
    }

    /// Wikipedia's example ("Wikipedia" → 11E60398) and RFC 1950's starting value (1 for no bytes).
    @Test(arguments: [
        ("Wikipedia", 0x11E6_0398 as UInt32),
        ("", 1),
    ])
    func adler32(_ text: String, _ expected: UInt32) {
        #expect(Adler32.checksum(Array(text.utf8)) == expected)
    }

    /// A mebibyte of 0xFF: the sums wrap modulo 65521 many times (values from Python's zlib).
    @Test func aMebibyteOfOnes() {
        let ones = [UInt8](repeating: 0xFF, count: 1 << 20)
        #expect(Adler32.checksum(ones) == 0x8E88_EF11)
        #expect(CRC32.checksum(ones) == 0x956B_AC74)
    }

    /// Fed in pieces, at every split point, the checksums equal the one-shot ones.
    @Test func incrementalEqualsOneShot() {
        let data = noise(count: 300, seed: 7) + [UInt8](repeating: 0xFF, count: 6000)
        for split in stride(from: 0, through: data.count, by: 37) {
            var crc = CRC32()
            crc.update(data[..<split])
            crc.update(data[split...])
            #expect(crc.value == CRC32.checksum(data))
            var adler = Adler32()
            adler.update(data[..<split])
            adler.update(data[split...])
            #expect(adler.value == Adler32.checksum(data))
        }
    }
}
