/// A DEFLATE compressor (RFC 1951). LZ77 over a 32 KiB window with hash chains and lazy matching
/// (one position of lookahead, as §4 suggests), then each block written whichever way is
/// smallest: stored (§3.2.4), fixed Huffman codes (§3.2.6) or dynamic Huffman codes (§3.2.7).
/// The output depends only on the input: no clock, no randomness, no options.
public enum Deflate {
    /// The raw DEFLATE stream of `input` (no zlib or gzip wrapper).
    public static func compress(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter(reservingCapacity: input.count / 2 + 64)
        compress(input, into: &writer)
        writer.alignToByte()
        return writer.bytes
    }

    static func compress(_ input: [UInt8], into writer: inout BitWriter) {
        input.withUnsafeBufferPointer { bytes in
            var blocks = BlockWriter(input: bytes)
            var matcher = MatchFinder(input: bytes)
            matcher.run { token, end in
                blocks.tokens.append(token)
                if blocks.tokens.count >= BlockWriter.maxTokens { blocks.flush(through: end, final: false, into: &writer) }
            }
            blocks.flush(through: bytes.count, final: true, into: &writer)
        }
    }
}

/// One LZ77 item: a literal byte, or a match of `length` (3…258) bytes `distance` (1…32768) back.
/// A match has the top bit set, its length in bits 16…30 and its distance in the low 16 bits.
struct LZ77Token {
    let packed: UInt32

    static func literal(_ byte: UInt8) -> LZ77Token { LZ77Token(packed: UInt32(byte)) }
    static func match(length: Int, distance: Int) -> LZ77Token {
        LZ77Token(packed: 0x8000_0000 | UInt32(length) << 16 | UInt32(distance))
    }

    var isMatch: Bool { packed & 0x8000_0000 != 0 }
    var literal: Int { Int(packed & 0xFF) }
    var length: Int { Int((packed >> 16) & 0x7FFF) }
    var distance: Int { Int(packed & 0xFFFF) }
}

/// Finds the LZ77 items of an input: chains of earlier positions with the same hash of three
/// bytes, the longest match within 32 KiB (RFC 1951 §3.2.5's window), and a match deferred by one
/// position when the next position has a longer one.
private struct MatchFinder {
    static let window = 32768
    static let minMatch = 3
    static let maxMatch = 258
    static let hashBits = 15
    /// Candidates tried per position, and the match length that stops the search and the lazy step.
    static let maxChain = 128
    static let goodEnough = 128
    /// A 3-byte match this far back costs more bits than three literals with the fixed code.
    static let farForMinMatch = 4096

    let input: UnsafeBufferPointer<UInt8>
    var head: [Int32]
    var previous: [Int32]

    init(input: UnsafeBufferPointer<UInt8>) {
        self.input = input
        head = [Int32](repeating: -1, count: 1 << MatchFinder.hashBits)
        previous = [Int32](repeating: -1, count: MatchFinder.window)
    }

    private func hash(at position: Int) -> Int {
        let value = Int(input[position]) << 10 ^ Int(input[position + 1]) << 5 ^ Int(input[position + 2])
        return value & ((1 << MatchFinder.hashBits) - 1)
    }

    private mutating func insert(_ position: Int) {
        guard position + MatchFinder.minMatch <= input.count else { return }
        let key = hash(at: position)
        previous[position & (MatchFinder.window - 1)] = head[key]
        head[key] = Int32(position)
    }

    /// The longest earlier match at `position` (before `position` is inserted), or length 0.
    private func longestMatch(at position: Int) -> (length: Int, distance: Int) {
        let limit = min(MatchFinder.maxMatch, input.count - position)
        guard limit >= MatchFinder.minMatch else { return (0, 0) }
        var bestLength = MatchFinder.minMatch - 1
        var bestDistance = 0
        var candidate = Int(head[hash(at: position)])
        var chain = MatchFinder.maxChain
        while candidate >= 0 && position - candidate <= MatchFinder.window && chain > 0 {
            if input[candidate + bestLength] == input[position + bestLength] {
                var length = 0
                while length < limit && input[candidate + length] == input[position + length] { length += 1 }
                if length > bestLength {
                    bestLength = length
                    bestDistance = position - candidate
                    if length >= limit { break }
                }
            }
            candidate = Int(previous[candidate & (MatchFinder.window - 1)])
            chain -= 1
        }
        if bestLength < MatchFinder.minMatch || (bestLength == MatchFinder.minMatch && bestDistance > MatchFinder.farForMinMatch) {
            return (0, 0)
        }
        return (bestLength, bestDistance)
    }

