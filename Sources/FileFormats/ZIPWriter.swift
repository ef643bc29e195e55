/// A ZIP archive writer (PKWARE APPNOTE.TXT 6.3.x) that hands its bytes to the caller entry by
/// entry, so an archive is never held in memory twice: each entry is a local file header (§4.3.7)
/// and the entry's bytes, stored (method 0) or deflated (method 8); `finish` writes the central
/// directory (§4.3.12) and the end of central directory record (§4.3.16). Names are UTF-8 and say
/// so (general purpose bit 11, Appendix D); every entry has the one timestamp given, so equal input
/// makes equal archives. No ZIP64: more than 65,535 entries or 4 GiB is refused. Entries are files;
/// directories are implied by the names (a name ending in "/" is refused).
public struct ZIPWriter: Sendable {
    public enum Compression: Sendable {
        /// Method 0: the bytes as they are.
        case stored
        /// Method 8 (DEFLATE) when that is smaller, else stored.
        case deflated
    }

    /// At most this many entries: the end of central directory record counts them in 16 bits.
    public static let maxEntries = 65535
    /// At most this many bytes in all: offsets and sizes are 32 bits, and 0xFFFFFFFF means ZIP64.
    public static let maxArchiveBytes = 0xFFFF_FFFE

    private struct CentralRecord {
        let name: [UInt8]
        let method: UInt16
        let crc: UInt32
        let compressedSize: Int
        let size: Int
        let offset: Int
    }

    private let timestamp: DOSTimestamp
    private let byteLimit: Int
    private var records: [CentralRecord] = []
    private var takenNames: Set<String> = []
    private var written = 0
    private var centralSize = 0
    private var finished = false

    public init(timestamp: DOSTimestamp) {
        self.init(timestamp: timestamp, byteLimit: ZIPWriter.maxArchiveBytes)
    }

    /// With a lower limit than the format's, for tests.
    init(timestamp: DOSTimestamp, byteLimit: Int) {
        self.timestamp = timestamp
        self.byteLimit = byteLimit
    }

    /// Bytes handed to the sink so far.
    public var byteCount: Int { written }

    /// Adds one entry: checks everything first, so a refused entry writes nothing and the archive
    /// stays valid; then calls `sink` with the local header and with the entry's bytes. Throws a
    /// `ZIPError`, or what `sink` throws.
    public mutating func append(
        name: String, contents: [UInt8], compression: Compression = .stored, to sink: ([UInt8]) throws -> Void
    ) throws {
        guard !finished else { throw ZIPError.finished }
        guard records.count < ZIPWriter.maxEntries else { throw ZIPError.tooManyEntries(limit: ZIPWriter.maxEntries) }
        let nameBytes = try ZIPWriter.checked(name)
        // Two names a case-insensitive file system (or one that normalizes Unicode) would make one
        // file are duplicates too; String equality already treats canonically equivalent names as equal.
        let key = name.lowercased()
        guard !takenNames.contains(key) else { throw ZIPError.duplicateName(name) }
        guard contents.count <= byteLimit else { throw ZIPError.archiveTooLarge(limit: byteLimit) }

        let crc = CRC32.checksum(contents)
        var data = contents
        var method: UInt16 = 0
        if compression == .deflated {
            let deflated = Deflate.compress(contents)
            if deflated.count < contents.count {
                data = deflated
                method = 8
            }
        }
        let headerSize = 30 + nameBytes.count
        let recordSize = 46 + nameBytes.count
        guard written + headerSize + data.count + centralSize + recordSize + 22 <= byteLimit else {
            throw ZIPError.archiveTooLarge(limit: byteLimit)
        }

        let record = CentralRecord(
            name: nameBytes, method: method, crc: crc, compressedSize: data.count, size: contents.count, offset: written)
        var header: [UInt8] = []
        header.reserveCapacity(headerSize)
        header.appendLittleEndian(UInt32(0x0403_4B50))
        header.appendLittleEndian(UInt16(method == 8 ? 20 : 10))  // version needed: 2.0 for deflate, 1.0 for stored (§4.4.3.2)
        appendCommon(record, to: &header)
        header.appendLittleEndian(UInt16(0))  // extra field length
        header.append(contentsOf: nameBytes)

        takenNames.insert(key)
        records.append(record)
        written += headerSize + data.count
        centralSize += recordSize
        try sink(header)
        try sink(data)
    }

    /// Writes the central directory and its end record. The writer takes no entry after this.
    public mutating func finish(to sink: ([UInt8]) throws -> Void) throws {
        guard !finished else { throw ZIPError.finished }
        finished = true
        var central: [UInt8] = []
        central.reserveCapacity(centralSize + 22)
        for record in records {
            central.appendLittleEndian(UInt32(0x0201_4B50))
            // Version made by: 3 (UNIX, so the external attributes are a mode), APPNOTE 6.3 (§4.4.2).
            central.appendLittleEndian(UInt16(3 << 8 | 63))
            central.appendLittleEndian(UInt16(record.method == 8 ? 20 : 10))
            appendCommon(record, to: &central)
            central.appendLittleEndian(UInt16(0))  // extra field length
            central.appendLittleEndian(UInt16(0))  // comment length
            central.appendLittleEndian(UInt16(0))  // disk number start
            central.appendLittleEndian(UInt16(0))  // internal attributes
            central.appendLittleEndian(UInt32(0o100644) << 16)  // a regular file, rw-r--r--
            central.appendLittleEndian(UInt32(record.offset))
            central.append(contentsOf: record.name)
        }
        central.appendLittleEndian(UInt32(0x0605_4B50))
        central.appendLittleEndian(UInt16(0))  // this disk
        central.appendLittleEndian(UInt16(0))  // the disk where the central directory starts
        central.appendLittleEndian(UInt16(records.count))
        central.appendLittleEndian(UInt16(records.count))
        central.appendLittleEndian(UInt32(centralSize))
        central.appendLittleEndian(UInt32(written))
        central.appendLittleEndian(UInt16(0))  // comment length
        written += central.count
        try sink(central)
    }

