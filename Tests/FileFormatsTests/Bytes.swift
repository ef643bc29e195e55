/// Bytes from hexadecimal digits, for expected outputs written out in full.
func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8).filter { $0 != UInt8(ascii: " ") }
    precondition(digits.count % 2 == 0, "odd number of hexadecimal digits")
    func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hexadecimal digit")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}

/// Reads a big-endian 32-bit integer at `offset`.
func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
}

/// Reads a little-endian integer of `count` bytes at `offset`.
func littleEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
    bytes[offset..<(offset + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
}

/// A repeatable sequence of bytes that does not compress (xorshift64*).
func noise(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    return (0..<count).map { _ in
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 56)
    }
}
