@testable import FileFormats
import Testing

/// Python's zipfile and Info-ZIP's unzip read these archives in scripts/formats-check; here, the
/// exact bytes of small archives, the records' fields, and every refusal.
struct ZIPWriterTests {
    let timestamp = try! DOSTimestamp(year: 2026, month: 11, day: 23, hour: 14, minute: 30, second: 58)

    /// "a.txt" holding "hello\n", stored: local header, data, central directory, end record.
    /// Python's zipfile read it back (testzip() None, the bytes, 2026-11-23 14:30:58).
    @Test func goldenArchive() throws {
        let archive = try ZIPWriter.archive([(name: "a.txt", contents: Array("hello\n".utf8))], timestamp: timestamp)
        let expected = bytes(
            hex: "504b03040a0000080000dd73775d20303a36060000000600000005000000612e74787468656c6c6f0a"
                + "504b01023f030a0000080000dd73775d20303a360600000006000000050000000000000000000000a48100000000612e747874"
                + "504b0506000000000100010033000000290000000000")
        #expect(archive == expected)
    }

    /// An archive without entries is its end record alone (APPNOTE §4.3.16), as Python writes one.
    @Test func emptyArchive() throws {
        #expect(try ZIPWriter.archive([], timestamp: timestamp) == [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18))
    }

    /// §4.4.6: date bits 9–15 years since 1980, 5–8 month, 0–4 day; time bits 11–15 hour, 5–10
    /// minute, 0–4 seconds halved (58 s is 29; 59 s rounds down to it).
    @Test func dosTimestamp() throws {
        #expect(timestamp.date == (46 << 9 | 11 << 5 | 23))
        #expect(timestamp.time == (14 << 11 | 30 << 5 | 29))
        #expect(try DOSTimestamp(year: 2026, month: 11, day: 23, hour: 14, minute: 30, second: 59) == timestamp)
        #expect(try DOSTimestamp(year: 1980, month: 1, day: 1).date == 0x21)
        #expect(try DOSTimestamp(year: 2107, month: 12, day: 31, hour: 23, minute: 59, second: 59).time == 0xBF7D)
        #expect(try DOSTimestamp(year: 2024, month: 2, day: 29).date == (44 << 9 | 2 << 5 | 29))
        #expect(try DOSTimestamp(year: 2000, month: 2, day: 29).date == (20 << 9 | 2 << 5 | 29))
    }

    @Test(arguments: [
        (1979, 12, 31, 0, 0, 0), (2108, 1, 1, 0, 0, 0), (2025, 2, 29, 0, 0, 0), (2100, 2, 29, 0, 0, 0), (2026, 4, 31, 0, 0, 0),
        (2026, 0, 1, 0, 0, 0), (2026, 13, 1, 0, 0, 0), (2026, 1, 0, 0, 0, 0), (2026, 1, 1, 24, 0, 0), (2026, 1, 1, 0, 60, 0),
        (2026, 1, 1, 0, 0, 60), (2026, 1, 1, -1, 0, 0), (Int.min, 1, 1, 0, 0, 0),
    ])
    func timestampRefusals(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        #expect(throws: ZIPError.invalidTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second)) {
            try DOSTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
    }

    /// The records as an unzip program reads them: names UTF-8 (bit 11), sizes, CRC, offsets, and
    /// deflate (method 8) only where it is smaller.
    @Test func records() throws {
        let text = Array(String(repeating: "print me ", count: 500).utf8)
        let random = noise(count: 4000, seed: 5)
        let archive = try ZIPWriter.archive(
            [(name: "données/été.txt", contents: text), (name: "noise.bin", contents: random), (name: "empty", contents: [])],
            timestamp: timestamp, compression: .deflated)
        let end = archive.count - 22
        #expect(littleEndian(archive, at: end, count: 4) == 0x0605_4B50)
        #expect(littleEndian(archive, at: end + 10, count: 2) == 3)
        var central = littleEndian(archive, at: end + 16, count: 4)
        #expect(central + littleEndian(archive, at: end + 12, count: 4) == end)
        var found: [(name: String, method: Int, size: Int, compressed: Int, crc: Int)] = []
        for _ in 0..<3 {
            #expect(littleEndian(archive, at: central, count: 4) == 0x0201_4B50)
            #expect(littleEndian(archive, at: central + 8, count: 2) == 0x0800)
            let nameLength = littleEndian(archive, at: central + 28, count: 2)
            let name = String(decoding: archive[(central + 46)..<(central + 46 + nameLength)], as: UTF8.self)
            let local = littleEndian(archive, at: central + 42, count: 4)
            #expect(littleEndian(archive, at: local, count: 4) == 0x0403_4B50)
            #expect(archive[(local + 6)..<(local + 26)] == archive[(central + 8)..<(central + 28)])
            found.append(
                (
                    name, littleEndian(archive, at: central + 10, count: 2), littleEndian(archive, at: central + 24, count: 4),
                    littleEndian(archive, at: central + 20, count: 4), littleEndian(archive, at: central + 16, count: 4)
                ))
            central += 46 + nameLength
        }
        #expect(found.map(\.name) == ["données/été.txt", "noise.bin", "empty"])
        #expect(found.map(\.method) == [8, 0, 0])
        #expect(found.map(\.size) == [text.count, 4000, 0])
        #expect(found[0].compressed < text.count / 10)
        #expect(found[1].compressed == 4000)
        #expect(found.map(\.crc) == [Int(CRC32.checksum(text)), Int(CRC32.checksum(random)), 0])
    }

