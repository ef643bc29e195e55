import CLinuxIO
import Dispatch
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A started server: a few event threads (`EventThread`), each with its own epoll set, timerfd
/// and connections for their whole life, so a request takes no lock and no thread hands an event
/// to another; any number of connections (up to a cap) costs no thread each. What the threads
/// share is here: the configuration and handlers, the listening socket, the blocking pool, the
/// counts behind the connection cap and the drain (atomics), and each thread's `Mailbox`, through
/// which the others reach it (a new connection, an answer from the pool, a step of the drain).
///
/// One thread accepts and hands each new connection to the threads in turn (round-robin) rather
/// than adding the listening socket to every set with EPOLLEXCLUSIVE: an exclusive wake-up goes
/// to whichever thread is waiting, so a burst of connects (wrk's 32 at once) lands on one thread
/// and, with keep-alive, stays there; and at the cap a newcomer has to visit the threads anyway
/// to make room (`EventThread.arrive`). SO_REUSEPORT is not used: it would let another process
/// of the same user bind the same port.
final class EventLoop: Sendable {
    let configuration: HTTPServer.Configuration
    let timeouts: ConnectionStateMachine.Timeouts
    let handler: HTTPHandler
    let inline: HTTPInlineHandler?
    let hot: HTTPHotHandler?
    let observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    let listener: ListeningSocket
    let pool: BlockingPool
    /// The handlers that wait on other servers (`Configuration.waitsOnOthers`).
    let outboundPool: BlockingPool
    /// One per event thread; the first accepts.
    let mailboxes: [Mailbox]
    /// Set once by `stop`; read without a lock by every request.
    let stopping = Atomic<Bool>(false)
    /// A stop's drain window has ended: a request still queued for the pool is not started.
    let drainExpired = Atomic<Bool>(false)
    /// Connections admitted and open, on every thread: the cap is global.
    let open = Atomic<Int>(0)
    /// Connections refused over the cap and lingering until they close (not counted in `open`).
    let refused = Atomic<Int>(0)
    /// Requests read in full whose answer is not yet written (or given up).
    let inFlight = Atomic<Int>(0)
    /// Signalled while stopping whenever a connection closes or a request finishes.
    let changed = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()

    static let listenerID: UInt64 = 0
    static let wakeupID: UInt64 = 1
    static let timerID: UInt64 = 2
    static let firstConnectionID: UInt64 = 3
    /// Edge-triggered (epoll(7)): an event when bytes arrive, not while they wait; so every event is
    /// taken in full, and bytes left unread after a full chunk are asked for again by re-registering
    /// (`Connection.moreToRead`), which reports them as a new event (epoll_ctl(2) polls the
    /// descriptor on EPOLL_CTL_MOD). Registered once: no `epoll_ctl` per request.
    static let connectionEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
    /// While an answer waits for the socket: writable only (no EPOLLIN, no EPOLLRDHUP, so neither a
    /// pipelined request nor a half-close wakes it; a reset still does, as EPOLLERR/EPOLLHUP).
    static let writableEvents = EPOLLOUT.rawValue | EPOLLET.rawValue
    /// Bytes read at once while reading a head; a body is read in larger chunks. Each event thread
    /// reads into a buffer of its own (`EventThread.scratch`, allocated once): a temporary allocation
    /// of this size was a malloc per request (callgrind).
    static let headChunk = 16 * 1024
    static let bodyChunk = 256 * 1024
    /// Connections refused over the cap that may linger at once; past it a refusal closes at once.
    static let maxLingeringRefusals = 64

