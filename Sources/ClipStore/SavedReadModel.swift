public import ClipCore
import Glibc

/// The server's read model saved beside the database at a graceful stop (`DATABASE-read-model`), so
/// that the next start reads one file instead of every row (a million experiences: the rows take
/// about 2 s, the file a fraction of that; docs/architecture.md#the-read-model).
///
/// The file is a cache, never a source of truth: it names the last change record it reflects (id
/// and time) and the database's migrations, and `LiveIndex` replays the change records after it,
/// or builds from the rows when the database no longer continues it (a restore, another database,
/// a migration, more changes than it replays). A file that is not exactly what this build wrote
/// (another layout, a checksum that fails, damage, not owned by this user, writable by others, a
/// symbolic link) is not used.
///
/// Layout: a 112-byte header (magic, header version, migrations' fingerprint, last change id, its
/// time in 64 bytes, the image's length), the image (`ExperienceIndex.writeImage`), then a
/// checksum of everything before it (`ImageChecksum`). Written to a temporary file in the same
/// directory, synced, and renamed over the old one: a crash leaves the old file or the new one.
public enum SavedReadModel {
    /// The last change a saved read model reflects.
    public struct Position: Equatable, Sendable {
        public var changeID: Int64
        public var changeAt: String
    }

    public struct Loaded {
        public var index: ExperienceIndex
        public var position: Position
    }

    /// Why a file was not used, or not written.
    public struct Problem: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    static let magic: [UInt8] = Array("CLIPREAD".utf8)
    static let headerVersion: UInt64 = 1
    static let headerSize = 112
    static let timeBytes = 64

    /// The file beside a database.
    public static func path(besideDatabase database: String) -> String { database + "-read-model" }

    // MARK: Reading

    /// The saved index at `path`, or nil when there is none; throws when there is one that is not used.
    public static func load(_ path: String, migrations: UInt64) throws(Problem) -> Loaded? {
        do { return try loadFile(path, migrations: migrations) } catch let problem as Problem { throw problem } catch {
            throw Problem("its image: \(error)")
        }
    }