    /// An archive of these entries, in this order, as one array.
    public static func archive(
        _ entries: [(name: String, contents: [UInt8])], timestamp: DOSTimestamp, compression: Compression = .stored
    ) throws(ZIPError) -> [UInt8] {
        var writer = ZIPWriter(timestamp: timestamp)
        var out: [UInt8] = []
        do {
            for entry in entries {
                try writer.append(name: entry.name, contents: entry.contents, compression: compression) { out.append(contentsOf: $0) }
            }
            try writer.finish { out.append(contentsOf: $0) }
        } catch let error as ZIPError {
            throw error
        } catch {
            preconditionFailure("appending to an array threw \(error)")
        }
        return out
    }

    /// Flags, method, time, date, CRC-32, sizes and name length: the same in both headers.
    private func appendCommon(_ record: CentralRecord, to out: inout [UInt8]) {
        out.appendLittleEndian(UInt16(1 << 11))  // bit 11: the name is UTF-8
        out.appendLittleEndian(record.method)
        out.appendLittleEndian(timestamp.time)
        out.appendLittleEndian(timestamp.date)
        out.appendLittleEndian(record.crc)
        out.appendLittleEndian(UInt32(record.compressedSize))
        out.appendLittleEndian(UInt32(record.size))
        out.appendLittleEndian(UInt16(record.name.count))
    }

    /// The name's UTF-8 bytes if it is a relative path of files that extracts inside the folder it
    /// is extracted to: "/" separators only, no leading "/" or drive letter (§4.4.17.1), no empty,
    /// "." or ".." segment, no control or invisible formatting characters, at most 65,535 bytes.
    static func checked(_ name: String) throws(ZIPError) -> [UInt8] {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { throw .invalidName(name, reason: "it is empty") }
        guard bytes.count <= 65535 else { throw .invalidName(name, reason: "it is longer than 65,535 bytes") }
        for scalar in name.unicodeScalars {
            let category = scalar.properties.generalCategory
            if category == .control || category == .format || category == .unassigned || category == .surrogate {
                throw .invalidName(name, reason: "it contains \(codePoint(scalar))")
            }
        }
        guard !name.contains("\\") else { throw .invalidName(name, reason: "it contains a backslash (ZIP separates with \"/\")") }
        guard !name.hasPrefix("/") else { throw .invalidName(name, reason: "it is an absolute path") }
        let scalars = Array(name.unicodeScalars.prefix(2))
        if scalars.count == 2, scalars[1] == ":", scalars[0].properties.isAlphabetic {
            throw .invalidName(name, reason: "it starts with a drive letter")
        }
        guard !name.hasSuffix("/") else { throw .invalidName(name, reason: "it ends with \"/\" (directories are implied by file names)") }
        for segment in name.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { throw .invalidName(name, reason: "it has an empty segment (\"//\")") }
            if segment == "." || segment == ".." { throw .invalidName(name, reason: "it has a \"\(segment)\" segment") }
        }
        return bytes
    }
}

/// The date and time of MS-DOS (APPNOTE.TXT §4.4.6): 1980 to 2107, to two seconds. An odd second
/// is rounded down.
public struct DOSTimestamp: Sendable, Equatable {
    public let date: UInt16
    public let time: UInt16

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) throws(ZIPError) {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1980...2107).contains(year), (1...12).contains(month), day >= 1, day <= monthDays[month - 1],
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { throw .invalidTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second) }
        date = UInt16((year - 1980) << 9 | month << 5 | day)
        time = UInt16(hour << 11 | minute << 5 | second / 2)
    }
}

public enum ZIPError: Error, Equatable, CustomStringConvertible {
    case invalidName(String, reason: String)
    case duplicateName(String)
    case tooManyEntries(limit: Int)
    case archiveTooLarge(limit: Int)
    case invalidTimestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
    case finished

    public var description: String {
        switch self {
        case .invalidName(let name, let reason): "the ZIP entry name \(quoted(name)) is refused: \(reason)"
        case .duplicateName(let name): "the ZIP archive already has an entry named \(quoted(name)) (or the same name in other letter case)"
        case .tooManyEntries(let limit): "a ZIP archive without ZIP64 holds at most \(limit) entries"
        case .archiveTooLarge(let limit): "a ZIP archive without ZIP64 holds at most \(limit) bytes"
        case .invalidTimestamp(let year, let month, let day, let hour, let minute, let second):
            "\(year)-\(month)-\(day) \(hour):\(minute):\(second) is not a date and time from 1980 to 2107 (MS-DOS timestamps)"
        case .finished: "the ZIP archive is finished; it takes no more entries"
        }
    }
}
