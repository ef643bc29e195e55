#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock between processes on a file (flock(2)), taken without waiting. The kernel drops it when its
/// holder's descriptor closes, so a holder killed with SIGKILL never leaves it behind. Two opens in one process exclude
/// each other too (the lock belongs to the open file description), so it also guards threads of one server.
public final class FileLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock on `path` (created 0600 if missing), or returns nil when another holder has it.
    /// Throws the errno when the file cannot be opened or locked for another reason.
    public init?(path: String) throws(FileLockError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileLockError(path: path, errno: errno) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw FileLockError(path: path, errno: code)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}

public struct FileLockError: Error, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public var description: String { "cannot lock \(path): \(String(cString: strerror(errno)))" }
}
