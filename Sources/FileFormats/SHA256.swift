/// SHA-256 (FIPS 180-4 §6.2): the project's one SHA-256 (header images, API token secrets, AASA ETags, file names,
/// CSP hashes, key fingerprints). Pure, so that the pure modules hash without libcrypto.
/// The generic entry points are `@inlinable`: called from other modules they are specialized there.
public struct SHA256: Sendable {
    // FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    // FIPS 180-4 §5.3.3: initial hash value.
    // Fixed-size state, no arrays: hashing allocates nothing (the ETag of every resolve answer is one of
    // these; callgrind showed the array-based version at 63% of a resolve request's instructions).
    private var h = SIMD8<UInt32>(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// The bytes of an incomplete block, `pendingCount` of them.
    private var pending = SIMD64<UInt8>()
    private var pendingCount = 0
    private var length: UInt64 = 0

    public init() {}

    @inlinable public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in update(UnsafeRawBufferPointer(buffer)) }
        guard contiguous == nil else { return }
        for byte in bytes { append(byte) }
    }

    /// Whole blocks straight from `bytes`; the rest waits in `pending`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var i = 0
        while pendingCount > 0 && i < bytes.count {
            append(bytes[i])
            i += 1
        }
        while bytes.count - i >= 64 {
            compress(bytes.baseAddress! + i)
            length &+= 64
            i += 64
        }
        while i < bytes.count {
            append(bytes[i])
            i += 1
        }
    }

    @usableFromInline mutating func append(_ byte: UInt8) {
        pending[pendingCount] = byte
        pendingCount += 1
        length &+= 1
        if pendingCount == 64 { compressPending() }
    }

    private mutating func compressPending() {
        var block = pending
        withUnsafeBytes(of: &block) { compress($0.baseAddress!) }
        pendingCount = 0
    }

    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBytes { finalize(into: $0) }
        return digest
    }

    /// Writes the 32-byte digest to `out` (at least 32 bytes).
    public mutating func finalize(into out: UnsafeMutableRawBufferPointer) {
        // FIPS 180-4 §5.1.1: append 1 bit, zeros to 448 mod 512 bits, then the 64-bit length.
        let bitLength = length &* 8
        pending[pendingCount] = 0x80
        pendingCount += 1
        if pendingCount > 56 {
            for i in pendingCount..<64 { pending[i] = 0 }
            compressPending()
        }
        for i in pendingCount..<56 { pending[i] = 0 }
        for i in 0..<8 { pending[56 + i] = UInt8(truncatingIfNeeded: bitLength >> UInt64(56 - 8 * i)) }
        compressPending()
        for i in 0..<8 { out.storeBytes(of: h[i].bigEndian, toByteOffset: 4 * i, as: UInt32.self) }
    }

    /// One 64-byte block at `block` (FIPS 180-4 §6.2.2).
    private mutating func compress(_ block: UnsafeRawPointer) {
        @inline(__always) func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 { w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            Self.k.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[t] &+ w[t]
                    let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            h &+= SIMD8(a, b, c, d, e, f, g, hh)
        }
    }

    @inlinable public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    @inlinable public static func hexDigest<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 4) { digest in
            hasher.finalize(into: digest)
            let hex: StaticString = "0123456789abcdef"
            return String(unsafeUninitializedCapacity: 64) { out in
                for (i, byte) in digest.enumerated() {
                    out[2 * i] = hex.utf8Start[Int(byte >> 4)]
                    out[2 * i + 1] = hex.utf8Start[Int(byte & 0xF)]
                }
                return 64
            }
        }
    }
}
