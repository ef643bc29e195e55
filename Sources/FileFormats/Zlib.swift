/// The zlib format (RFC 1950): a two-byte header, a DEFLATE stream, the Adler-32 of the
/// uncompressed bytes, big-endian.
public enum Zlib {
    public static func compress(_ input: [UInt8]) -> [UInt8] {
        // CMF 0x78: method 8 (deflate) with a 32 KiB window (CINFO 7). FLG 0x9C: FLEVEL 2 (the
        // default algorithm), no preset dictionary, FCHECK so that CMF·256 + FLG is a multiple of 31 (§2.2).
        var writer = BitWriter(reservingCapacity: input.count / 2 + 64)
        writer.write(0x78, count: 8)
        writer.write(0x9C, count: 8)
        Deflate.compress(input, into: &writer)
        writer.alignToByte()
        let adler = Adler32.checksum(input)
        var out = writer.bytes
        out.append(contentsOf: [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
        return out
    }
}
