import Glibc

/// A file a user named as input (`restore FILE`, `import FILE`, `--image FILE`, `@FILE`, `aasa
/// lint FILE`, `applinks set --file FILE`), read only when it is a regular file. Opening a FIFO
/// for reading waits for a writer for ever (fifo(7)), and a device such as /dev/zero never ends:
/// neither is a file to read whole. A stream goes to standard input instead (`-`, where the
/// command takes it).
///
/// The name is checked with stat(2) before anything is opened, then opened with O_NONBLOCK (an
/// open that cannot wait, should the name have become a FIFO meanwhile) and the opened file
/// checked again with fstat(2): what is read is the file that was checked.
public final class RegularFile {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public let description: String
        /// The name is a FIFO, device, directory or socket, not a missing or unreadable file.
        public let isNotRegular: Bool
        init(_ description: String, isNotRegular: Bool = false) {
            self.description = description
            self.isNotRegular = isNotRegular
        }
    }

    public let path: String
    /// The size fstat(2) gave when the file was opened.
    public let size: Int
    private let fd: Int32

    /// Opens `path` (`what` names it in messages, as "backup file"). A symbolic link is followed
    /// when `followingLinks` (the user named it; it is theirs to point anywhere), refused otherwise.
    public init(_ path: String, what: String, followingLinks: Bool = true) throws(Refusal) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
            throw Refusal("cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        if let kind = Self.kind(info.st_mode) { throw Self.notRegular(path, what: what, kind: kind) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw Refusal("cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Refusal("cannot read \(what) \(path): \(reason)")
        }
        if let kind = Self.kind(info.st_mode) {
            close(fd)
            throw Self.notRegular(path, what: what, kind: kind)
        }
        self.path = path
        self.fd = fd
        self.size = Int(info.st_size)
    }

    deinit { close(fd) }

    /// The file's whole content.
    public static func read(_ path: String, what: String, followingLinks: Bool = true) throws(Refusal) -> [UInt8] {
        let file = try RegularFile(path, what: what, followingLinks: followingLinks)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(file.size)
        while true {
            let chunk = try file.read(upTo: 1 << 16)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// The next bytes, at most `count`; empty at the end of the file.
    public func read(upTo count: Int) throws(Refusal) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Refusal("cannot read \(path): \(String(cString: strerror(errno)))") }
            chunk.removeLast(count - n)
            return chunk
        }
    }

    /// Why `copy(to:)` failed: reading this file, or writing the target (an errno).
    public enum CopyFailure: Error {
        case reading(Refusal)
        case writing(Int32)
    }

    /// Writes the rest of this file to the file at `target` (created, or emptied, mode 0600; never
    /// through a symbolic link).
    public func copy(to target: String) throws(CopyFailure) {
        let out = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw .writing(errno) }
        var closed = false
        defer { if !closed { close(out) } }
        while true {
            let chunk: [UInt8]
            do { chunk = try read(upTo: 1 << 20) } catch { throw .reading(error) }
            if chunk.isEmpty { break }
            var offset = 0
            while offset < chunk.count {
                let n = chunk[offset...].withUnsafeBytes { Glibc.write(out, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .writing(n == 0 ? ENOSPC : errno) }
                offset += n
            }
        }
        closed = true
        // close(2) reports a write-back error (ENOSPC, EDQUOT on NFS) the writes did not.
        guard close(out) == 0 else { throw .writing(errno) }
    }

    /// What a file of mode `mode` is, in words, when it is not a regular file.
    static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }

    static func notRegular(_ path: String, what: String, kind: String) -> Refusal {
        Refusal("\(what) \(path) is \(kind), not a regular file: nothing was read from it", isNotRegular: true)
    }
}
