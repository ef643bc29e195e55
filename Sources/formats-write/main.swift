// Writes the FileFormats outputs from standard input and arguments to standard output, so
// scripts/formats-check can read them back with independent implementations.
//   formats-write zlib | deflate | crc32 | adler32          < bytes
import FileFormats
import Glibc

func fail(_ message: String, code: Int32 = 1) -> Never {
    let line = Array("formats-write: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

func readStandardInput() -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { fail("cannot read standard input (errno \(errno))") }
        if count == 0 { return bytes }
        bytes.append(contentsOf: buffer[0..<count])
    }
}

func writeStandardOutput(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { fail("cannot write standard output (errno \(errno))") }
        offset += count
    }
}

func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}

var arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.popFirst() else { fail("usage: formats-write COMMAND [ARGUMENTS]", code: 64) }
switch command {
case "zlib": writeStandardOutput(Zlib.compress(readStandardInput()))
case "deflate": writeStandardOutput(Deflate.compress(readStandardInput()))
case "crc32": print(hex32(CRC32.checksum(readStandardInput())))
case "adler32": print(hex32(Adler32.checksum(readStandardInput())))
default: fail("unknown command \(command)", code: 64)
}
