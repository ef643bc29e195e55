import ClipCore
public import DoctorAndPublish
import FileFormats
import Foundation
import Glibc

/// A directory replaced as a whole (`clipctl publish`): written into a new sibling directory,
/// then swapped in with one rename, so a server reading it sees the old set or the new one,
/// never a mix.
public enum PublishedDirectory {
    public enum Failure: Error, CustomStringConvertible {
        /// The directory cannot be published to as it is; nothing was changed.
        case target(String)
        /// A file-system step failed.
        case io(String)

        public var description: String {
            switch self {
            case .target(let message), .io(let message): message
            }
        }
    }

    /// DIR as an absolute path with symbolic links resolved (a link to a folder publishes into
    /// that folder; the link stays), its missing parents created.
    public static func resolve(_ argument: String) throws(Failure) -> String {
        let path = URL(fileURLWithPath: argument).standardizedFileURL.path
        if DurableFiles.exists(path), let real = DurableFiles.realPath(path) { return real }
        let parent = DurableFiles.directory(of: path)
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw Failure.io("cannot publish to \(path): cannot create \(parent)")
        }
        guard DurableFiles.realPath(parent) != nil else { throw Failure.io("cannot publish to \(path): cannot resolve \(parent)") }
        return DurableFiles.resolved(path)
    }

    /// Publish replaces DIR and everything in it: DIR must not be the database's folder or one
    /// above it (where the file, its -wal and -shm live; SQLite keeps them beside the file a
    /// symbolic link points to, so both folders count).
    public static func checkNotHoldingDatabase(_ target: String, database: String, command: String = "publish") throws(Failure) {
        let given = URL(fileURLWithPath: database).standardizedFileURL.path
        let folders = [given, DurableFiles.realPath(given) ?? given].map { DurableFiles.directory(of: $0) }
        for folder in Set(folders + folders.compactMap(DurableFiles.realPath))
        where folder == target || folder.hasPrefix(target == "/" ? "/" : target + "/") {
            throw Failure.target(
                "\(target) holds the database \(database) (\(command) replaces the whole directory); choose a directory of its own")
        }
    }

    /// Everything under `root` by relative path, without following symbolic links; nil when
    /// `root` does not exist.
    static func list(_ root: String) throws -> [String: StaticSite.Entry]? {
        var info = stat()
        guard lstat(root, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure.target("\(root) exists and is not a directory")
        }
        var entries: [String: StaticSite.Entry] = [:]
        func walk(_ relative: String) throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? root : "\(root)/\(relative)")
            for name in names {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                guard lstat("\(root)/\(path)", &info) == 0 else { throw posixFailure("read \(root)/\(path)") }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    entries[path] = .directory
                    try walk(path)
                case S_IFREG:
                    // Read only if it is still a regular file when opened (`RegularFile`).
                    let bytes = try RegularFile.read("\(root)/\(path)", what: "published file", followingLinks: false)
                    entries[path] = .file(sha256: SHA256.hexDigest(bytes))
                default:
                    entries[path] = .other
                }
            }
        }
        try walk("")
        return entries
    }

    /// The changes of replacing `target` by `files`, or the refusal, with the foreign entries listed.
    static func changes(
        _ target: String, _ files: [StaticSite.File], listedAtMost: Int, marker: StaticSite.IndexMarker
    ) throws -> StaticSite.Changes {
        let existing = try list(target)
        let result = StaticSite.changes(replacing: existing, with: files, marker: marker) {
            try? RegularFile.read("\(target)/\(StaticSite.indexName)", what: "published index", followingLinks: false)
        }
        switch result {
        case .success(let changes): return changes
        case .failure(let refusal):
            let shown = refusal.foreign.prefix(listedAtMost).map { "\($0.path) (\($0.why))" }
            let more = refusal.foreign.count > listedAtMost ? ", and \(refusal.foreign.count - listedAtMost) more" : ""
            throw Failure.target(
                "\(target) is left untouched: \(refusal.reason): \(shown.joined(separator: ", "))\(more); move them away or choose another directory"
            )
        }
    }

    /// Replaces `target` by `files`; refused, untouched, when `target` holds anything but an
    /// earlier publish (`StaticSite.changes`; at most `listedAtMost` such entries are named).
    public static func write(
        _ files: [StaticSite.File], to target: String, listedAtMost: Int, marker: StaticSite.IndexMarker = StaticSite.publishMarker,
        keepingUnchanged: Bool = false
    ) throws(Failure) -> StaticSite.Changes {
        removeStaleStaging(of: target)
        do {
            // Nothing to change: DIR is left as it is, down to its inode and times.
            if keepingUnchanged, DurableFiles.exists(target) {
                let changes = try Self.changes(target, files, listedAtMost: listedAtMost, marker: marker)
                if changes.added.isEmpty && changes.changed.isEmpty && changes.removed.isEmpty { return changes }
            }
            return try replace(target, with: files, listedAtMost: listedAtMost, marker: marker)
        } catch let failure as Failure { throw failure } catch {
            throw .io("cannot publish to \(target): \(error)")
        }
    }

    static func replace(
        _ target: String, with files: [StaticSite.File], listedAtMost: Int, marker: StaticSite.IndexMarker
    ) throws -> StaticSite.Changes {
        let changes = try Self.changes(target, files, listedAtMost: listedAtMost, marker: marker)
        let parent = DurableFiles.directory(of: target)
        var template = Array("\(parent)/.\((target as NSString).lastPathComponent).publishing-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw posixFailure("create a directory in \(parent)")
        }
        let staging = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        chmod(staging, 0o755)
        // Held until the end: the new set, and the old one once it is swapped out to the staging name
        // (`removeStaleStaging` leaves a held folder alone).
        let holds = [hold(staging), DurableFiles.exists(target) ? hold(target) : -1]
        defer { for fd in holds where fd >= 0 { close(fd) } }
        do {
            var folders: Set<String> = []
            for file in files {
                let path = "\(staging)/\(file.path)"
                let folder = DurableFiles.directory(of: path)
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
                var f = folder
                while f.count > staging.count { folders.insert(f); f = DurableFiles.directory(of: f) }
                try writeDurably(file.bytes, to: path)
            }
            // Deepest first, so each folder's entry is durable in its parent before the swap.
            for folder in folders.sorted(by: { $0.count > $1.count }) + [staging] { try sync(folder) }
            if DurableFiles.exists(target) {
                try exchange(staging, target)
                // Checked again now that it is out of the way: a file added meanwhile is put back.
                do { _ = try Self.changes(staging, files, listedAtMost: listedAtMost, marker: marker) } catch {
                    try? exchange(staging, target)
                    try? sync(parent)
                    throw error
                }
                try sync(parent)
                try FileManager.default.removeItem(atPath: staging)  // the previous set, all of it ours
            } else {
                guard rename(staging, target) == 0 else { throw posixFailure("rename \(staging) to \(target)") }
            }
            try sync(parent)
        } catch {
            if DurableFiles.exists(staging) && !DurableFiles.sameFile(staging, target) {
                try? FileManager.default.removeItem(atPath: staging)
            }
            if let failure = error as? Failure { throw failure }
            throw Failure.io("cannot publish to \(target): \(error.localizedDescription)")
        }
        return changes
    }

    /// An exclusive flock(2) on a directory, as a descriptor to close (-1 when it cannot be taken): the kernel drops it
    /// when its holder ends, even by SIGKILL.
    static func hold(_ directory: String) -> Int32 {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Removes the staging folders of `target` that a killed publish left beside it (`replace` removes
    /// its own otherwise), and returns their paths: only real directories of this user named
    /// `.NAME.publishing-` and six characters of mkdtemp(3)'s alphabet (A–Z a–z 0–9), and only those that
    /// no running publish holds (`hold`). Nothing else is touched; a folder that cannot be removed stays.
    @discardableResult
    static func removeStaleStaging(of target: String) -> [String] {
        let parent = DurableFiles.directory(of: target)
        let prefix = ".\((target as NSString).lastPathComponent).publishing-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            let suffix = name.utf8.dropFirst(prefix.utf8.count)
            guard suffix.count == 6,
                suffix.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) })
            else { continue }
            let path = "\(parent)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { continue }
            let fd = hold(path)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        if !removed.isEmpty { try? sync(parent) }
        return removed
    }

    static func sync(_ directory: String) throws {
        do { try DurableFiles.syncDirectory(directory) } catch {
            throw Failure.io("\(error)")
        }
    }

    /// Writes and fsyncs a file (mode 0644), so the swap never exposes an empty one.
    static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixFailure("create \(path)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw posixFailure("write \(path)") }
            offset += n
        }
        guard fsync(fd) == 0 else { throw posixFailure("fsync \(path)") }
    }

    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// renameat2(2) with RENAME_EXCHANGE (Linux 3.15, glibc 2.28) swaps two paths atomically. The
    /// Glibc module does not export it, so it is looked up; without it (or on a file system that
    /// refuses it) the old directory is moved aside first, which leaves a moment with no DIR.
    static func exchange(_ a: String, _ b: String) throws {
        let RENAME_EXCHANGE: UInt32 = 1 << 1
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") {
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS else { throw posixFailure("exchange \(a) and \(b)") }
        }
        let aside = b + ".previous-\(getpid())"
        guard rename(b, aside) == 0 else { throw posixFailure("rename \(b)") }
        guard rename(a, b) == 0 else {
            _ = rename(aside, b)
            throw posixFailure("rename \(a) to \(b)")
        }
        guard rename(aside, a) == 0 else { throw posixFailure("rename \(aside)") }
    }

    static func posixFailure(_ what: String) -> Failure {
        .io(DurableFiles.failure(what).description)
    }
}