    private static func loadFile(_ path: String, migrations: UInt64) throws -> Loaded? {
        // O_NONBLOCK: opening a FIFO planted at the name would otherwise wait for a writer forever
        // (fifo(7)), and the server would never start; for a regular file it changes nothing.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Problem(errno == ELOOP ? "it is a symbolic link" : "cannot open it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw Problem("it is not a regular file") }
        // Only a file this user wrote and nobody else can change is read: its bytes become the answers.
        guard info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            throw Problem("it is not owned by this user, or others may write it")
        }
        var reader = Reader(fd: fd)
        var head = [UInt8](repeating: 0, count: magic.count)
        guard head.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, 0) }) == magic.count, head == magic else {
            throw Problem("it is not a saved read model")
        }
        guard Int(info.st_size) >= headerSize + 8 else { throw Problem("it ends early") }
        var header = [UInt8](repeating: 0, count: headerSize)
        try header.withUnsafeMutableBytes { try reader.fill($0) }
        let fields = try Header(header, migrations: migrations)
        guard Int(info.st_size) == headerSize + fields.imageBytes + 8 else { throw Problem("its length is not the one its header gives") }
        let index = try ExperienceIndex(image: fields.imageBytes) { buffer in
            adviseHugePages(buffer)
            try reader.fill(buffer)
        }
        let computed = reader.checksum.value
        var stored: UInt64 = 0
        try withUnsafeMutableBytes(of: &stored) { try reader.fill($0) }
        guard UInt64(littleEndian: stored) == computed else { throw Problem("its checksum does not match (a damaged or unfinished file)") }
        return Loaded(index: index, position: fields.position)
    }

    /// Asks for transparent huge pages on a large buffer before it is filled (see `LiveIndex.adviseHugePages`).
    private static func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let start = buffer.baseAddress, buffer.count >= 4 << 20 else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = (Int(bitPattern: start) + page - 1) / page * page, end = (Int(bitPattern: start) + buffer.count) / page * page
        if let aligned = UnsafeMutableRawPointer(bitPattern: first), end > first { _ = madvise(aligned, end - first, MADV_HUGEPAGE) }
    }

    struct Header {
        var position: Position
        var imageBytes: Int

        init(_ bytes: [UInt8], migrations: UInt64) throws(Problem) {
            guard bytes.prefix(8).elementsEqual(SavedReadModel.magic) else { throw Problem("it is not a saved read model") }
            func word(_ at: Int) -> UInt64 { bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
            guard word(8) == SavedReadModel.headerVersion else { throw Problem("it was written by another version") }
            guard word(16) == migrations else { throw Problem("the database's migrations changed since") }
            let timeLength = Int(truncatingIfNeeded: word(32))
            guard (1...SavedReadModel.timeBytes).contains(timeLength),
                let time = String(validating: bytes[40..<(40 + timeLength)], as: UTF8.self)
            else { throw Problem("its header is damaged") }
            let imageBytes = word(104)
            guard imageBytes < 1 << 40 else { throw Problem("its header is damaged") }
            position = Position(changeID: Int64(bitPattern: word(24)), changeAt: time)
            self.imageBytes = Int(imageBytes)
        }

        static func encode(_ position: Position, migrations: UInt64, imageBytes: Int) throws(Problem) -> [UInt8] {
            let time = Array(position.changeAt.utf8)
            guard (1...SavedReadModel.timeBytes).contains(time.count) else { throw Problem("the last change's time does not fit") }
            var out = SavedReadModel.magic
            func word(_ n: UInt64) { withUnsafeBytes(of: n.littleEndian) { out.append(contentsOf: $0) } }
            word(SavedReadModel.headerVersion)
            word(migrations)
            word(UInt64(bitPattern: position.changeID))
            word(UInt64(time.count))
            out.append(contentsOf: time + [UInt8](repeating: 0, count: SavedReadModel.timeBytes - time.count))
            word(UInt64(imageBytes))
            return out
        }
    }

    /// Reads whole buffers from a file, summing what it reads.
    struct Reader {
        let fd: Int32
        var checksum = ImageChecksum()

        mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(Problem) {
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                // In pieces of 4 MiB, each summed while it is still in the cache.
                let n = read(fd, base + done, min(buffer.count - done, 4 << 20))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw Problem(n == 0 ? "it ends early" : "cannot read it: \(String(cString: strerror(errno)))") }
                checksum.add(UnsafeRawBufferPointer(start: base + done, count: n))
                done += n
            }
        }
    }

    // MARK: Writing

    /// Saves `index`, which reflects the change record at `position`, to `path`: in a temporary file
    /// beside it (`PATH.saving-PID`), synced, then renamed over it. A file at `path` that is not a
    /// saved read model of this user is left as it is and nothing is written.
    public static func save(_ index: ExperienceIndex, at position: Position, migrations: UInt64, to path: String) throws(Problem) {
        do { try saveFile(index, at: position, migrations: migrations, to: path) } catch let problem as Problem { throw problem } catch {
            throw Problem("\(error)")
        }
    }

    private static func saveFile(_ index: ExperienceIndex, at position: Position, migrations: UInt64, to path: String) throws {
        try checkReplaceable(path)
        removeLeftovers(of: path)
        let temporary = "\(path).saving-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(fd) }
            var imageBytes = 0
            index.writeImage { imageBytes += $0.count }
            var writer = Writer(fd: fd)
            try Header.encode(position, migrations: migrations, imageBytes: imageBytes).withUnsafeBytes { try writer.write($0) }
            try index.writeImage { try writer.write($0) }
            var sum = writer.checksum.value.littleEndian
            try withUnsafeBytes(of: &sum) { try writer.write($0) }
            guard fsync(fd) == 0 else { throw Problem("cannot sync \(temporary): \(String(cString: strerror(errno)))") }
        }
        guard rename(temporary, path) == 0 else {
            throw Problem("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
        }
        renamed = true
        // The rename itself made durable (a new directory entry): fsync(2) on the directory.
        let directory = open(Self.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Throws unless `path` is absent or a saved read model this user owns (never another file of the same name).
    static func checkReplaceable(_ path: String) throws(Problem) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw Problem("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), startsWithMagic(path) else {
            throw Problem("\(path) is not a read model this program saved: left as it is")
        }
    }

    static func startsWithMagic(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: magic.count)
        return head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } == magic.count && head == magic
    }

    /// Removes `PATH.saving-PID` files that a process no longer running left (killed while saving):
    /// regular files of this user, empty or begun as a saved read model. Anything else is left.
    static func removeLeftovers(of path: String) {
        let directory = Self.directory(of: path)
        let prefix = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "") + ".saving-"
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), pid > 0,
                String(pid) == name.dropFirst(prefix.count)
            else { continue }
            // A process that still runs (or one of another user: EPERM) may be writing it now.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let full = directory + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
                info.st_size == 0 || startsWithMagic(full)
            else { continue }
            unlink(full)
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Writes whole buffers to a file, summing what it writes.
    struct Writer {
        let fd: Int32
        var checksum = ImageChecksum()

        mutating func write(_ buffer: UnsafeRawBufferPointer) throws(Problem) {
            guard let base = buffer.baseAddress else { return }
            checksum.add(buffer)
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, base + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw Problem("cannot write: \(String(cString: strerror(errno)))") }
                done += n
            }
        }
    }
}

/// A 64-bit checksum of a byte stream, fed in pieces of any size: four lanes of multiply-xor over
/// 8-byte little-endian words (independent lanes, so that a few hundred MB take a few tens of ms),
/// then a final mix (the 64-bit finalizer of MurmurHash3). It detects damage (a torn or truncated
/// write, flipped bits), not tampering: the file is trusted only as far as its owner is.
struct ImageChecksum {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
        0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5
    )
    private var pending: [UInt8] = []
    private var total: UInt64 = 0

    static let prime: UInt64 = 0x0000_0100_0000_01b3

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        total &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { mixBlocks($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - start) / 32 * 32
        if whole > 0 { mixBlocks(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + whole)])) }
        pending.append(contentsOf: bytes[(start + whole)...])
    }

    private mutating func mixBlocks(_ blocks: UnsafeRawBufferPointer) {
        var (a, b, c, d) = lanes
        var i = 0
        while i < blocks.count {
            a = (a ^ UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* Self.prime
            b = (b ^ UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))) &* Self.prime
            c = (c ^ UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))) &* Self.prime
            d = (d ^ UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))) &* Self.prime
            // Bits only move up under a multiply: fold the high half down so every bit reaches every later one.
            a ^= a >> 29
            b ^= b >> 29
            c ^= c >> 29
            d ^= d >> 29
            i += 32
        }
        lanes = (a, b, c, d)
    }

    var value: UInt64 {
        var h = total
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { h = (h ^ lane) &* Self.prime }
        for byte in pending { h = (h ^ UInt64(byte)) &* Self.prime }
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
