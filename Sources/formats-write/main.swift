// Writes the FileFormats outputs from standard input and arguments to standard output, so
// scripts/formats-check can read them back with independent implementations.
//   formats-write zlib | deflate | crc32 | adler32          < bytes
//   formats-write png-bilevel WIDTH HEIGHT SCALE BORDER [--ppi N] [--text KEYWORD TEXT]…   < one byte a module, 0 light
//   formats-write png-gray WIDTH HEIGHT [--ppi N] [--text KEYWORD TEXT]…   < one byte a pixel
//   formats-write zip YEAR MONTH DAY HOUR MINUTE SECOND stored|deflated [NAME PATH]…
//   formats-write ndef URI      prints "message HEX", "tlv HEX" (or "tlv refused") and "tag NAME" (or "tag none")
// A refused input exits 65 with the library's message on standard error.
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

func number(_ text: String?) -> Int {
    guard let text, let value = Int(text) else { fail("expected a number, got \(text ?? "nothing")", code: 64) }
    return value
}

func metadata(_ options: ArraySlice<String>) -> PNGMetadata {
    var options = options
    var metadata = PNGMetadata()
    while let option = options.popFirst() {
        switch option {
        case "--ppi": metadata.pixelsPerInch = number(options.popFirst())
        case "--text":
            guard let keyword = options.popFirst(), let text = options.popFirst() else {
                fail("--text takes a keyword and a text", code: 64)
            }
            metadata.text.append(PNGText(keyword: keyword, text: text))
        default: fail("unknown option \(option)", code: 64)
        }
    }
    return metadata
}

func readFile(_ path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { fail("cannot open \(path) (errno \(errno))") }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { fail("cannot read \(path) (errno \(errno))") }
        if count == 0 { return bytes }
        bytes.append(contentsOf: buffer[0..<count])
    }
}

func refusing<T>(_ body: () throws -> T) -> T {
    do { return try body() } catch { fail("\(error)", code: 65) }
}

var arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.popFirst() else { fail("usage: formats-write COMMAND [ARGUMENTS]", code: 64) }
switch command {
case "zlib": writeStandardOutput(Zlib.compress(readStandardInput()))
case "deflate": writeStandardOutput(Deflate.compress(readStandardInput()))
case "crc32": print(hex32(CRC32.checksum(readStandardInput())))
case "adler32": print(hex32(Adler32.checksum(readStandardInput())))
case "png-bilevel":
    let width = number(arguments.popFirst())
    let height = number(arguments.popFirst())
    let scale = number(arguments.popFirst())
    let border = number(arguments.popFirst())
    let dark = readStandardInput().map { $0 != 0 }
    let options = metadata(arguments)
    writeStandardOutput(
        refusing { try PNGEncoder.bilevel(width: width, height: height, dark: dark, scale: scale, border: border, metadata: options) })
case "png-gray":
    let width = number(arguments.popFirst())
    let height = number(arguments.popFirst())
    let pixels = readStandardInput()
    let options = metadata(arguments)
    writeStandardOutput(refusing { try PNGEncoder.grayscale(width: width, height: height, pixels: pixels, metadata: options) })
case "zip":
    let parts = (0..<6).map { _ in number(arguments.popFirst()) }
    let timestamp = refusing {
        try DOSTimestamp(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
    }
    let compression: ZIPWriter.Compression =
        switch arguments.popFirst() {
        case "stored": .stored
        case "deflated": .deflated
        default: fail("zip takes stored or deflated after the timestamp", code: 64)
        }
    var writer = ZIPWriter(timestamp: timestamp)
    while let name = arguments.popFirst() {
        guard let path = arguments.popFirst() else { fail("\(name) has no file", code: 64) }
        let contents = readFile(path)
        refusing { try writer.append(name: name, contents: contents, compression: compression, to: writeStandardOutput) }
    }
    refusing { try writer.finish(to: writeStandardOutput) }
case "ndef":
    guard let uri = arguments.popFirst() else { fail("ndef takes a URI", code: 64) }
    let message = refusing { try NDEFMessage.uri(uri) }
    print("message \(message.hex())")
    if let tlv = try? message.type2TLV() {
        print("tlv \(Hexadecimal.string(tlv))")
    } else {
        print("tlv refused")
    }
    print("tag \(message.smallestTag?.rawValue ?? "none")")
default: fail("unknown command \(command)", code: 64)
}
