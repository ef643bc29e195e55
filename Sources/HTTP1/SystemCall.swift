import CLinuxIO
#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: its name and errno.
public struct SocketError: Error, Equatable, CustomStringConvertible, Sendable {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The one place where HTTP1 reads errno after a system call. A call interrupted by a signal
/// (EINTR, signal(7)) is retried; any other failure (-1) becomes a `SocketError` naming the call.
enum SystemCall {
    @discardableResult
    static func run<T: BinaryInteger>(_ name: String, _ body: () -> T) throws(SocketError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SocketError(call: name, errno: code)
        }
    }

    /// As `run`, for a non-blocking descriptor: nil when the call would block (EAGAIN,
    /// EWOULDBLOCK), that is when there is nothing to do until the next readiness event.
    static func unlessWouldBlock<T: BinaryInteger>(_ name: String, _ body: () -> T) throws(SocketError) -> T? {
        do { return try run(name, body) } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
    }

    /// close(2), never retried: Linux releases the descriptor even when close reports EINTR, and a
    /// retry could close one that another thread has just been given.
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }
}

/// CLOCK_MONOTONIC in seconds: deadlines never jump with the wall clock.
@inline(__always) public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CLOCK_MONOTONIC in whole milliseconds: the clock of the server's deadlines and its timerfd.
@inline(__always) func monotonicMilliseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
}
