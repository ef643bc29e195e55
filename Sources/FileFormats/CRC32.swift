/// The CRC-32 of ISO 3309 and ITU-T V.42 (reflected polynomial 0xEDB88320, initial value and final
/// XOR 0xFFFFFFFF), the check value of PNG chunks (PNG spec §5.5, Annex D) and ZIP entries
/// (APPNOTE.TXT §4.4.7). Incremental: feed bytes in any number of pieces, then read `value`.
public struct CRC32: Sendable {
    private var register: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// The checksum of everything fed so far.
    public var value: UInt32 { register ^ 0xFFFF_FFFF }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let table = CRC32.table
        var crc = register
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            for byte in buffer { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        if done == nil {
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        register = crc
    }

    /// The checksum of `bytes` alone.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The remainder of each byte value, one division step per bit (PNG spec Annex D's table).
    private static let table: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
