/// The eight data mask patterns and the penalty rules that choose one, ISO/IEC 18004:2015 §7.8.
enum DataMask {
    static let patterns = 0...7

    /// Whether mask `pattern` inverts the module at row i, column j (Table 10).
    static func inverts(_ pattern: Int, row i: Int, column j: Int) -> Bool {
        switch pattern {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        case 7: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        default: preconditionFailure("mask pattern \(pattern)")
        }
    }

    /// The four penalty scores of §7.8.3.1 (Table 11) for a square matrix of dark (true) modules, rows first:
    /// N1 3 + i for each run of 5 + i modules of one colour in a row or column; N2 3 for each 2 × 2 block of
    /// one colour (a block of m × n counts (m − 1)(n − 1) of them); N3 40 for each dark:light:dark:light:dark
    /// 1:1:3:1:1 pattern in a row or column with 4 light modules before or after it, the quiet zone outside
    /// the symbol counting as light; N4 10 for each full 5 % the dark proportion is away from 50 %.
    static func penalties(_ modules: [Bool], size: Int) -> (n1: Int, n2: Int, n3: Int, n4: Int) {
        precondition(modules.count == size * size)
        var n1 = 0
        var n3 = 0
        for line in 0..<size {
            let row = (0..<size).map { modules[line * size + $0] }
            let column = (0..<size).map { modules[$0 * size + line] }
            n1 += runPenalty(row) + runPenalty(column)
            n3 += finderLikePenalty(row) + finderLikePenalty(column)
        }
        var n2 = 0
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = modules[y * size + x]
                if modules[y * size + x + 1] == colour && modules[(y + 1) * size + x] == colour
                    && modules[(y + 1) * size + x + 1] == colour
                {
                    n2 += 3
                }
            }
        }
        let dark = modules.count { $0 }
        let total = size * size
        // |dark / total − 50 %| in whole steps of 5 %: |20·dark − 10·total| / total, rounded down.
        let n4 = 10 * (abs(20 * dark - 10 * total) / total)
        return (n1, n2, n3, n4)
    }

    static func penalty(_ modules: [Bool], size: Int) -> Int {
        let scores = penalties(modules, size: size)
        return scores.n1 + scores.n2 + scores.n3 + scores.n4
    }

    private static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var run = 0
        for (index, module) in line.enumerated() {
            run = index > 0 && line[index - 1] == module ? run + 1 : 1
            let runEnds = index == line.count - 1 || line[index + 1] != module
            if runEnds && run >= 5 { score += 3 + (run - 5) }
        }
        return score
    }

    private static let finderLike: [Bool] = [true, false, true, true, true, false, true]

    private static func finderLikePenalty(_ line: [Bool]) -> Int {
        guard line.count >= 7 else { return 0 }
        func isLight(_ range: Range<Int>) -> Bool {
            range.allSatisfy { $0 < 0 || $0 >= line.count || !line[$0] }
        }
        var score = 0
        for start in 0...line.count - 7 where line[start..<start + 7].elementsEqual(finderLike) {
            if isLight(start - 4..<start) || isLight(start + 7..<start + 11) { score += 40 }
        }
        return score
    }
}
