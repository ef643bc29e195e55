/// How a text is split into segments before encoding.
public enum Segmentation: Sendable {
    /// The segmentation with the fewest bits (see `QRSegment.optimal(_:for:)`).
    case optimal
    /// The whole text in one byte-mode segment, as most encoders write a URL.
    case byte
}

extension QRSegment {
    /// The segments that encode `bytes` in the fewest bits for a version class.
    ///
    /// Rule: a shortest path over the text's UTF-8 bytes. After each byte there are six states: inside a
    /// byte segment, inside an alphanumeric segment at an even or odd count, or inside a numeric segment at a
    /// count of 0, 1 or 2 modulo 3. Continuing a segment costs the exact bits the character adds at that
    /// phase (numeric 4, 3, 3: a group of three is 10 bits, §7.4.3; alphanumeric 6, 5: a pair is 11 bits,
    /// §7.4.4; byte 8, §7.4.5); starting one costs its mode indicator and character count indicator
    /// (Table 3) as well. Costs are exact, so the result is the minimum over every segmentation into these
    /// three modes (§7.4.7 allows mixing them; Annex J weighs the same trade-off with thresholds). Ties continue the
    /// current segment, then keep the earlier state: byte before alphanumeric before numeric.
    static func optimal(_ bytes: [UInt8], for versionClass: VersionClass) -> [QRSegment] {
        if bytes.isEmpty { return [] }
        // States: 0 byte; 1, 2 alphanumeric at phase 0, 1; 3, 4, 5 numeric at phase 0, 1, 2 (phase = count
        // modulo the group size after this character).
        let modes: [Mode] = [.byte, .alphanumeric, .alphanumeric, .numeric, .numeric, .numeric]
        let groupSize = [1, 2, 2, 3, 3, 3]
        let firstState = [0, 1, 1, 3, 3, 3]
        // Bits added by a character that brings a segment to state s (its new phase).
        let characterBits = [8, 5, 6, 3, 4, 3]
        let unreachable = Int.max / 2
        var cost = [Int](repeating: unreachable, count: 6)
        // previous[i][s]: the state before byte i when byte i ends in state s (−1: a segment starts here).
        var previous = [[Int8]](repeating: [Int8](repeating: -1, count: 6), count: bytes.count)
        for (index, byte) in bytes.enumerated() {
            let cheapest = index == 0 ? 0 : cost.min()!
            let cheapestState = index == 0 ? -1 : cost.firstIndex(of: cheapest)!
            var next = [Int](repeating: unreachable, count: 6)
            for state in 0..<6 where modes[state].holds(byte) {
                let phaseStart = firstState[state]
                let phase = state - phaseStart
                // The state this one continues from: the phase before.
                let continued = phaseStart + (phase + groupSize[state] - 1) % groupSize[state]
                // A new segment puts its first character at phase 1 (or 0 for byte mode).
                let startsHere = groupSize[state] == 1 || phase == 1
                if startsHere {
                    let header = 4 + modes[state].countBits(versionClass)
                    next[state] = cheapest + header + characterBits[state]
                    previous[index][state] = Int8(cheapestState == -1 ? -1 : 6 + cheapestState)
                }
                if index > 0 && cost[continued] < unreachable {
                    let viaContinue = cost[continued] + characterBits[state]
                    if viaContinue <= next[state] {  // a tie continues: one segment fewer
                        next[state] = viaContinue
                        previous[index][state] = Int8(continued)
                    }
                }
            }
            cost = next
        }
        // Walk back: a value ≥ 6 (or −1) marks a segment's first byte, pointing at the state before it.
        var segments: [QRSegment] = []
        var state = cost.firstIndex(of: cost.min()!)!
        var end = bytes.count
        var index = bytes.count - 1
        while index >= 0 {
            let back = Int(previous[index][state])
            if back == -1 || back >= 6 {
                segments.append(QRSegment(mode: modes[state], bytes: bytes[index..<end]))
                end = index
                if back == -1 { break }
                state = back - 6
            } else {
                state = back
            }
            index -= 1
        }
        return segments.reversed()
    }
}
