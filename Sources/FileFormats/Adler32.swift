/// Adler-32 (RFC 1950 §8.2): two sums modulo 65521, the largest prime below 2^16; the trailer of a
/// zlib stream. Incremental: feed bytes in any number of pieces, then read `value`.
public struct Adler32: Sendable {
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    public init() {}

    /// The checksum of everything fed so far: `b` in the high 16 bits, `a` in the low 16.
    public var value: UInt32 { b << 16 | a }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        // 5552 is the most bytes whose sums cannot overflow 32 bits before the modulo
        // (255·n(n+1)/2 + (n+1)(65521−1) ≤ 2^32−1), so the division runs once per run.
        var a = self.a
        var b = self.b
        var pending = 0
        for byte in bytes {
            a &+= UInt32(byte)
            b &+= a
            pending += 1
            if pending == 5552 {
                a %= 65521
                b %= 65521
                pending = 0
            }
        }
        self.a = a % 65521
        self.b = b % 65521
    }

    /// The checksum of `bytes` alone.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }
}
