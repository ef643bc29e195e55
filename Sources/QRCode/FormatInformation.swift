/// The BCH-protected format and version information, ISO/IEC 18004:2015 §7.9 and §7.10.
enum FormatInformation {
    /// The 15 format bits for a level and mask (§7.9.1): 2 level bits and 3 mask bits, a (15, 5) BCH code
    /// with generator x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1 (0b101_0011_0111), then XOR with 101010000010010 so
    /// that no combination is all zero (Annex C lists all 32 results).
    static func bits(level: ErrorCorrectionLevel, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        return (data << 10 | bchRemainder(data, degree: 10, generator: 0b101_0011_0111)) ^ 0b101_0100_0001_0010
    }

    /// The 18 version bits for versions 7–40 (§7.10): 6 version bits and an (18, 6) BCH code with generator
    /// x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1 (0b1_1111_0010_0101); no mask (Annex D lists them).
    static func versionBits(_ version: Int) -> Int {
        precondition(version >= 7 && version <= 40)
        return version << 12 | bchRemainder(version, degree: 12, generator: 0b1_1111_0010_0101)
    }

    /// The remainder of data(x)·x^degree divided by the generator, over GF(2).
    static func bchRemainder(_ data: Int, degree: Int, generator: Int) -> Int {
        var remainder = data << degree
        let generatorDegree = Int.bitWidth - generator.leadingZeroBitCount - 1
        for shift in stride(from: Int.bitWidth - remainder.leadingZeroBitCount - 1, through: generatorDegree, by: -1)
        where (remainder >> shift) & 1 == 1 {
            remainder ^= generator << (shift - generatorDegree)
        }
        return remainder
    }
}
