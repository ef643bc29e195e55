/// How a version's codewords divide into data and error correction blocks: ISO/IEC 18004:2015 §7.5.2
/// Table 9 (error correction characteristics), and the codewords of each version (Table 1).
struct BlockStructure: Equatable {
    /// Codewords in the symbol (data and error correction together).
    let totalCodewords: Int
    /// Error correction codewords in each block (every block of a version and level has the same number).
    let eccPerBlock: Int
    /// Number of blocks; when the data codewords do not divide evenly, the later blocks hold one more.
    let blocks: Int

    var dataCodewords: Int { totalCodewords - eccPerBlock * blocks }
    var dataBits: Int { dataCodewords * 8 }

    init(version: Int, level: ErrorCorrectionLevel) {
        precondition(QRCode.versions.contains(version))
        totalCodewords = Self.dataModules(version: version) / 8
        eccPerBlock = Self.eccCodewordsPerBlock[level.rawValue][version - 1]
        blocks = Self.blockCounts[level.rawValue][version - 1]
    }

    /// Modules left for codewords (data, error correction and remainder bits) once the function patterns,
    /// format and version information are placed: 21 + 4(v−1) squared, less three finder patterns with
    /// separators and the format areas (225), the timing patterns, the alignment patterns that do not overlap
    /// them (5 × 5 each), and from version 7 the two 6 × 3 version information areas (Table 1's figures).
    static func dataModules(version: Int) -> Int {
        var modules = (16 * version + 128) * version + 64
        if version >= 2 {
            let perSide = version / 7 + 2
            modules -= (25 * perSide - 10) * perSide - 55
            if version >= 7 { modules -= 36 }
        }
        return modules
    }

    /// Remainder bits after the last codeword (Table 1): 0, 7, 3 or 4 depending on the version.
    static func remainderBits(version: Int) -> Int { dataModules(version: version) % 8 }

    /// Table 9, error correction codewords per block, by level (L, M, Q, H) then version 1–40.
    static let eccCodewordsPerBlock: [[Int]] = [
        [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Table 9, number of error correction blocks, by level (L, M, Q, H) then version 1–40.
    static let blockCounts: [[Int]] = [
        [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    /// Splits the data codewords into blocks, appends each block's Reed–Solomon codewords and interleaves
    /// them (§7.6): the first data codeword of every block, then the second, …, then the error correction
    /// codewords the same way. The shorter blocks come first (Table 9 lists them first).
    func interleave(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count == dataCodewords)
        let shortBlocks = blocks - totalCodewords % blocks
        let shortDataLength = totalCodewords / blocks - eccPerBlock
        let generator = ReedSolomon.generator(degree: eccPerBlock)
        var dataBlocks: [ArraySlice<UInt8>] = []
        var eccBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blocks {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            let block = data[start..<start + length]
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(of: block, generator: generator))
            start += length
        }
        var result: [UInt8] = []
        result.reserveCapacity(totalCodewords)
        for column in 0...shortDataLength {
            for block in dataBlocks where column < block.count {
                result.append(block[block.startIndex + column])
            }
        }
        for column in 0..<eccPerBlock {
            for block in eccBlocks { result.append(block[column]) }
        }
        return result
    }
}
