import Testing

@testable import QRCode

/// Codewords, Reed–Solomon, capacities and the symbol sizes, against figures from ISO/IEC 18004:2015.
@Suite struct EncodingTests {
    /// Annex I's worked example: "01234567" at 1-M, its data and error correction codewords.
    @Test func annexIExampleCodewords() throws {
        let segments = QRSegment.optimal(Array("01234567".utf8), for: .small)
        #expect(segments == [try QRSegment("01234567", mode: .numeric)])
        let data = QRCode.dataCodewords(segments, version: 1, level: .medium)
        #expect(data == [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        let ecc = ReedSolomon.remainder(of: data[...], generator: ReedSolomon.generator(degree: 10))
        #expect(ecc == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
        let code = try QRCode.encode("01234567", ecc: .medium)
        #expect(code.version == 1 && code.size == 21 && code.segments.map(\.mode) == [.numeric])
    }

    /// "HELLO WORLD" at 1-M, worked by hand (alphanumeric pairs 45·a + b in 11 bits).
    @Test func helloWorldCodewords() throws {
        let data = QRCode.dataCodewords([try QRSegment("HELLO WORLD", mode: .alphanumeric)], version: 1, level: .medium)
        #expect(data == [0x20, 0x5B, 0x0B, 0x78, 0xD1, 0x72, 0xDC, 0x4D, 0x43, 0x40, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        let ecc = ReedSolomon.remainder(of: data[...], generator: ReedSolomon.generator(degree: 10))
        #expect(ecc == [0xC4, 0x23, 0x27, 0x77, 0xEB, 0xD7, 0xE7, 0xE2, 0x5D, 0x17])
    }

    /// Annex A: the generator polynomial of degree 7 is x⁷ + α⁸⁷x⁶ + α²²⁹x⁵ + α¹⁴⁶x⁴ + α¹⁴⁹x³ + α²³⁸x² + α¹⁰²x + α²¹.
    @Test func generatorPolynomialOfDegreeSeven() {
        #expect(ReedSolomon.generator(degree: 7).map { ReedSolomon.logarithms[Int($0)] } == [87, 229, 146, 149, 238, 102, 21])
    }

