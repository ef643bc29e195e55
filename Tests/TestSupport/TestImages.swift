/// Real image files for the header-image tests (ClipCoreTests on the checks, ClipctlTests through
/// `clipctl --image` and import): a PNG encoder with CRC-32 (ISO/IEC 15948 Annex D) whose IDAT is
/// a real zlib stream (RFC 1950) of the image's filtered scanlines, and a baseline JPEG skeleton.
/// Written here, independently of the code under test.
public enum TestImages {
    public static func be32(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    public static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
        return c
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }

    public static func chunk(_ type: String, _ data: [UInt8], badCRC: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = crc32(body) ^ (badCRC ? 1 : 0)
        return be32(data.count) + body + be32(Int(crc))
    }

    /// zlib with stored blocks: no compression, valid for any decoder.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65_535, data.count - i)
            let final: UInt8 = i + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)] + data[i..<(i + n)]
            i += n
        } while i < data.count
        return out + be32(Int(adler32([(data, 1)])))
    }

    /// Adler-32 (RFC 1950 §8.2) of `count` repetitions of each byte sequence, without building
    /// the data: for n bytes of value v, a grows by n·v and b by n·a + v·n(n+1)/2.
    public static func adler32(_ parts: [(bytes: [UInt8], count: Int)]) -> UInt32 {
        var a = 1, b = 0
        for (bytes, count) in parts {
            if bytes.count == 1 {
                let (v, n) = (Int(bytes[0]), count)
                b = (b + n % 65_521 * a + v * (n * (n + 1) / 2 % 65_521)) % 65_521
                a = (a + n % 65_521 * v) % 65_521
            } else {
                for _ in 0..<count { for byte in bytes { a = (a + Int(byte)) % 65_521; b = (b + a) % 65_521 } }
            }
        }
        return UInt32(b << 16 | a)
    }

    /// Bits packed as deflate wants them (RFC 1951 §3.1.1): from the least significant bit of
    /// each byte; Huffman codes from their most significant bit.
    public struct BitWriter {
        public var bytes: [UInt8] = []
        public var buffer: UInt64 = 0, count = 0
        public init() {}
        public mutating func bits(_ value: Int, _ n: Int) {
            buffer |= UInt64(value) << UInt64(count)
            count += n
            while count >= 8 { bytes.append(UInt8(buffer & 0xFF)); buffer >>= 8; count -= 8 }
        }
        public mutating func code(_ code: (bits: Int, length: Int)) { bits(code.bits, code.length) }
        public mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
            return bytes
        }
    }

    /// Canonical Huffman codes for code lengths (RFC 1951 §3.2.2), bit-reversed for `BitWriter`.
    public static func huffmanCodes(_ lengths: [Int]) -> [(bits: Int, length: Int)] {
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

    /// A zlib stream (RFC 1950: CMF 0x78, FLG 0x01, Adler-32) of one deflate block with dynamic
    /// Huffman codes (RFC 1951 §3.2.7) made for data that is long runs of one byte: a run is its
    /// byte as a literal, then copies of length 258 at distance 1, then one shorter copy or up to
    /// two literals. Length code 285 (258, no extra bits) gets a 1-bit code; the one distance code
    /// (0: distance 1) is "encoded using one bit" (§3.2.7); literals 0–226 get 9 bits, and
    /// literals 227–255, end-of-block and length codes 257–284 get 10 (a complete code:
    /// 1/2 + 227/512 + 58/1024 = 1). A long run thus costs 2 bits per 258 bytes, deflate's best.
    /// The code lengths are sent with a code-length code of 1 bit for 9, 2 bits for 10 and 1.
    public static func zlibRuns(_ runs: [(byte: UInt8, count: Int)]) -> [UInt8] {
        var literalLengths = [Int](repeating: 9, count: 286)
        for symbol in 227...284 { literalLengths[symbol] = 10 }
        literalLengths[285] = 1
        let literal = huffmanCodes(literalLengths), distance = (bits: 0, length: 1)
        var lengthLengths = [Int](repeating: 0, count: 19)
        (lengthLengths[9], lengthLengths[10], lengthLengths[1]) = (1, 2, 2)
        let lengthCode = huffmanCodes(lengthLengths)
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

        var w = BitWriter()
        w.bits(1, 1)  // BFINAL
        w.bits(2, 2)  // BTYPE 10: dynamic Huffman codes
        w.bits(286 - 257, 5)  // HLIT
        w.bits(1 - 1, 5)  // HDIST
        w.bits(18 - 4, 4)  // HCLEN: the order up to code-length symbol 1
        for symbol in order.prefix(18) { w.bits(lengthLengths[symbol], 3) }
        for length in literalLengths + [1] { w.code(lengthCode[length]) }  // then the distance code's length

        // Length codes 257–284 (RFC 1951 §3.2.5): base lengths and extra bits.
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227]
        let extra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
        var last: UInt8?
        for (byte, count) in runs where count > 0 {
            var left = count
            if last != byte { w.code(literal[Int(byte)]); left -= 1; last = byte }
            while left >= 258 { w.code(literal[285]); w.code(distance); left -= 258 }
            if left >= 3 {
                let i = bases.lastIndex { $0 <= left }!
                w.code(literal[257 + i]); w.bits(left - bases[i], extra[i]); w.code(distance)
            } else {
                for _ in 0..<left { w.code(literal[Int(byte)]) }
            }
        }
        w.code(literal[256])
        return [0x78, 0x01] + w.finish() + be32(Int(adler32(runs.map { ([$0.byte], $0.count) })))
    }

    /// The filtered scanlines of a grey image as runs: each row is filter type 0 (None) and then
    /// every sample `grey` (ISO/IEC 15948 §7.2, 8-bit samples).
    public static func greyRuns(width: Int, height: Int, channels: Int, grey: UInt8 = 0x80) -> [(byte: UInt8, count: Int)] {
        Array(repeating: [(UInt8(0), 1), (grey, width * channels)], count: height).flatMap { $0 }
    }

    /// An RGB (colour type 2) or RGBA (6) PNG of `grey` pixels with its complete image data (two
    /// greys make two files of one size that differ).
    /// `ihdrWidth`/`ihdrHeight` make the IHDR lie about the size the data holds (for the rules
    /// checked before the data); `zlib` replaces the IDAT data, split into chunks of `idatChunk`
    /// bytes; `acTL` adds an APNG animation control chunk before the IDAT.
    public static func png(
        width: Int, height: Int, colorType: UInt8 = 2, grey: UInt8 = 0x80, tRNS: Bool = false, ihdrWidth: Int? = nil,
        ihdrHeight: Int? = nil,
        idat: Bool = true, iend: Bool = true, badCRC: Bool = false, trailing: [UInt8] = [],
        zlib: [UInt8]? = nil, idatChunk: Int? = nil, acTL: Bool = false
    ) -> [UInt8] {
        let channels = colorType == 6 ? 4 : 3
        let data = zlib ?? zlibRuns(greyRuns(width: width, height: height, channels: channels, grey: grey))
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(ihdrWidth ?? width) + be32(ihdrHeight ?? height) + [8, colorType, 0, 0, 0])
        if tRNS { bytes += chunk("tRNS", [0, 0, 0, 0, 0, 0]) }
        if acTL { bytes += chunk("acTL", be32(2) + be32(0)) }  // 2 frames, played forever
        if idat {
            let size = idatChunk ?? max(1, data.count)
            for start in stride(from: 0, to: max(1, data.count), by: size) {
                bytes += chunk("IDAT", Array(data[start..<min(start + size, data.count)]), badCRC: badCRC)
            }
        }
        if iend { bytes += chunk("IEND", []) }
        return bytes + trailing
    }

    /// SOI, APP0, SOF0 (8-bit, `components` components), DHT-free skeleton scan (SOS + a few
    /// entropy bytes, one stuffed 0xFF 0x00 and a restart marker), EOI.
    public static func jpeg(width: Int, height: Int, components: Int = 1, sos: Bool = true, eoi: Bool = true) -> [UInt8] {
        var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]
        b += [
            0xFF, 0xC0, 0x00, UInt8(8 + 3 * components), 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
            UInt8(width & 0xFF), UInt8(components),
        ]
        for c in 0..<components { b += [UInt8(c + 1), 0x11, 0x00] }
        if sos { b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00] + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56] }
        if eoi { b += [0xFF, 0xD9] }
        return b
    }
}