    init(
        configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler, inline: HTTPInlineHandler?, hot: HTTPHotHandler?,
        observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    ) throws(SocketError) {
        self.configuration = configuration
        timeouts = ConnectionStateMachine.Timeouts(configuration.limits)
        self.handler = handler
        self.inline = inline
        self.hot = hot
        self.observer = observer
        pool = BlockingPool(threads: max(1, configuration.blockingThreads))
        outboundPool = BlockingPool(threads: max(1, configuration.outboundThreads))
        listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        var mailboxes: [Mailbox] = []
        do {
            for _ in 0..<max(1, configuration.eventThreads) { mailboxes.append(try Mailbox()) }
            try Self.register(mailboxes[0].epoll, listener.fd, id: Self.listenerID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        } catch {
            listener.close()
            mailboxes.forEach { $0.closeDescriptors() }
            throw error
        }
        self.mailboxes = mailboxes
    }

    var port: Int { listener.port }

    var connectionCount: Int { open.load(ordering: .relaxed) }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    func start() {
        for (i, mailbox) in mailboxes.enumerated() {
            startThread("http-event-\(i)") { [self] in EventThread(loop: self, index: i, mailbox: mailbox).run() }
        }
        for i in 0..<max(1, configuration.blockingThreads) {
            startThread("http-blocking-\(i)") { [pool] in pool.run() }
        }
        for i in 0..<max(1, configuration.outboundThreads) {
            startThread("http-outbound-\(i)") { [outboundPool] in outboundPool.run() }
        }
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        finished.enter()
        let thread = Thread { [finished] in
            body()
            finished.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    static func register(_ epoll: Int32, _ fd: Int32, id: UInt64, events: UInt32, operation: Int32) throws(SocketError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        try SystemCall.run("epoll_ctl") { epoll_ctl(epoll, operation, fd, &event) }
    }

    func closeDescriptors() {
        listener.close()
        mailboxes.forEach { $0.closeDescriptors() }
    }

    /// Takes one of the `limit` places counted by `counter`; false when all are taken. A
    /// compare-and-exchange, so two threads admitting at once never exceed the cap.
    static func reserve(_ counter: borrowing Atomic<Int>, below limit: Int) -> Bool {
        var current = counter.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = counter.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// The answer to a connection over the cap.
    static let overTheCap = ResponseWriter.serialize(
        HTTPResponse(
            status: 503, headers: HTTPHeaders([("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")]),
            body: Array("too many connections\n".utf8)),
        includeBody: true, keepAlive: false, dated: false)

    // MARK: Stopping

    /// See `HTTPServer.stop`. Each thread closes its own connections when told (`Mailbox.Message`);
    /// this thread keeps the schedule and counts.
    func stop(drainMilliseconds: UInt64, atDrainDeadline: (@Sendable (Int) -> Void)?) {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        _ = try? SystemCall.run("epoll_ctl") { epoll_ctl(mailboxes[0].epoll, EPOLL_CTL_DEL, listener.fd, nil) }
        listener.close()
        var schedule = DrainSchedule(now: monotonicMilliseconds(), drainMilliseconds: drainMilliseconds)
        drain: while true {
            mailboxes.forEach { $0.post(.closeIdle) }
            if monotonicMilliseconds() >= schedule.deadline {
                drainExpired.store(true, ordering: .sequentiallyConsistent)
                mailboxes.forEach { $0.post(.closeStalled) }
            }
            let connections = open.load(ordering: .sequentiallyConsistent) + refused.load(ordering: .sequentiallyConsistent)
            let inFlight = inFlight.load(ordering: .sequentiallyConsistent)
            let now = monotonicMilliseconds()
            switch schedule.next(now: now, connections: connections, inFlight: inFlight) {
            case .finish: break drain
            case .interrupt(let count): atDrainDeadline?(count)
            case .wait(let until?): _ = changed.wait(timeout: .now() + .milliseconds(Int(until - now)))
            // Signalled when a request finishes or a connection is let go or closed.
            case .wait(nil): _ = changed.wait(timeout: .now() + .milliseconds(100))
            }
        }
        // Every thread closes what it still holds and exits; then their descriptors are closed.
        mailboxes.forEach { $0.post(.exit) }
        pool.stop()
        outboundPool.stop()
        let left = Double(schedule.deadline) - Double(monotonicMilliseconds())
        if finished.wait(timeout: .now() + max(0.5, left / 1000)) == .success {
            mailboxes.forEach { $0.closeDescriptors() }
        }
    }
}

extension EventLoop {
    /// How long a connection must have waited for a request (idle, or its head incomplete) before it
    /// may be closed to make room (at most 1 s, at most the idle timeout).
    var idleBeforeMakingRoom: UInt64 { min(1_000, timeouts.idle) }
}
