import Foundation
import Glibc

/// The file-system steps that make a new file or a rename survive a crash, and names that never
/// take over somebody's file. fsync(2) on a file does not make its directory entry durable: the
/// directory itself must be synced after a create, link or rename (fsync(2), "NOTES").
public enum DurableFiles {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The directory holding `path` ("." for a bare name, "/" for a name in the root), as dirname(3) has it. Not
    /// NSString's deletingLastPathComponent, which traps on a one-character name in swift-corelibs-foundation.
    public static func directory(of path: String) -> String {
        var scalars = Array(path.unicodeScalars)
        while scalars.count > 1, scalars.last == "/" { scalars.removeLast() }
        guard let slash = scalars.lastIndex(of: "/") else { return "." }
        var parent = Array(scalars[..<slash])
        while parent.count > 1, parent.last == "/" { parent.removeLast() }
        return parent.isEmpty ? "/" : String(String.UnicodeScalarView(parent))
    }

    /// Why `path`'s directory cannot take a new file, or nil when it can.
    public static func missingDirectory(for path: String) -> String? {
        let directory = directory(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return "directory \(directory) does not exist"
        }
        return isDirectory.boolValue ? nil : "\(directory) is not a directory"
    }

    /// True when something (a file, a directory, even a dangling symbolic link) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// True when `a` and `b` name the same file (device and inode), following symbolic links.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// `path` as an absolute name with the symbolic links and `.`/`..` of its directory resolved
    /// (realpath(3)), and of the file too when `followingLink` and it exists: two spellings of
    /// one name compare equal even when the file does not exist yet.
    public static func resolved(_ path: String, followingLink: Bool = true) -> String {
        if followingLink, let full = realPath(path) { return full }
        guard let parent = realPath(directory(of: path)) else { return path }
        return (parent as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// realpath(3): the absolute name with every symbolic link, `.` and `..` resolved; nil when
    /// the file does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates a new empty file (mode 0600) named `prefix` plus six random characters, with
    /// O_EXCL semantics (mkstemp(3)), and returns its path.
    public static func createUnique(prefix: String) throws(Failure) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure("create a file in \(directory(of: prefix))") }
        close(fd)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Creates `base`, or `base-2`, `base-3`… when taken (O_CREAT | O_EXCL), and returns the name.
    public static func createNew(_ base: String) throws(Failure) -> String {
        for n in 1...1000 {
            let path = n == 1 ? base : "\(base)-\(n)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                return path
            }
            guard errno == EEXIST else { throw failure("create \(path)") }
        }
        throw Failure(description: "cannot create \(base): too many files of that name")
    }

    /// Gives the complete file `temporary` the name `path`, failing if `path` exists meanwhile
    /// (link(2) never replaces), then syncs the directory.
    public static func publish(_ temporary: String, as path: String) throws(Failure) {
        if link(temporary, path) != 0 {
            guard errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP else { throw failure("create \(path)") }
            // A file system without hard links: rename, after checking nothing took the name.
            guard !exists(path) else { errno = EEXIST; throw failure("create \(path)") }
            guard rename(temporary, path) == 0 else { throw failure("rename \(temporary) to \(path)") }
        } else {
            unlink(temporary)
        }
        try syncDirectory(directory(of: path))
    }

    /// Puts `bytes` at `path` whole or not at all: written to a new file beside it (mkstemp(3)), synced, then
    /// renamed over `path` (rename(2) replaces the name itself: a symbolic link at `path` is replaced, never
    /// written through). Refused, writing nothing, when `path` is a symbolic link, not a regular file, or
    /// somebody else's file.
    public static func replaceWhole(_ path: String, with bytes: [UInt8]) throws(Failure) {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFLNK: throw Failure(description: "\(path) is a symbolic link: not written through; remove it or choose another name")
            case S_IFREG:
                guard info.st_uid == geteuid() else {
                    throw Failure(description: "\(path) belongs to another user: not replaced; choose another name")
                }
            default: throw Failure(description: "\(path) exists and is not a regular file")
            }
        }
        if let missing = missingDirectory(for: path) { throw Failure(description: "cannot write \(path): \(missing)") }
        let temporary = try createUnique(prefix: directory(of: path) + "/." + (path as NSString).lastPathComponent + ".partial-")
        let fd = open(temporary, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = failure("open \(temporary)")
            unlink(temporary)
            throw failure
        }
        var offset = 0
        var failed: Failure?
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failed = failure("write \(path)")
                break
            }
            offset += n
        }
        // Readable like any file the user makes (mkstemp makes it 0600), less what the umask takes away.
        let mask = umask(0)
        umask(mask)
        if failed == nil, fchmod(fd, 0o644 & ~mask) != 0 { failed = failure("set the mode of \(path)") }
        if failed == nil, fsync(fd) != 0 { failed = failure("fsync \(path)") }
        close(fd)
        if failed == nil, rename(temporary, path) != 0 { failed = failure("rename \(temporary) to \(path)") }
        if let failed {
            unlink(temporary)
            throw failed
        }
        try syncDirectory(directory(of: path))
    }

    /// fsync(2) on a directory, so that the entries created, renamed or removed in it last.
    public static func syncDirectory(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 || errno == EINVAL else { throw failure("fsync directory \(path)") }
    }

    /// Removes a file SQLite wrote, with its journal (a rollback journal left by a crash).
    public static func removeDatabaseFile(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// "cannot WHAT: <strerror(errno)>".
    public static func failure(_ what: String) -> Failure {
        Failure(description: "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
