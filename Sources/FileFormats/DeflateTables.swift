/// The fixed tables of DEFLATE (RFC 1951 §3.2.5, §3.2.6, §3.2.7).
enum DeflateTables {
    /// Literal/length symbols 257…285: the first length of each and its count of extra bits.
    static let lengthBase: [Int] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    static let lengthExtraBits: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

    /// Distance symbols 0…29: the first distance of each and its count of extra bits.
    static let distanceBase: [Int] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
        8193, 12289, 16385, 24577,
    ]
    static let distanceExtraBits: [Int] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    /// The order in which a dynamic block gives the lengths of the code length alphabet.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// The length symbol (257…285) of each match length 0…258 (0 below 3). 258 has its own symbol,
    /// 285, although 284 with 31 extra would reach it: 284 stops at 257.
    static let lengthSymbol: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 259)
        for (index, base) in lengthBase.enumerated() {
            let top = index == 27 ? 257 : min(258, base + (1 << lengthExtraBits[index]) - 1)
            for length in base...top { table[length] = UInt16(257 + index) }
        }
        return table
    }()

    /// The distance symbol (0…29) of each distance 1…32768.
    static let distanceSymbol: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 32769)
        for (index, base) in distanceBase.enumerated() {
            for distance in base..<(base + (1 << distanceExtraBits[index])) { table[distance] = UInt8(index) }
        }
        return table
    }()

    /// The fixed Huffman code's lengths (§3.2.6): literal/length symbols 0…287, distances 0…29.
    static let fixedLiteralLengths: [UInt8] = (0..<288).map { symbol in
        switch symbol {
        case 0...143: 8
        case 144...255: 9
        case 256...279: 7
        default: 8
        }
    }
    static let fixedDistanceLengths = [UInt8](repeating: 5, count: 30)
    static let fixedLiteralCode = HuffmanCode(lengths: fixedLiteralLengths)
    static let fixedDistanceCode = HuffmanCode(lengths: fixedDistanceLengths)
}