    /// Calls `emit` with each item in order and the input position the items so far cover.
    mutating func run(_ emit: (LZ77Token, Int) -> Void) {
        var position = 0
        // A match found at position − 1, not yet emitted, waiting to see whether position has a longer one.
        var deferred: (length: Int, distance: Int)? = nil
        while position < input.count {
            let current =
                if let deferred, deferred.length >= MatchFinder.goodEnough { (length: 0, distance: 0) } else {
                    longestMatch(at: position)
                }
            insert(position)
            if let waiting = deferred {
                if waiting.length >= MatchFinder.minMatch && current.length <= waiting.length {
                    let start = position - 1
                    emit(.match(length: waiting.length, distance: waiting.distance), start + waiting.length)
                    for skipped in (position + 1)..<(start + waiting.length) { insert(skipped) }
                    position = start + waiting.length
                    deferred = nil
                    continue
                }
                emit(.literal(input[position - 1]), position)
            }
            deferred = current
            position += 1
        }
        if deferred != nil { emit(.literal(input[position - 1]), position) }
    }
}

/// Collects a block's items and writes the block in the smallest of the three forms.
private struct BlockWriter {
    /// Items per block: small enough that a block's codes follow changes in the data, large enough
    /// that a dynamic block's header (about 60 bytes) is paid rarely.
    static let maxTokens = 16384
    /// A stored block holds at most 65,535 bytes (its LEN field is 16 bits).
    static let maxStored = 65535

    let input: UnsafeBufferPointer<UInt8>
    var tokens: [LZ77Token] = []
    var blockStart = 0

    init(input: UnsafeBufferPointer<UInt8>) {
        self.input = input
        tokens.reserveCapacity(BlockWriter.maxTokens)
    }

    mutating func flush(through end: Int, final: Bool, into writer: inout BitWriter) {
        var literalCounts = [Int](repeating: 0, count: 286)
        var distanceCounts = [Int](repeating: 0, count: 30)
        literalCounts[256] = 1
        var extraBits = 0
        for token in tokens {
            if token.isMatch {
                let lengthSymbol = Int(DeflateTables.lengthSymbol[token.length])
                let distanceSymbol = Int(DeflateTables.distanceSymbol[token.distance])
                literalCounts[lengthSymbol] += 1
                distanceCounts[distanceSymbol] += 1
                extraBits += DeflateTables.lengthExtraBits[lengthSymbol - 257] + DeflateTables.distanceExtraBits[distanceSymbol]
            } else {
                literalCounts[token.literal] += 1
            }
        }
        let fixedBits =
            3 + extraBits + cost(literalCounts, DeflateTables.fixedLiteralLengths)
            + cost(distanceCounts, DeflateTables.fixedDistanceLengths)
        let dynamic = DynamicHeader(literalCounts: literalCounts, distanceCounts: distanceCounts)
        let dynamicBits =
            3 + dynamic.bitCount + extraBits + cost(literalCounts, dynamic.literal.lengths)
            + cost(distanceCounts, dynamic.distance.lengths)
        let storedBits = storedCost(byteCount: end - blockStart, startingAt: writer.bitCount)

        if storedBits <= min(fixedBits, dynamicBits) {
            writeStored(input[blockStart..<end], final: final, into: &writer)
        } else if fixedBits <= dynamicBits {
            writer.write(final ? 1 : 0, count: 1)
            writer.write(1, count: 2)
            writeTokens(literal: DeflateTables.fixedLiteralCode, distance: DeflateTables.fixedDistanceCode, into: &writer)
        } else {
            writer.write(final ? 1 : 0, count: 1)
            writer.write(2, count: 2)
            dynamic.write(into: &writer)
            writeTokens(literal: dynamic.literal, distance: dynamic.distance, into: &writer)
        }
        tokens.removeAll(keepingCapacity: true)
        blockStart = end
    }

    private func cost(_ counts: [Int], _ lengths: [UInt8]) -> Int {
        var bits = 0
        for (symbol, count) in counts.enumerated() where count > 0 { bits += count * Int(lengths[symbol]) }
        return bits
    }

    /// Stored blocks: 3 header bits, padding to a byte, LEN and NLEN, then the bytes (§3.2.4).
    private func storedCost(byteCount: Int, startingAt bit: Int) -> Int {
        let blocks = max(1, (byteCount + BlockWriter.maxStored - 1) / BlockWriter.maxStored)
        let firstPadding = (8 - (bit + 3) % 8) % 8
        return 3 + firstPadding + 32 + (blocks - 1) * (8 + 32) + byteCount * 8
    }

    private func writeStored(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, final: Bool, into writer: inout BitWriter) {
        var start = bytes.startIndex
        repeat {
            let end = min(bytes.endIndex, start + BlockWriter.maxStored)
            writer.write(final && end == bytes.endIndex ? 1 : 0, count: 1)
            writer.write(0, count: 2)
            writer.alignToByte()
            let length = UInt32(end - start)
            writer.write(length, count: 16)
            writer.write(~length & 0xFFFF, count: 16)
            writer.append(ArraySlice(bytes[start..<end]))
            start = end
        } while start < bytes.endIndex
    }

