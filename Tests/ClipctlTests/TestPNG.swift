import Foundation

/// Small but complete PNG files (ISO/IEC 15948: IHDR, one IDAT, IEND, each with its CRC-32) of
/// any declared size: the IDAT holds one pixel in a zlib stored block, which the registry's
/// checks accept as image data.
enum TestPNG {
    static func be32(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c ^= UInt32(b); for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) } }
        return be32(Int(~c))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { be32(data.count) + Array(type.utf8) + data + crc32(Array(type.utf8) + data) }

    /// `seed` varies the pixel, so that two files of one size differ.
    static func png(_ w: Int, _ h: Int, colorType: UInt8, seed: UInt8 = 1) -> Data {
        let pixel: [UInt8] = colorType == 6 ? [0, seed, 2, 3, 4] : [0, seed, 2, 3]
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(pixel.count), 0, ~UInt8(pixel.count), 0xFF] + pixel + [0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be32(w) + be32(h) + [8, colorType, 0, 0, 0])
                    + chunk("IDAT", zlib) + chunk("IEND", []))
    }
}
