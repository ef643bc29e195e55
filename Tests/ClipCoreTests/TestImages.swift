/// Real, tiny image files for the header-image tests: a PNG encoder with CRC-32 (ISO/IEC 15948
/// Annex D) and a zlib stream of stored deflate blocks (RFC 1950, RFC 1951 §3.2.4), and a
/// baseline JPEG skeleton. Written here, independently of the code under test.
enum TestImages {
    static func be32(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~c
    }

    static func chunk(_ type: String, _ data: [UInt8], badCRC: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = crc32(body) ^ (badCRC ? 1 : 0)
        return be32(data.count) + body + be32(Int(crc))
    }

    /// zlib with stored blocks: no compression, valid for any decoder.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65_535, data.count - i)
            let final: UInt8 = i + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)] + data[i..<(i + n)]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return out + be32(Int(b << 16 | a))
    }

    /// An RGB (colour type 2) or RGBA (6) PNG of grey pixels.
    static func png(width: Int, height: Int, colorType: UInt8 = 2, tRNS: Bool = false, ihdrWidth: Int? = nil, ihdrHeight: Int? = nil,
                    idat: Bool = true, iend: Bool = true, badCRC: Bool = false, trailing: [UInt8] = []) -> [UInt8] {
        let channels = colorType == 6 ? 4 : 3
        var raw: [UInt8] = []
        for _ in 0..<height { raw += [0] + [UInt8](repeating: 0x80, count: width * channels) }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(ihdrWidth ?? width) + be32(ihdrHeight ?? height) + [8, colorType, 0, 0, 0])
        if tRNS { bytes += chunk("tRNS", [0, 0, 0, 0, 0, 0]) }
        if idat { bytes += chunk("IDAT", zlibStored(raw), badCRC: badCRC) }
        if iend { bytes += chunk("IEND", []) }
        return bytes + trailing
    }

    /// SOI, APP0, SOF0 (8-bit, one component), DHT-free skeleton scan (SOS + a few entropy bytes,
    /// one stuffed 0xFF 0x00 and a restart marker), EOI.
    static func jpeg(width: Int, height: Int, sos: Bool = true, eoi: Bool = true) -> [UInt8] {
        var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]
        b += [0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
        if sos { b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00] + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56] }
        if eoi { b += [0xFF, 0xD9] }
        return b
    }
}
