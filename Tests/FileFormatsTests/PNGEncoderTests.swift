@testable import FileFormats
import Testing

/// Pillow and pngcheck read these PNGs in scripts/formats-check; here, the bytes and chunks a
/// reader relies on, and every refusal.
struct PNGEncoderTests {
    /// A chunk as read back: type, data, and whether its CRC-32 matches.
    struct Chunk {
        let type: String
        let data: [UInt8]
        let crcMatches: Bool
    }

    func chunks(_ png: [UInt8]) -> [Chunk] {
        var out: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(bigEndian32(png, at: offset))
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = Array(png[(offset + 8)..<(offset + 8 + length)])
            let crc = bigEndian32(png, at: offset + 8 + length)
            out.append(Chunk(type: type, data: data, crcMatches: crc == CRC32.checksum(png[(offset + 4)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        #expect(offset == png.count)
        return out
    }

    /// A 2 × 2 checkerboard, dark on the diagonal; Pillow 13 read it as mode "1" with pixels 0, 255, 255, 0.
    @Test func goldenCheckerboard() throws {
        let png = try PNGEncoder.bilevel(width: 2, height: 2, dark: [true, false, false, true])
        let expected = bytes(
            hex: "89504e470d0a1a0a0000000d49484452000000020000000201000000005acd30890000000c49444154789c637060680000014400c13a7a1c56"
                + "0000000049454e44ae426082")
        #expect(png == expected)
    }

    /// Signature (§5.2), then IHDR (§11.2.2): the scaled size with its border, bit depth 1,
    /// greyscale, compression, filter and interlace methods 0; IDAT; IEND; every CRC right.
    @Test func bilevelLayout() throws {
        let png = try PNGEncoder.bilevel(width: 21, height: 21, dark: (0..<441).map { $0 % 3 == 0 }, scale: 8, border: 4)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let read = chunks(png)
        #expect(read.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(read.allSatisfy { $0.crcMatches })
        #expect(bigEndian32(read[0].data, at: 0) == 232)
        #expect(bigEndian32(read[0].data, at: 4) == 232)
        #expect(Array(read[0].data.dropFirst(8)) == [1, 0, 0, 0, 0])
        #expect(read[2].data.isEmpty)
    }

    @Test func grayscaleLayout() throws {
        let pixels = (0..<(300 * 20)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let png = try PNGEncoder.grayscale(width: 300, height: 20, pixels: pixels)
        let read = chunks(png)
        #expect(read.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(read.allSatisfy { $0.crcMatches })
        #expect(Array(read[0].data.dropFirst(8)) == [8, 0, 0, 0, 0])
        #expect(try PNGEncoder.grayscale(width: 300, height: 20, pixels: pixels) == png)
    }

    /// pHYs (§11.3.5.3): 300 pixels per inch is 11811 per metre (300 / 0.0254 = 11811.02), unit 1 (metre).
    /// tEXt (§11.3.4.3): keyword, NUL, Latin-1 text ("é" is the one byte E9).
    @Test func metadataChunks() throws {
        let metadata = PNGMetadata(text: [PNGText(keyword: "Title", text: "Café\nhttps://example.com")], pixelsPerInch: 300)
        let read = chunks(try PNGEncoder.bilevel(width: 1, height: 1, dark: [true], metadata: metadata))
        #expect(read.map(\.type) == ["IHDR", "pHYs", "tEXt", "IDAT", "IEND"])
        #expect(read[1].data == [0, 0, 0x2E, 0x23, 0, 0, 0x2E, 0x23, 1])
        #expect(read[2].data == Array("Title".utf8) + [0, 0x43, 0x61, 0x66, 0xE9, 0x0A] + Array("https://example.com".utf8))
        #expect(read.allSatisfy { $0.crcMatches })
    }

    /// The largest width and height written: 16384 pixels (one way at a time, to stay small).
    @Test func largestSizeIsAccepted() throws {
        let wide = try PNGEncoder.bilevel(width: 16384, height: 1, dark: [Bool](repeating: true, count: 16384))
        #expect(bigEndian32(chunks(wide)[0].data, at: 0) == 16384)
        let tall = try PNGEncoder.grayscale(width: 1, height: 16384, pixels: [UInt8](repeating: 9, count: 16384))
        #expect(bigEndian32(chunks(tall)[0].data, at: 4) == 16384)
    }

    @Test(arguments: [
        (1, 1, 16385, 0, PNGError.scaleOutOfRange(16385)),
        (1, 1, 8192, 1, .tooLarge(width: 24576, height: 24576)),
        (16385, 1, 1, 0, .tooLarge(width: 16385, height: 1)),
        (Int.max, Int.max, 1, 0, .tooLarge(width: Int.max, height: Int.max)),
        (0, 5, 1, 0, .emptyImage(width: 0, height: 5)),
        (-1, 1, 1, 0, .emptyImage(width: -1, height: 1)),
        (1, 1, 0, 0, .scaleOutOfRange(0)),
        (1, 1, -3, 0, .scaleOutOfRange(-3)),
        (1, 1, 1, -1, .borderOutOfRange(-1)),
        (2, 2, 1, 0, .pixelCountMismatch(expected: 4, actual: 1)),
    ])
    func bilevelRefusals(width: Int, height: Int, scale: Int, border: Int, error: PNGError) {
        #expect(throws: error) {
            try PNGEncoder.bilevel(width: width, height: height, dark: [true], scale: scale, border: border)
        }
    }

    @Test func grayscaleRefusals() {
        #expect(throws: PNGError.tooLarge(width: 1, height: 16385)) { try PNGEncoder.grayscale(width: 1, height: 16385, pixels: []) }
        #expect(throws: PNGError.pixelCountMismatch(expected: 6, actual: 5)) {
            try PNGEncoder.grayscale(width: 3, height: 2, pixels: [0, 0, 0, 0, 0])
        }
        #expect(throws: PNGError.emptyImage(width: 0, height: 0)) { try PNGEncoder.grayscale(width: 0, height: 0, pixels: []) }
    }

    @Test(arguments: [0, -300, 100_001])
    func resolutionRefusals(pixelsPerInch: Int) {
        #expect(throws: PNGError.resolutionOutOfRange(pixelsPerInch)) {
            try PNGEncoder.grayscale(width: 1, height: 1, pixels: [0], metadata: PNGMetadata(pixelsPerInch: pixelsPerInch))
        }
    }

    /// §11.3.4.2: 1 to 79 printable Latin-1 characters, no leading, trailing or consecutive spaces.
    @Test(arguments: [
        "", " Title", "Title ", "Two  spaces", String(repeating: "K", count: 80), "Tab\there", "Del\u{7F}", "東京", "Zero\u{200B}width",
    ])
    func keywordRefusals(keyword: String) {
        #expect(throws: PNGError.invalidKeyword(keyword)) {
            try PNGEncoder.grayscale(width: 1, height: 1, pixels: [0], metadata: PNGMetadata(text: [PNGText(keyword: keyword, text: "x")]))
        }
    }

    @Test func keywordLimitsAccepted() throws {
        for keyword in [String(repeating: "K", count: 79), "Créé par", "K"] {
            let metadata = PNGMetadata(text: [PNGText(keyword: keyword, text: "")])
            #expect(chunks(try PNGEncoder.grayscale(width: 1, height: 1, pixels: [0], metadata: metadata))[1].type == "tEXt")
        }
    }

    @Test func textRefusals() {
        func encode(_ text: String) throws(PNGError) {
            _ = try PNGEncoder.grayscale(
                width: 1, height: 1, pixels: [0], metadata: PNGMetadata(text: [PNGText(keyword: "Title", text: text)]))
        }
        #expect(throws: PNGError.textNotLatin1(keyword: "Title", character: "東")) { try encode("Tokyo 東京") }
        #expect(throws: PNGError.textNotLatin1(keyword: "Title", character: "\u{200B}")) { try encode("in\u{200B}visible") }
        #expect(throws: PNGError.controlCharacterInText(keyword: "Title", character: "\0")) { try encode("a\0b") }
        #expect(throws: PNGError.controlCharacterInText(keyword: "Title", character: "\r")) { try encode("a\r\nb") }
        #expect(throws: PNGError.controlCharacterInText(keyword: "Title", character: "\u{85}")) { try encode("a\u{85}b") }
        #expect(throws: PNGError.textTooLong(keyword: "Title", limit: 65536)) { try encode(String(repeating: "x", count: 65537)) }
        #expect(throws: Never.self) { try encode(String(repeating: "x", count: 65536)) }
    }

    /// The messages name what was refused, with invisible characters shown as code points.
    @Test func messages() {
        #expect(PNGError.tooLarge(width: 20000, height: 20000).description.contains("16384 × 16384"))
        #expect(PNGError.invalidKeyword("Zero\u{200B}width").description.contains("\"ZeroU+200Bwidth\""))
        #expect(PNGError.textNotLatin1(keyword: "Title", character: "東").description.contains("U+6771"))
    }

    /// The Paeth predictor (§9.4): the neighbour nearest to left + above − upper left, ties to left, then above.
    @Test func paeth() {
        #expect(PNGEncoder.paeth(10, 20, 10) == 20)
        #expect(PNGEncoder.paeth(20, 10, 10) == 20)
        #expect(PNGEncoder.paeth(10, 10, 10) == 10)
        #expect(PNGEncoder.paeth(100, 50, 75) == 75)
        #expect(PNGEncoder.paeth(0, 255, 255) == 0)
        #expect(PNGEncoder.paeth(5, 9, 7) == 7)
    }
}
