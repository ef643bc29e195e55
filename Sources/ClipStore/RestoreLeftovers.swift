import Foundation
import Glibc

/// Files an interrupted restore left beside the database (docs/reliability.md#backup-and-restore): a restore
/// works in `DB.restoring-XXXXXX` and `DB.restoring-backup-XXXXXX` (mkstemp(3) names, with SQLite's `-journal`,
/// `-wal` and `-shm` beside them) and removes them when it ends, but a SIGKILL or a power cut leaves them. Only files
/// named exactly so, regular (not a link, a FIFO or a directory), of this process's user, and not held by a restore
/// running now (each holds an flock(2) on its files while it works) are counted as left over.
public enum RestoreLeftovers {
    public struct File: Sendable, Equatable {
        public let path: String
        public let bytes: Int64
    }

    static let stems = [".restoring-backup-", ".restoring-"]
    static let suffixes = ["-journal", "-wal", "-shm", ""]

    /// Creates a restore's work file (`prefix` + six characters) and holds an exclusive flock(2) on it until
    /// `release`: another process's `find` then leaves it alone.
    static func createHeld(prefix: String) throws(DurableFiles.Failure) -> (path: String, lock: Int32) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw DurableFiles.failure("create a file in \(DurableFiles.directory(of: prefix))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DurableFiles.failure("lock a file in \(DurableFiles.directory(of: prefix))")
        }
        return (template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, fd)
    }

    /// The left-over files beside `livePath`, oldest name first.
    public static func find(besides livePath: String) -> [File] {
        let directory = DurableFiles.directory(of: livePath)
        let base = (livePath as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [File] = []
        var stale: [String: Bool] = [:]
        for name in names.sorted() {
            guard let work = workFile(name, base: base) else { continue }
            let path = directory == "." && !livePath.hasPrefix("./") ? name : directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
            let mainPath = directory == "." && !livePath.hasPrefix("./") ? work : directory + "/" + work
            if stale[work] == nil { stale[work] = !isHeld(mainPath) }
            if stale[work] == true { found.append(File(path: path, bytes: Int64(info.st_size))) }
        }
        return found
    }

    /// Removes what `find` finds; what it removed.
    @discardableResult
    public static func remove(besides livePath: String) -> [File] {
        let files = find(besides: livePath)
        var removed: [File] = []
        for file in files where unlink(file.path) == 0 { removed.append(file) }
        if !removed.isEmpty { try? DurableFiles.syncDirectory(DurableFiles.directory(of: livePath)) }
        return removed
    }

    /// The work file's own name when `name` is one of a restore's files of the database `base`, else nil.
    static func workFile(_ name: String, base: String) -> String? {
        for stem in stems where name.hasPrefix(base + stem) {
            var rest = Substring(name.dropFirst(base.count + stem.count))
            for suffix in suffixes where !suffix.isEmpty && rest.hasSuffix(suffix) {
                rest = rest.dropLast(suffix.count)
                break
            }
            // mkstemp(3): six characters of [A-Za-z0-9].
            guard rest.count == 6, rest.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { continue }
            return base + stem + rest
        }
        return nil
    }

    /// Whether a restore holds `path` now; a file gone or unreadable is not held.
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
