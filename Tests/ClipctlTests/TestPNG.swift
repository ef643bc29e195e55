import Foundation

/// Small but complete PNG files (ISO/IEC 15948: IHDR, one IDAT, IEND, each with its CRC-32) of
/// one grey level: the IDAT is a real zlib stream (RFC 1950) of every filtered scanline, deflated
/// as runs (an 1800×1200 RGB image is about 11 KB). The same encoder as ClipCoreTests'
/// `TestImages.zlibRuns`, which explains it; each test target has its own copy.
enum TestPNG {
    static func be32(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return be32(Int(~c))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { be32(data.count) + Array(type.utf8) + data + crc32(Array(type.utf8) + data) }

    /// A `w`×`h` PNG of grey level `seed` (so that two files of one size differ). `ihdr` makes
    /// the IHDR declare another size than the data holds (for rules checked before the data).
    static func png(_ w: Int, _ h: Int, colorType: UInt8, seed: UInt8 = 1, ihdr: (Int, Int)? = nil) -> Data {
        let channels = colorType == 6 ? 4 : 3
        let runs = Array(repeating: [(UInt8(0), 1), (seed, w * channels)], count: h).flatMap { $0 }
        let (iw, ih) = ihdr ?? (w, h)
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be32(iw) + be32(ih) + [8, colorType, 0, 0, 0])
                    + chunk("IDAT", zlibRuns(runs)) + chunk("IEND", []))
    }

    /// Huffman codes from code lengths (RFC 1951 §3.2.2), bit-reversed for LSB-first packing.
    static func huffmanCodes(_ lengths: [Int]) -> [(bits: Int, length: Int)] {
        let maxLength = lengths.max() ?? 0
        var perLength = [Int](repeating: 0, count: maxLength + 1)
        for length in lengths where length > 0 { perLength[length] += 1 }
        var next = [Int](repeating: 0, count: maxLength + 1)
        var code = 0
        for length in stride(from: 1, through: maxLength, by: 1) {
            code = (code + perLength[length - 1]) << 1
            next[length] = code
        }
        return lengths.map { length in
            guard length > 0 else { return (0, 0) }
            let value = next[length]
            next[length] += 1
            var reversed = 0
            for i in 0..<length where value >> i & 1 == 1 { reversed |= 1 << (length - 1 - i) }
            return (reversed, length)
        }
    }

    /// One dynamic-Huffman deflate block (RFC 1951 §3.2.7): each run is a literal then copies at
    /// distance 1; length 258 has a 1-bit code, the one distance code 1 bit, literals 0–226
    /// 9 bits, the rest 10 bits. Then Adler-32 (RFC 1950 §8.2) in closed form per run.
    static func zlibRuns(_ runs: [(byte: UInt8, count: Int)]) -> [UInt8] {
        var literalLengths = [Int](repeating: 9, count: 286)
        for symbol in 227...284 { literalLengths[symbol] = 10 }
        literalLengths[285] = 1
        let literal = huffmanCodes(literalLengths), distance = (bits: 0, length: 1)
        var lengthLengths = [Int](repeating: 0, count: 19)
        (lengthLengths[9], lengthLengths[10], lengthLengths[1]) = (1, 2, 2)
        let lengthCode = huffmanCodes(lengthLengths)
        var out: [UInt8] = [0x78, 0x01], buffer: UInt64 = 0, count = 0
        func bits(_ value: Int, _ n: Int) {
            buffer |= UInt64(value) << UInt64(count)
            count += n
            while count >= 8 { out.append(UInt8(buffer & 0xFF)); buffer >>= 8; count -= 8 }
        }
        func code(_ c: (bits: Int, length: Int)) { bits(c.bits, c.length) }
        bits(1, 1); bits(2, 2); bits(286 - 257, 5); bits(0, 5); bits(18 - 4, 4)
        for symbol in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1] { bits(lengthLengths[symbol], 3) }
        for length in literalLengths + [1] { code(lengthCode[length]) }
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227]
        let extra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
        var last: UInt8?
        var a = 1, b = 0
        for (byte, n) in runs where n > 0 {
            b = (b + n % 65_521 * a + Int(byte) * (n * (n + 1) / 2 % 65_521)) % 65_521
            a = (a + n % 65_521 * Int(byte)) % 65_521
            var left = n
            if last != byte { code(literal[Int(byte)]); left -= 1; last = byte }
            while left >= 258 { code(literal[285]); code(distance); left -= 258 }
            if left >= 3 {
                let i = bases.lastIndex { $0 <= left }!
                code(literal[257 + i]); bits(left - bases[i], extra[i]); code(distance)
            } else {
                for _ in 0..<left { code(literal[Int(byte)]) }
            }
        }
        code(literal[256])
        if count > 0 { out.append(UInt8(buffer & 0xFF)) }
        return out + be32(b << 16 | a)
    }
}
