/// A canonical Huffman code (RFC 1951 §3.2.2): the code of each symbol follows from the code
/// lengths alone, shorter codes first and, within a length, in symbol order. `reversedCodes` holds
/// each code with its bits reversed, ready for `BitWriter`.
struct HuffmanCode {
    let lengths: [UInt8]
    let reversedCodes: [UInt32]

    init(lengths: [UInt8]) {
        self.lengths = lengths
        let maxLength = Int(lengths.max() ?? 0)
        var lengthCount = [Int](repeating: 0, count: maxLength + 1)
        for length in lengths where length > 0 { lengthCount[Int(length)] += 1 }
        var nextCode = [Int](repeating: 0, count: maxLength + 2)
        var code = 0
        if maxLength >= 1 {
            for bits in 1...maxLength {
                code = (code + lengthCount[bits - 1]) << 1
                nextCode[bits] = code
            }
        }
        var reversed = [UInt32](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let bits = Int(length)
            var value = nextCode[bits]
            nextCode[bits] += 1
            var out: UInt32 = 0
            for _ in 0..<bits {
                out = out << 1 | UInt32(value & 1)
                value >>= 1
            }
            reversed[symbol] = out
        }
        reversedCodes = reversed
    }

    /// Code lengths of at most `limit` bits for symbols with these frequencies: a Huffman tree
    /// (two queues over the leaves sorted by frequency, ties by symbol, so the result is
    /// deterministic). When the tree is deeper than `limit`, the frequencies are halved (each
    /// used symbol keeps at least 1) and the tree built again; with equal frequencies the depth is
    /// ⌈log2 n⌉, so this ends. Fewer than two used symbols get a second one, so that every code
    /// is complete (a lone one-bit code is accepted by some decoders only).
    static func lengths(frequencies: [Int], limit: Int) -> [UInt8] {
        var weights = frequencies
        var used = weights.count { $0 > 0 }
        var symbol = 0
        while used < 2 && symbol < weights.count {
            if weights[symbol] == 0 {
                weights[symbol] = 1
                used += 1
            }
            symbol += 1
        }
        while true {
            let lengths = treeDepths(weights)
            if Int(lengths.max() ?? 0) <= limit { return lengths }
            weights = weights.map { $0 == 0 ? 0 : ($0 + 1) / 2 }
        }
    }

    private static func treeDepths(_ weights: [Int]) -> [UInt8] {
        let leaves = weights.indices.filter { weights[$0] > 0 }.sorted { (weights[$0], $0) < (weights[$1], $1) }
        var lengths = [UInt8](repeating: 0, count: weights.count)
        let leafCount = leaves.count
        if leafCount == 1 { lengths[leaves[0]] = 1 }
        guard leafCount >= 2 else { return lengths }
        // Nodes 0..<leafCount are the sorted leaves, then the merged nodes in the order made
        // (their weights never decrease, so the merged nodes form the second sorted queue).
        var weight = leaves.map { weights[$0] } + [Int](repeating: 0, count: leafCount - 1)
        var parent = [Int](repeating: 0, count: 2 * leafCount - 1)
        var nextLeaf = 0
        var nextMerged = leafCount
        for made in leafCount..<(2 * leafCount - 1) {
            var pair = [0, 0]
            for slot in 0..<2 {
                if nextLeaf < leafCount && (nextMerged >= made || weight[nextLeaf] <= weight[nextMerged]) {
                    pair[slot] = nextLeaf
                    nextLeaf += 1
                } else {
                    pair[slot] = nextMerged
                    nextMerged += 1
                }
            }
            weight[made] = weight[pair[0]] + weight[pair[1]]
            parent[pair[0]] = made
            parent[pair[1]] = made
        }
        var depth = [Int](repeating: 0, count: 2 * leafCount - 1)
        for node in stride(from: 2 * leafCount - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        for (index, leaf) in leaves.enumerated() { lengths[leaf] = UInt8(min(depth[index], 255)) }
        return lengths
    }
}
