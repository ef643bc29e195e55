/// A class of bytes (below a bound, above a bound, or one of up to four values) found in a buffer
/// eight bytes at a time: SWAR, "SIMD within a register". The hot paths' byte scans (a request
/// head's line ends, a JSON string's bytes to escape, a query's escapes) spend most of their time
/// on runs of ordinary bytes; a byte-at-a-time loop costs several instructions per byte there, this
/// about one.
///
/// Per 64-bit word, byte k in bits 8k..8k+7 (loaded little-endian):
/// - some byte < n (n ≤ 128): `(w - 0x01…01 * n) & ~w & 0x80…80`;
/// - some byte > n (n ≤ 127): `((w + 0x01…01 * (127 - n)) | w) & 0x80…80`;
/// - some byte == c: the first test with n = 1 on `w ^ 0x01…01 * c`.
/// (Hacker's Delight, 2nd ed., §6-1, "Find First 0-Byte"; Anderson, "Bit Twiddling Hacks",
/// "Determine if a word has a byte less than n" / "greater than n".) A borrow or carry moves only
/// upwards, from a byte that is itself in the class, so a flag above a true one may be false but
/// the lowest flag is always true: its position is the first byte of the class.
///
/// Everything is `@inline(__always)`: made where it is used, from literals, a class folds into a
/// handful of constants and the tests that do not apply disappear.
public struct ByteClass: Sendable {
    @usableFromInline let below: UInt8
    @usableFromInline let above: UInt8
    @usableFromInline let exact: (UInt8, UInt8, UInt8, UInt8)
    @usableFromInline let hasExact: Bool

    @usableFromInline static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @usableFromInline static var highs: UInt64 { 0x8080_8080_8080_8080 }

    /// Bytes < `below` (at most 128; 0: none), bytes > `above` (at most 127; 255: none), and the
    /// bytes given after them (at most four).
    @inlinable @inline(__always)
    public init(below: UInt8 = 0, above: UInt8 = 0xFF, _ e0: UInt8? = nil, _ e1: UInt8? = nil, _ e2: UInt8? = nil, _ e3: UInt8? = nil) {
        precondition(below <= 128 && (above <= 127 || above == 0xFF))
        self.below = below
        self.above = above
        // Unused places repeat the first value: four tests whatever the count, no loop.
        let first = e0 ?? 0
        exact = (first, e1 ?? first, e2 ?? first, e3 ?? first)
        hasExact = e0 != nil
    }

    @inlinable @inline(__always)
    public func contains(_ b: UInt8) -> Bool {
        if b < below || (above != 0xFF && b > above) { return true }
        return hasExact && (b == exact.0 || b == exact.1 || b == exact.2 || b == exact.3)
    }

    /// The flags of a word's bytes in the class: the high bit of each byte, the lowest one exact.
    @inlinable @inline(__always)
    func flags(_ w: UInt64) -> UInt64 {
        var m: UInt64 = 0
        if below > 0 { m |= (w &- Self.ones &* UInt64(below)) & ~w }
        if above != 0xFF { m |= (w &+ Self.ones &* UInt64(127 - above)) | w }
        if hasExact {
            m |= Self.zeroFlags(w ^ Self.ones &* UInt64(exact.0)) | Self.zeroFlags(w ^ Self.ones &* UInt64(exact.1))
            m |= Self.zeroFlags(w ^ Self.ones &* UInt64(exact.2)) | Self.zeroFlags(w ^ Self.ones &* UInt64(exact.3))
        }
        return m & Self.highs
    }

    @inlinable @inline(__always)
    static func zeroFlags(_ x: UInt64) -> UInt64 { (x &- ones) & ~x }

    /// The index of the first byte at or after `start` in the class, or `bytes.count`.
    @inlinable @inline(__always)
    public func firstIndex(in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress, start < count else { return count }
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 8 <= count {
            let m = flags(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            if m != 0 { return i + m.trailingZeroBitCount >> 3 }
            i += 8
        }
        guard i < count else { return count }
        guard count >= 8 else {
            while i < count, !contains(bytes[i]) { i += 1 }
            return i
        }
        // The last 1–7 bytes: the buffer's last word, shifted so that they come first (the bytes
        // before them gone, with any borrow or carry they would make), and the zeros shifted in
        // above them masked off.
        let last = count - 8, rest = count - i
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: last, as: UInt64.self)) >> UInt64((8 - rest) * 8)
        let m = flags(word) & ((1 << UInt64(rest * 8)) - 1)
        return m != 0 ? i + m.trailingZeroBitCount >> 3 : count
    }
}
