/// Bits packed into bytes starting at each byte's least significant bit, the order of every
/// DEFLATE element but Huffman codes, which are written most significant bit first and so
/// reversed before they come here (RFC 1951 §3.1.1).
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Bits written so far.
    var bitCount: Int { bytes.count * 8 + pendingCount }

    /// The low `count` bits of `value` (at most 32; the rest must be zero).
    mutating func write(_ value: UInt32, count: Int) {
        pending |= UInt64(value) << UInt64(pendingCount)
        pendingCount += count
        while pendingCount >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            pendingCount -= 8
        }
    }

    /// Zero bits up to the next byte boundary.
    mutating func alignToByte() {
        if pendingCount > 0 { write(0, count: 8 - pendingCount) }
    }

    /// Whole bytes, after `alignToByte()`.
    mutating func append(_ more: ArraySlice<UInt8>) {
        precondition(pendingCount == 0, "bytes appended between bit boundaries")
        bytes.append(contentsOf: more)
    }
}