    /// Names that would land outside the folder an archive is extracted to, or that hide what
    /// they are (APPNOTE §4.4.17.1: relative, forward slashes, no drive or device letter).
    @Test(arguments: [
        "", "../evil", "a/../../evil", "..", "/etc/passwd", "a\\b", "..\\evil", "C:/Windows", "c:evil", "a//b", "./a", "a/./b", "a/.",
        "dir/", "a\u{0}b", "a\tb", "a\nb", "\u{7F}", "\u{85}", "a\u{200B}b", "a\u{202E}gnp.exe", "\u{FEFF}a", "a\u{E0001}",
        String(repeating: "n", count: 65536),
    ])
    func hostileNames(name: String) {
        var writer = ZIPWriter(timestamp: timestamp)
        var written: [UInt8] = []
        #expect {
            try writer.append(name: name, contents: [1]) { written += $0 }
        } throws: { error in
            guard case .invalidName(let refused, _) = error as? ZIPError else { return false }
            return refused == name
        }
        #expect(written.isEmpty)
    }

    @Test func longestNameAndOrdinaryNamesAccepted() throws {
        let names = [String(repeating: "n", count: 65535), "a..b", ".hidden", "dir/..name", "日本語/ファイル.png", "clip 1 (copy).png", "😀.txt"]
        let archive = try ZIPWriter.archive(names.map { (name: $0, contents: [UInt8]()) }, timestamp: timestamp)
        #expect(littleEndian(archive, at: archive.count - 12, count: 2) == names.count)
    }

    /// Names that one case-insensitive or normalizing file system would make one file.
    @Test(arguments: [("a.txt", "a.txt"), ("Read.me", "read.ME"), ("caf\u{E9}", "cafe\u{301}"), ("Ä/x", "ä/x")])
    func duplicates(first: String, second: String) throws {
        var writer = ZIPWriter(timestamp: timestamp)
        var archive: [UInt8] = []
        try writer.append(name: first, contents: [1]) { archive += $0 }
        let before = archive
        #expect(throws: ZIPError.duplicateName(second)) { try writer.append(name: second, contents: [2]) { archive += $0 } }
        #expect(archive == before)
    }

    /// A refused entry writes nothing: the archive finished afterwards is the one without it.
    @Test func refusedEntryLeavesArchiveValid() throws {
        var writer = ZIPWriter(timestamp: timestamp)
        var archive: [UInt8] = []
        try writer.append(name: "a.txt", contents: Array("hello\n".utf8)) { archive += $0 }
        #expect(throws: ZIPError.self) { try writer.append(name: "../b", contents: [1]) { archive += $0 } }
        try writer.finish { archive += $0 }
        #expect(archive == (try ZIPWriter.archive([(name: "a.txt", contents: Array("hello\n".utf8))], timestamp: timestamp)))
        #expect(writer.byteCount == archive.count)
    }

    @Test func finishedWriterTakesNothingMore() throws {
        var writer = ZIPWriter(timestamp: timestamp)
        try writer.finish { _ in }
        #expect(throws: ZIPError.finished) { try writer.append(name: "late", contents: []) { _ in } }
        #expect(throws: ZIPError.finished) { try writer.finish { _ in } }
    }

    /// The sink's own error reaches the caller.
    @Test func sinkErrorsPropagate() {
        struct DiskFull: Error {}
        var writer = ZIPWriter(timestamp: timestamp)
        #expect(throws: DiskFull.self) { try writer.append(name: "a", contents: [1]) { _ in throw DiskFull() } }
    }

    /// 65,535 entries fit the end record's 16-bit count; one more is refused (no ZIP64).
    @Test func entryLimit() throws {
        var writer = ZIPWriter(timestamp: timestamp)
        for index in 0..<ZIPWriter.maxEntries { try writer.append(name: String(index), contents: []) { _ in } }
        #expect(throws: ZIPError.tooManyEntries(limit: 65535)) { try writer.append(name: "one more", contents: []) { _ in } }
        var end: [UInt8] = []
        try writer.finish { end = $0 }
        #expect(littleEndian(end, at: end.count - 12, count: 2) == 65535)
    }

    /// The 4 GiB limit, scaled down: an entry whose header, bytes and central record would not fit
    /// before the end record is refused before anything is written; one that fits exactly is taken.
    @Test func byteLimit() throws {
        // "a" with 10 bytes: local header 31 + 10, central record 47, end record 22 = 110 bytes.
        var exact = ZIPWriter(timestamp: timestamp, byteLimit: 110)
        var archive: [UInt8] = []
        try exact.append(name: "a", contents: [UInt8](repeating: 1, count: 10)) { archive += $0 }
        try exact.finish { archive += $0 }
        #expect(archive.count == 110)
        var over = ZIPWriter(timestamp: timestamp, byteLimit: 109)
        var written: [UInt8] = []
        #expect(throws: ZIPError.archiveTooLarge(limit: 109)) {
            try over.append(name: "a", contents: [UInt8](repeating: 1, count: 10)) { written += $0 }
        }
        #expect(written.isEmpty)
        #expect(ZIPWriter.maxArchiveBytes == 0xFFFF_FFFE)
    }

    @Test func messages() {
        #expect(ZIPError.invalidName("a\u{202E}gnp.exe", reason: "x").description.contains("aU+202Egnp.exe"))
        #expect(ZIPError.invalidName(String(repeating: "n", count: 70000), reason: "x").description.count < 200)
    }
}
