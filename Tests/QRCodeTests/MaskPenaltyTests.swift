import Testing

@testable import QRCode

/// The penalty rules of ISO/IEC 18004:2015 §7.8.3.1 (Table 11) on small matrices worked by hand.
@Suite struct MaskPenaltyTests {
    /// Rows of "0" and "1" (1 dark) as a square matrix.
    func matrix(_ rows: [String]) -> [Bool] {
        precondition(rows.allSatisfy { $0.count == rows.count })
        return rows.flatMap { $0.map { $0 == "1" } }
    }

    func scores(_ rows: [String]) -> [Int] {
        let result = DataMask.penalties(matrix(rows), size: rows.count)
        return [result.n1, result.n2, result.n3, result.n4]
    }

    @Test func allLight() {
        // N1: 5 rows and 5 columns of 5 → 3 each; N2: 16 blocks of 2 × 2 → 3 each; N4: 0 % dark is 10 steps of 5 %.
        #expect(scores(Array(repeating: "00000", count: 5)) == [30, 48, 0, 100])
    }

    @Test func checkerboardScoresNothing() {
        let rows = (0..<6).map { y in String((0..<6).map { x in (x + y) % 2 == 0 ? "1" : "0" }) }
        #expect(scores(rows) == [0, 0, 0, 0])
    }

    @Test func longerRunsScoreMore() {
        // Row 0: a run of 6 (3 + 1) after a light module; the other rows alternate, columns never run 5.
        let rows = ["0111111", "1010101", "0101010", "1010101", "0101010", "1010101", "0101010"]
        let result = scores(rows)
        #expect(result[0] == 4)
        // A run of 5 (3), and a run of 7 (3 + 2).
        #expect(scores(["11111011", "10101010", "01010101", "10101010", "01010101", "10101010", "01010101", "10101010"])[0] == 3)
        #expect(scores(["1111111", "0101010", "1010101", "0101010", "1010101", "0101010", "1010101"])[0] == 5)
    }

    @Test func blocksOfOneColour() {
        // A 3 × 3 dark block holds four 2 × 2 blocks: N2 = 3 × (3 − 1) × (3 − 1) = 12.
        let rows = ["1110", "1110", "1110", "0001"]
        #expect(scores(rows)[1] == 12)
    }

    @Test func finderLikePatterns() {
        // 1011101 at the left edge of a row: the quiet zone before it is light → 40. Nothing in the columns.
        var rows = ["1011101"] + Array(repeating: "0000000", count: 6)
        #expect(scores(rows)[2] == 40)
        // In the middle of an 11-wide row with 4 light modules after it, and the same pattern down a column.
        rows = (0..<12).map { y in y == 5 ? "110111010001" : "000000000000" }
        #expect(scores(rows)[2] == 0, "1 1011101 0001: dark before, only 3 light after")
        rows = (0..<11).map { y in y == 5 ? "01011101000" : "00000000000" }
        #expect(scores(rows)[2] == 40, "4 light after, counting the quiet zone")
        let transposed = (0..<11).map { x in String((0..<11).map { y in Array(rows[y])[x] }) }
        #expect(scores(transposed)[2] == 40)
        // Two occurrences sharing a module, each with light on its outer side: both count.
        rows = (0..<13).map { y in y == 0 ? "1011101011101" : "0000000000000" }
        #expect(scores(rows)[2] == 80)
    }

    @Test func darkProportionSteps() {
        // 10 × 10: 46 dark (4 % off) scores 0; 45 (5 % off) 10; 41 10; 40 20; all dark 100.
        func darkModules(_ count: Int) -> [Bool] { (0..<100).map { $0 < count } }
        #expect(
            [46, 54, 45, 55, 41, 40, 0, 100].map { DataMask.penalties(darkModules($0), size: 10).n4 } == [0, 0, 10, 10, 10, 20, 100, 100])
    }

    /// Table 10's conditions at a few modules (i the row, j the column).
    @Test func maskConditions() {
        #expect(DataMask.inverts(1, row: 0, column: 1) && !DataMask.inverts(1, row: 1, column: 0))
        #expect(DataMask.inverts(2, row: 1, column: 3) && !DataMask.inverts(2, row: 3, column: 1))
        #expect(DataMask.inverts(4, row: 1, column: 2) && !DataMask.inverts(4, row: 2, column: 1))
        #expect((0..<8).allSatisfy { DataMask.inverts($0, row: 0, column: 0) })
    }
}
