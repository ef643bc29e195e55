import Testing

@testable import QRCode

/// Format and version information (ISO/IEC 18004:2015 §7.9, §7.10, Annexes C and D).
@Suite struct FormatInformationTests {
    /// Annex C, Table C.1: the 32 format information bit sequences, by level (L, M, Q, H), then mask 0–7.
    static let annexC: [ErrorCorrectionLevel: [Int]] = [
        .low: [
            0b111011111000100, 0b111001011110011, 0b111110110101010, 0b111100010011101,
            0b110011000101111, 0b110001100011000, 0b110110001000001, 0b110100101110110,
        ],
        .medium: [
            0b101010000010010, 0b101000100100101, 0b101111001111100, 0b101101101001011,
            0b100010111111001, 0b100000011001110, 0b100111110010111, 0b100101010100000,
        ],
        .quartile: [
            0b011010101011111, 0b011000001101000, 0b011111100110001, 0b011101000000110,
            0b010010010110100, 0b010000110000011, 0b010111011011010, 0b010101111101101,
        ],
        .high: [
            0b001011010001001, 0b001001110111110, 0b001110011100111, 0b001100111010000,
            0b000011101100010, 0b000001001010101, 0b000110100001100, 0b000100000111011,
        ],
    ]

    @Test(arguments: ErrorCorrectionLevel.allCases)
    func formatBitsMatchAnnexC(level: ErrorCorrectionLevel) {
        for mask in DataMask.patterns {
            #expect(FormatInformation.bits(level: level, mask: mask) == Self.annexC[level]![mask], "\(level) mask \(mask)")
        }
    }

    /// The (15, 5) BCH code corrects three errors: any two of the 32 sequences differ in at least 7 bits.
    @Test func formatSequencesAreFarApart() {
        let all = ErrorCorrectionLevel.allCases.flatMap { level in DataMask.patterns.map { FormatInformation.bits(level: level, mask: $0) }
        }
        #expect(Set(all).count == 32)
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] { #expect((a ^ b).nonzeroBitCount >= 7) }
        }
    }

    /// Every symbol carries its level and mask twice, read here from the positions of Figure 25.
    @Test(arguments: ErrorCorrectionLevel.allCases)
    func bothCopiesInTheSymbol(level: ErrorCorrectionLevel) throws {
        for mask in DataMask.patterns {
            for version in [1, 7, 23] {
                let code = try QRCode.encode("CLIP 7", ecc: level, version: version, mask: mask)
                let n = code.size
                // First copy: bit 14 (most significant) at (0, 8) rightwards along row 8 to (8, 8), skipping column 6,
                // then up column 8 from (8, 7) to (8, 0), skipping row 6.
                let first: [(Int, Int)] =
                    [(0, 8), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (7, 8), (8, 8), (8, 7)]
                    + [(8, 5), (8, 4), (8, 3), (8, 2), (8, 1), (8, 0)]
                // Second copy: bit 14 at (8, n − 1) up column 8 to (8, n − 7), then along row 8 from (n − 8, 8) to (n − 1, 8).
                let second: [(Int, Int)] = (0..<7).map { (8, n - 1 - $0) } + (0..<8).map { (n - 8 + $0, 8) }
                for positions in [first, second] {
                    let bits = positions.reduce(0) { $0 << 1 | (code[$1.0, $1.1] ? 1 : 0) }
                    #expect(bits == Self.annexC[level]![mask], "\(level) mask \(mask) version \(version)")
                }
            }
        }
    }

    /// Annex D, Table D.1: version information for versions 7, 8, 9, 10, 20 and 40.
    @Test func versionBitsMatchAnnexD() {
        #expect(FormatInformation.versionBits(7) == 0b000111_110010010100)
        #expect(FormatInformation.versionBits(8) == 0b001000_010110111100)
        #expect(FormatInformation.versionBits(9) == 0b001001_101010011001)
        #expect(FormatInformation.versionBits(10) == 0b001010_010011010011)
        #expect(FormatInformation.versionBits(20) == 0b010100_100110100110)
        #expect(FormatInformation.versionBits(40) == 0b101000_110001101001)
    }

    /// Figure 27: the version information block above the bottom-left finder (6 columns × 3 rows, bit 0 at the
    /// top left, going down each column) and its transpose left of the top-right finder.
    @Test func versionInformationInTheSymbol() throws {
        for version in [7, 21, 40] {
            let code = try QRCode.encode("https://bikesrental.example/rent", version: version, mask: 1)
            let n = code.size
            var bottomLeft = 0
            var topRight = 0
            for index in 0..<18 {
                bottomLeft |= (code[index / 3, n - 11 + index % 3] ? 1 : 0) << index
                topRight |= (code[n - 11 + index % 3, index / 3] ? 1 : 0) << index
            }
            #expect(bottomLeft == FormatInformation.versionBits(version) && topRight == bottomLeft)
        }
    }
}