    /// A Reed–Solomon codeword, data followed by its error correction, is divisible by the generator: it is zero
    /// at α⁰ … αⁿ⁻¹ (every syndrome zero), evaluated here by Horner's rule, not by the encoder's division.
    @Test(arguments: [7, 10, 13, 17, 22, 26, 28, 30])
    func everySyndromeIsZero(degree: Int) {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 2, 15, 24, 54, 118] {
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let codeword = data + ReedSolomon.remainder(of: data[...], generator: ReedSolomon.generator(degree: degree))
            for power in 0..<degree {
                let point = ReedSolomon.exponents[power]
                let value = codeword.reduce(UInt8(0)) { ReedSolomon.multiply($0, point) ^ $1 }
                #expect(value == 0, "degree \(degree), length \(length), syndrome \(power)")
            }
            // One changed codeword is caught.
            var corrupted = codeword
            corrupted[length / 2] ^= 0x5A
            let syndromes = (0..<degree).map { power in
                corrupted.reduce(UInt8(0)) { ReedSolomon.multiply($0, ReedSolomon.exponents[power]) ^ $1 }
            }
            #expect(syndromes.contains { $0 != 0 })
        }
    }

    /// Table 7: data codewords at the smallest and largest versions; Table 1: codewords per version.
    @Test func dataCapacities() {
        let v1 = ErrorCorrectionLevel.allCases.map { BlockStructure(version: 1, level: $0).dataCodewords }
        let v40 = ErrorCorrectionLevel.allCases.map { BlockStructure(version: 40, level: $0).dataCodewords }
        #expect(v1 == [19, 16, 13, 9])
        #expect(v40 == [2956, 2334, 1666, 1276])
        #expect(
            [1, 2, 6, 7, 14, 21, 40].map { BlockStructure(version: $0, level: .low).totalCodewords } == [26, 44, 172, 196, 581, 1156, 3706])
        #expect([1, 2, 7, 40].map(BlockStructure.remainderBits) == [0, 7, 0, 0])
        #expect([14, 20, 21, 27, 28].map(BlockStructure.remainderBits) == [3, 3, 4, 4, 3])
    }

    /// Table 7's byte-mode capacities, and the largest texts that fit, at version 40.
    @Test func byteCapacitiesAtTheEdges() throws {
        #expect(ErrorCorrectionLevel.allCases.map { QRCode.byteCapacity(version: 1, level: $0) } == [17, 14, 11, 7])
        #expect(ErrorCorrectionLevel.allCases.map { QRCode.byteCapacity(version: 40, level: $0) } == [2953, 2331, 1663, 1273])
        let largest = try QRCode.encode(String(repeating: "a", count: 2953), ecc: .low, mask: 0)
        #expect(largest.version == 40 && largest.text.utf8.count == 2953)
        #expect(throws: QRCodeError.tooLong(bytes: 2954, level: .low, maxBytes: 2953)) {
            try QRCode.encode(String(repeating: "a", count: 2954), ecc: .low, mask: 0)
        }
        // Digits and upper-case letters pack tighter: 7,089 and 4,296 characters at 40-L.
        #expect(try QRCode.encode(String(repeating: "7", count: 7089), ecc: .low, mask: 0).version == 40)
        #expect(throws: QRCodeError.self) { try QRCode.encode(String(repeating: "7", count: 7090), ecc: .low, mask: 0) }
        #expect(try QRCode.encode(String(repeating: "Z", count: 4296), ecc: .low, mask: 0).version == 40)
        #expect(throws: QRCodeError.self) { try QRCode.encode(String(repeating: "Z", count: 4297), ecc: .low, mask: 0) }
    }

    /// At every version and level the byte capacity fits that version, and one byte more needs the next.
    @Test(arguments: ErrorCorrectionLevel.allCases)
    func smallestVersionAtEveryCapacity(level: ErrorCorrectionLevel) throws {
        for version in QRCode.versions {
            let capacity = QRCode.byteCapacity(version: version, level: level)
            let fits = try QRCode.encode(String(repeating: "a", count: capacity), ecc: level, mask: 0, segmentation: .byte)
            #expect(fits.version == version)
            if version < 40 {
                let next = try QRCode.encode(String(repeating: "a", count: capacity + 1), ecc: level, mask: 0, segmentation: .byte)
                #expect(next.version == version + 1)
            }
        }
    }

    /// Every version draws 17 + 4v modules a side, with the finder patterns in three corners and the timing
    /// pattern between them.
    @Test func everyVersionHasItsSize() throws {
        for version in QRCode.versions {
            let code = try QRCode.encode("https://a.example", ecc: .low, version: version, mask: version % 8)
            #expect(code.size == 17 + 4 * version && code.version == version)
            let last = code.size - 1
            #expect(code[0, 0] && code[last, 0] && code[0, last])
            // Top-left finder: a dark 7 × 7 ring, a light ring inside it, a dark 3 × 3 centre, a light separator.
            #expect((0..<7).allSatisfy { code[$0, 0] && code[$0, 6] && code[0, $0] && code[6, $0] })
            #expect((1..<6).allSatisfy { !code[$0, 1] && !code[$0, 5] && !code[1, $0] && !code[5, $0] })
            #expect((2..<5).allSatisfy { x in (2..<5).allSatisfy { code[x, $0] } })
            #expect((0..<8).allSatisfy { !code[$0, 7] && !code[7, $0] && !code[last - $0, 7] && !code[$0, last - 7] })
            #expect((8..<code.size - 8).allSatisfy { code[$0, 6] == ($0 % 2 == 0) && code[6, $0] == ($0 % 2 == 0) })
            #expect(code[8, code.size - 8], "the dark module")
            // The quiet zone is light.
            #expect(!code[-1, 0] && !code[0, -1] && !code[code.size, 0] && !code[0, code.size])
        }
    }

    /// Annex E, Table E.1: the row and column coordinates of alignment pattern centres.
    @Test func alignmentPatternCentres() {
        #expect(ModuleMatrix.alignmentCentres(version: 1) == [])
        #expect(ModuleMatrix.alignmentCentres(version: 2) == [6, 18])
        #expect(ModuleMatrix.alignmentCentres(version: 6) == [6, 34])
        #expect(ModuleMatrix.alignmentCentres(version: 7) == [6, 22, 38])
        #expect(ModuleMatrix.alignmentCentres(version: 14) == [6, 26, 46, 66])
        #expect(ModuleMatrix.alignmentCentres(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(ModuleMatrix.alignmentCentres(version: 36) == [6, 24, 50, 76, 102, 128, 154])
        #expect(ModuleMatrix.alignmentCentres(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }
}
