import CLinuxIO
import Locking
#if canImport(Glibc)
    import Glibc
#endif

/// How other threads reach one event thread: its epoll set, its timerfd, and messages behind an
/// eventfd in that set (eventfd(2): a write makes it readable, a read resets it). Only the
/// blocking pool, the accepting thread and a stop post here; a request answered on its own
/// thread never does.
final class Mailbox: Sendable {
    enum Message: Sendable {
        /// A new connection, handed over by the accepting thread (or by another thread at the cap).
        case arrived(Arrival)
        /// The blocking pool answered a request of this thread's connection.
        case answered(Connection)
        /// Stopping: close connections with no request under way (or only lingering).
        case closeIdle
        /// Past the drain deadline: close connections no handler is answering.
        case closeStalled
        /// The stop is over: close what is left and return.
        case exit
    }

    /// A connection accepted and not yet admitted. At the cap it visits every thread in turn for
    /// the connection with the least to lose to make room for it (`best`), then goes to that
    /// connection's thread (`decided`).
    struct Arrival: Sendable {
        let socket: ConnectionSocket
        let address: String
        var visited = 0
        var best: RoomCandidate?
        var decided = false
    }

    /// The connection a thread would close to make room, and how little it has sent for how long.
    struct RoomCandidate: Sendable {
        let thread: Int
        let id: UInt64
        /// Answered and half-closed: it has nothing more to say.
        let lingering: Bool
        /// When it began waiting (for a request, or to close).
        let since: UInt64
        /// Bytes of a request head received per second of waiting (0 for an idle connection).
        let bytesPerSecond: Double

        /// Lingering (the answer is out) first, then the one that has sent the least for the
        /// longest: the lowest rate, then the longest wait.
        func isBetter(than other: RoomCandidate?) -> Bool {
            guard let other else { return true }
            if lingering != other.lingering { return lingering }
            if bytesPerSecond != other.bytesPerSecond { return bytesPerSecond < other.bytesPerSecond }
            return since < other.since
        }
    }

    let epoll: Int32
    let wakeup: Int32
    let timer: Int32
    private let messages = Locked<[Message]>([])

    init() throws(SocketError) {
        var opened: [Int32] = []
        do {
            epoll = try SystemCall.run("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
            opened.append(epoll)
            wakeup = try SystemCall.run("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
            opened.append(wakeup)
            timer = try SystemCall.run("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) }
            opened.append(timer)
            try EventLoop.register(epoll, wakeup, id: EventLoop.wakeupID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
            try EventLoop.register(epoll, timer, id: EventLoop.timerID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        } catch {
            opened.forEach(SystemCall.close)
            throw error
        }
    }

    func post(_ message: Message) {
        messages.withLock { $0.append(message) }
        var one: UInt64 = 1
        _ = try? SystemCall.run("write(eventfd)") { Glibc.write(wakeup, &one, 8) }
    }

    /// The messages posted so far, oldest first. The eventfd is read first: a message posted
    /// after it wakes the thread again.
    func take() -> [Message] {
        var count: UInt64 = 0
        _ = try? SystemCall.unlessWouldBlock("read(eventfd)") { Glibc.read(wakeup, &count, 8) }
        return messages.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }

    func closeDescriptors() { [epoll, wakeup, timer].forEach(SystemCall.close) }
}
