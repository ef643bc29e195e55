public import ByteScan

/// Strong entity tags made from a representation's bytes (RFC 9110 §8.8.3: a strong validator
/// changes whenever the bytes do): `"` + 32 hex digits + `"`, the same for the same bytes in every
/// process and release.
///
/// 128 bits of a fast non-cryptographic hash, not SHA-256: a tag only has to differ when the bytes
/// do, and a client that forged a collision could only confuse its own cache. Hashing each
/// resolve answer with SHA-256 was 23% of a resolve request's instructions under callgrind; this
/// reads 8 bytes per step.
public enum ContentTag {
    public static func of(_ bytes: [UInt8]) -> String {
        let (a, b) = bytes.withUnsafeBytes { hash($0) }
        return String(unsafeUninitializedCapacity: 34) { write(a, b, into: $0) }
    }

    /// The tag of `bytes` written to `head` (no String: the hot answers' heads are bytes).
    public static func write(tagOf bytes: [UInt8], to head: inout ByteCursor) {
        let (a, b) = bytes.withUnsafeBytes { hash($0) }
        precondition(head.remaining >= 34, "ByteCursor: more bytes than the room reserved")
        head.advance(by: write(a, b, into: head.spare))
    }

    /// `"` + the two lanes in hex + `"`: 34 bytes.
    private static func write(_ a: UInt64, _ b: UInt64, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var a = a, b = b
        let hex: StaticString = "0123456789abcdef"
        out[0] = UInt8(ascii: "\"")
        for i in 0..<16 {
            out[1 + i] = hex.utf8Start[Int(a >> 60)]
            out[17 + i] = hex.utf8Start[Int(b >> 60)]
            a <<= 4
            b <<= 4
        }
        out[33] = UInt8(ascii: "\"")
        return 34
    }

    /// Two lanes of multiply-rotate over little-endian 64-bit words, the tail zero-padded and the
    /// length mixed in last as one more word (so that padding cannot collide), each lane finished
    /// with SplitMix64's finalizer. Each step is a bijection of lane `a` for a given word, so two
    /// inputs of the same length that differ anywhere end with different `a`.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        @inline(__always) func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { x << n | x >> (64 - n) }
        @inline(__always) func finish(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15
        var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var i = 0
        func mix(_ word: UInt64) {
            a = rotl(a ^ word, 29) &* 0xBF58_476D_1CE4_E5B9
            b = rotl(b &+ word, 31) &* 0x94D0_49BB_1331_11EB ^ a
        }
        while bytes.count - i >= 8 {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        if i < bytes.count {
            var tail: UInt64 = 0
            for j in i..<bytes.count { tail |= UInt64(bytes[j]) << (8 * UInt64(j - i)) }
            mix(tail)
        }
        mix(UInt64(bytes.count))
        return (finish(a), finish(b ^ a))
    }
}