    private func writeTokens(literal: HuffmanCode, distance: HuffmanCode, into writer: inout BitWriter) {
        for token in tokens {
            if token.isMatch {
                let length = token.length
                let lengthSymbol = Int(DeflateTables.lengthSymbol[length])
                writer.write(literal.reversedCodes[lengthSymbol], count: Int(literal.lengths[lengthSymbol]))
                let lengthIndex = lengthSymbol - 257
                writer.write(UInt32(length - DeflateTables.lengthBase[lengthIndex]), count: DeflateTables.lengthExtraBits[lengthIndex])
                let value = token.distance
                let distanceSymbol = Int(DeflateTables.distanceSymbol[value])
                writer.write(distance.reversedCodes[distanceSymbol], count: Int(distance.lengths[distanceSymbol]))
                writer.write(
                    UInt32(value - DeflateTables.distanceBase[distanceSymbol]), count: DeflateTables.distanceExtraBits[distanceSymbol])
            } else {
                writer.write(literal.reversedCodes[token.literal], count: Int(literal.lengths[token.literal]))
            }
        }
        writer.write(literal.reversedCodes[256], count: Int(literal.lengths[256]))
    }
}

/// A dynamic block's codes and the header that describes them (RFC 1951 §3.2.7): the literal/length
/// and distance code lengths as one sequence, run-length coded with symbols 16 (repeat the previous
/// length 3…6 times), 17 (3…10 zeros) and 18 (11…138 zeros), themselves Huffman coded with lengths of
/// at most 7 bits sent 3 bits each.
private struct DynamicHeader {
    let literal: HuffmanCode
    let distance: HuffmanCode
    let literalCount: Int
    let distanceCount: Int
    let codeLengthCode: HuffmanCode
    let codeLengthCount: Int
    /// Run-length symbols with their extra bits' value.
    let runs: [(symbol: Int, extra: Int)]
    let bitCount: Int

    init(literalCounts: [Int], distanceCounts: [Int]) {
        literal = HuffmanCode(lengths: HuffmanCode.lengths(frequencies: literalCounts, limit: 15))
        distance = HuffmanCode(lengths: HuffmanCode.lengths(frequencies: distanceCounts, limit: 15))
        literalCount = max(257, (literal.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        distanceCount = max(1, (distance.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        let sequence = Array(literal.lengths[0..<literalCount]) + Array(distance.lengths[0..<distanceCount])
        var runs: [(symbol: Int, extra: Int)] = []
        var index = 0
        while index < sequence.count {
            let value = sequence[index]
            var run = 1
            while index + run < sequence.count && sequence[index + run] == value { run += 1 }
            index += run
            if value == 0 {
                while run >= 11 {
                    let take = min(run, 138)
                    runs.append((18, take - 11))
                    run -= take
                }
                if run >= 3 {
                    runs.append((17, run - 3))
                    run = 0
                }
            } else {
                runs.append((Int(value), 0))
                run -= 1
                while run >= 3 {
                    let take = min(run, 6)
                    runs.append((16, take - 3))
                    run -= take
                }
            }
            for _ in 0..<run { runs.append((Int(value), 0)) }
        }
        self.runs = runs
        var runCounts = [Int](repeating: 0, count: 19)
        for run in runs { runCounts[run.symbol] += 1 }
        let codeLengthCode = HuffmanCode(lengths: HuffmanCode.lengths(frequencies: runCounts, limit: 7))
        self.codeLengthCode = codeLengthCode
        let lastUsed = DeflateTables.codeLengthOrder.lastIndex { codeLengthCode.lengths[$0] > 0 } ?? 0
        codeLengthCount = max(4, lastUsed + 1)
        var bits = 5 + 5 + 4 + 3 * codeLengthCount
        for run in runs { bits += Int(codeLengthCode.lengths[run.symbol]) + DynamicHeader.extraBits(of: run.symbol) }
        bitCount = bits
    }

    private static func extraBits(of symbol: Int) -> Int {
        switch symbol {
        case 16: 2
        case 17: 3
        case 18: 7
        default: 0
        }
    }

    func write(into writer: inout BitWriter) {
        writer.write(UInt32(literalCount - 257), count: 5)
        writer.write(UInt32(distanceCount - 1), count: 5)
        writer.write(UInt32(codeLengthCount - 4), count: 4)
        for symbol in DeflateTables.codeLengthOrder.prefix(codeLengthCount) {
            writer.write(UInt32(codeLengthCode.lengths[symbol]), count: 3)
        }
        for run in runs {
            writer.write(codeLengthCode.reversedCodes[run.symbol], count: Int(codeLengthCode.lengths[run.symbol]))
            writer.write(UInt32(run.extra), count: DynamicHeader.extraBits(of: run.symbol))
        }
    }
}
