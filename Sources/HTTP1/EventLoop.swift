import CLinuxIO
import Dispatch
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A started server: a few threads share one epoll set, so any number of connections (up to a
/// cap) costs no thread each, and a ready connection is read and answered by whichever thread
/// takes its event; the table says which thread owns a connection (one at a time), and an event
/// for a connection owned elsewhere is left to its owner (`pendingEvent`). Connections are
/// edge-triggered (`EPOLLET`), registered once: no `epoll_ctl` per request (with `EPOLLONESHOT`
/// every request re-armed its connection, a system call each). One timerfd in the same set fires
/// at the nearest connection deadline; nothing polls.
final class EventLoop: Sendable {
    /// A connection in the table, and who owns it.
    struct Slot {
        let connection: Connection
        /// A thread owns the connection now (serving it, or the timer ending it); the others leave it alone.
        var busy: Bool
        /// An event came while a thread owned it: that thread serves it again before letting go.
        var pendingEvent = false
        /// Refused over the cap and lingering until it closes: not counted against the cap.
        var refused = false
    }

    struct Table {
        var slots: [UInt64: Slot] = [:]
        var nextID = EventLoop.firstConnectionID
        /// Requests read in full whose answer is not yet written (or given up).
        var inFlight = 0
        /// Connections in `slots` refused over the cap (lingering).
        var refused = 0
        var stopping = false
        /// A stop's drain window has ended: a request still queued for the pool is not started.
        var drainExpired = false
        /// When the timerfd fires next (monotonic milliseconds); nil when disarmed.
        var timerAt: UInt64?
    }

    let configuration: HTTPServer.Configuration
    let timeouts: ConnectionStateMachine.Timeouts
    let handler: HTTPHandler
    let inline: HTTPInlineHandler?
    let hot: HTTPHotHandler?
    let observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    let listener: ListeningSocket
    let epoll: Int32
    let wakeup: Int32
    let timer: Int32
    let pool: BlockingPool
    let table = Locked(Table())
    /// `Table.stopping`, read without the lock by every request (a lock per request for a flag set once).
    let stopping = Atomic<Bool>(false)
    /// Signalled while stopping whenever a connection closes or a request finishes.
    let changed = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()

    static let listenerID: UInt64 = 0
    static let wakeupID: UInt64 = 1
    static let timerID: UInt64 = 2
    static let firstConnectionID: UInt64 = 3
    /// Edge-triggered (epoll(7)): an event when bytes arrive, not while they wait; so every event is
    /// taken by its owner in full (an event for a connection owned elsewhere sets `pendingEvent`,
    /// under the table's lock, and the owner reads again before letting go), and bytes left unread
    /// after a full chunk are asked for again by re-registering (`Connection.moreToRead`), which
    /// reports them as a new event (epoll_ctl(2) polls the descriptor on EPOLL_CTL_MOD).
    static let connectionEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
    /// While an answer waits for the socket: writable only (no EPOLLIN, no EPOLLRDHUP, so neither a
    /// pipelined request nor a half-close wakes it; a reset still does, as EPOLLERR/EPOLLHUP).
    static let writableEvents = EPOLLOUT.rawValue | EPOLLET.rawValue
    /// Bytes read at once while reading a head; a body is read in larger chunks. Each event thread
    /// reads into a buffer of its own (`readScratchBytes`, allocated once): a temporary allocation of
    /// this size was a malloc per request (callgrind).
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
        var opened: [Int32] = []
        do {
            listener = try ListeningSocket(host: configuration.host, port: configuration.port)
            opened.append(listener.fd)
            epoll = try SystemCall.run("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
            opened.append(epoll)
            wakeup = try SystemCall.run("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
            opened.append(wakeup)
            timer = try SystemCall.run("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) }
            opened.append(timer)
            try Self.register(epoll, listener.fd, id: Self.listenerID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
            try Self.register(epoll, wakeup, id: Self.wakeupID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
            try Self.register(epoll, timer, id: Self.timerID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        } catch {
            opened.forEach(SystemCall.close)
            throw error
        }
    }

    var port: Int { listener.port }

    var connectionCount: Int { table.withLock { $0.slots.count - $0.refused } }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    func start() {
        for i in 0..<max(1, configuration.eventThreads) {
            startThread("http-event-\(i)") { [self] in workerLoop() }
        }
        for i in 0..<max(1, configuration.blockingThreads) {
            startThread("http-blocking-\(i)") { [pool] in pool.run() }
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

    func register(_ c: Connection, operation: Int32, events: UInt32 = EventLoop.connectionEvents) throws(SocketError) {
        try Self.register(epoll, c.socket.fd, id: c.id, events: events, operation: operation)
    }

    func closeDescriptors() {
        listener.close()
        [epoll, wakeup, timer].forEach(SystemCall.close)
    }

    // MARK: Threads

    private func workerLoop() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bodyChunk, alignment: 16)
        defer { scratch.deallocate() }
        while true {
            let count: Int32
            do {
                count = try events.withUnsafeMutableBufferPointer { buffer throws(SocketError) in
                    try SystemCall.run("epoll_wait") { epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), -1) }
                }
            } catch {
                return
            }
            for i in 0..<Int(count) {
                switch events[i].data.u64 {
                case Self.listenerID: acceptAll(scratch)
                case Self.wakeupID: return
                case Self.timerID: timerFired(scratch)
                case let id: if let connection = take(id) { serve(connection, scratch: scratch) }
                }
            }
        }
    }

    /// The connection with `id`, now owned by this thread; nil when gone or owned elsewhere.
    private func take(_ id: UInt64) -> Connection? {
        table.withLock { table in
            guard var slot = table.slots[id] else { return nil }
            defer { table.slots.updateValue(slot, forKey: id) }
            if slot.busy {
                slot.pendingEvent = true
                return nil
            }
            slot.busy = true
            return slot.connection
        }
    }

    enum LetGo { case released, eventPending, close }

    /// Gives up ownership of `c` (re-armed in epoll): its deadline goes to the timer. Unless an
    /// event came meanwhile (serve it again) or the server stops and `c` is idle (close it).
    func letGo(_ c: Connection) -> LetGo {
        table.withLock { table in
            // Each slot is read and stored whole (`updateValue`): `slots[id]?.busy = false` goes through the
            // Dictionary's `_modify` coroutine, whose frame was a malloc per call (callgrind: 2 per request).
            guard var slot = table.slots[c.id] else { return .released }
            defer { table.slots.updateValue(slot, forKey: c.id) }
            if slot.pendingEvent {
                slot.pendingEvent = false
                return .eventPending
            }
            if table.stopping && c.machine.isIdle && c.buffer.isEmpty { return .close }
            slot.busy = false
            if table.stopping { changed.signal() }
            armTimer(&table, at: c.machine.deadline)
            return .released
        }
    }

    private func acceptAll(_ scratch: UnsafeMutableRawBufferPointer) {
        while true {
            guard let (fd, address) = try? listener.acceptNow() else { return }
            let socket = ConnectionSocket(fd: fd)
            socket.setNoDelay()
            enum Admission { case admitted(Connection), refused(Connection), dropped }
            var makingRoom: Connection?
            let admission = table.withLock { table -> Admission in
                let atCap = table.slots.count - table.refused >= configuration.limits.maxConnections
                if atCap && !table.stopping {
                    makingRoom = table.takeConnectionToMakeRoom(now: monotonicMilliseconds(), idleAtLeast: idleBeforeMakingRoom)
                }
                let refuse = table.stopping || (atCap && makingRoom == nil)
                if refuse && table.refused >= Self.maxLingeringRefusals { return .dropped }
                let machine = ConnectionStateMachine(timeouts: timeouts, now: monotonicMilliseconds())
                let c = Connection(socket: socket, id: table.nextID, address: address, machine: machine)
                table.nextID += 1
                table.slots[c.id] = Slot(connection: c, busy: true, refused: refuse)
                if refuse { table.refused += 1 }
                return refuse ? .refused(c) : .admitted(c)
            }
            if let makingRoom { close(makingRoom) }
            let connection: Connection
            switch admission {
            case .dropped:
                // Too many refusals lingering already: the 503 as far as the socket takes it at once.
                _ = try? socket.writeAvailable(Self.overTheCap[...])
                socket.shutdownWrites()
                socket.close()
                continue
            case .admitted(let c), .refused(let c):
                connection = c
            }
            do { try register(connection, operation: EPOLL_CTL_ADD) } catch {
                close(connection)
                continue
            }
            if case .refused = admission {
                // Over the cap: a clean refusal the client can read, never a crash or a silent hang.
                guard answerAndLinger(connection, Self.overTheCap, scratch: scratch) == .rearmed else { continue }
            }
            release(connection, scratch: scratch)
        }
    }

    /// The answer to a connection over the cap.
    static let overTheCap = ResponseWriter.serialize(
        HTTPResponse(
            status: 503, headers: HTTPHeaders([("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")]),
            body: Array("too many connections\n".utf8)),
        includeBody: true, keepAlive: false, dated: false)

    // MARK: Deadlines

    /// Arms the timer for `deadline` unless it fires sooner already. Called with the table locked.
    private func armTimer(_ table: inout Table, at deadline: UInt64?) {
        guard let deadline, table.timerAt.map({ deadline < $0 }) ?? true else { return }
        table.timerAt = deadline
        setTimer(deadline)
    }

    /// timerfd_settime at an absolute CLOCK_MONOTONIC time (timerfd_create(2)); nil disarms.
    private func setTimer(_ milliseconds: UInt64?) {
        var spec = itimerspec()
        if let milliseconds {
            // An all-zero time would disarm the timer: a deadline at 0 fires at 1 ns.
            spec.it_value = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: max(1, Int(milliseconds % 1000) * 1_000_000))
        }
        _ = try? SystemCall.run("timerfd_settime") { timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
    }

    /// The timer fired: every connection whose deadline has passed is told the time (its state
    /// machine says whether to answer 408 or close), and the timer is armed for the next one.
    private func timerFired(_ scratch: UnsafeMutableRawBufferPointer) {
        var expirations: UInt64 = 0
        // Another thread took this expiry, or the timer was re-armed meanwhile: nothing to do.
        guard (try? SystemCall.unlessWouldBlock("read(timerfd)", { Glibc.read(timer, &expirations, 8) })) != nil else { return }
        let now = monotonicMilliseconds()
        let due = table.withLock { table -> [Connection] in
            var due: [Connection] = []
            var next: UInt64?
            for (id, slot) in table.slots where !slot.busy {
                guard let deadline = slot.connection.machine.deadline else { continue }
                if deadline <= now {
                    due.append(slot.connection)
                    table.slots[id]?.busy = true
                } else {
                    next = min(next ?? deadline, deadline)
                }
            }
            table.timerAt = next
            setTimer(next)
            return due
        }
        for c in due {
            switch c.machine.tick(now: now) {
            case .fail(let error): if fail(c, error, scratch: scratch) == .rearmed { release(c, scratch: scratch) }
            case .close: close(c)
            default: release(c, scratch: scratch)
            }
        }
    }

    // MARK: Stopping

    /// See `HTTPServer.stop`.
    func stop(drainMilliseconds: UInt64, atDrainDeadline: (@Sendable (Int) -> Void)?) {
        let first = table.withLock { table in
            defer {
                table.stopping = true
                stopping.store(true, ordering: .relaxed)
            }
            return !table.stopping
        }
        guard first else { return }
        _ = try? SystemCall.run("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_DEL, listener.fd, nil) }
        listener.close()
        var schedule = DrainSchedule(now: monotonicMilliseconds(), drainMilliseconds: drainMilliseconds)
        drain: while true {
            closeIdleConnections()
            if monotonicMilliseconds() >= schedule.deadline {
                table.withLock { $0.drainExpired = true }
                closeStalledConnections()
            }
            let (connections, inFlight) = table.withLock { ($0.slots.count, $0.inFlight) }
            let now = monotonicMilliseconds()
            switch schedule.next(now: now, connections: connections, inFlight: inFlight) {
            case .finish: break drain
            case .interrupt(let count): atDrainDeadline?(count)
            case .wait(let until?): _ = changed.wait(timeout: .now() + .milliseconds(Int(until - now)))
            // Signalled when a request finishes or a connection is let go or closed.
            case .wait(nil): _ = changed.wait(timeout: .now() + .milliseconds(100))
            }
        }
        // Wake every thread (the eventfd stays readable) and let them exit; then close the rest.
        var one: UInt64 = 1
        _ = try? SystemCall.run("write(eventfd)") { Glibc.write(wakeup, &one, 8) }
        pool.stop()
        let left = Double(schedule.deadline) - Double(monotonicMilliseconds())
        let exited = finished.wait(timeout: .now() + max(0.5, left / 1000)) == .success
        let rest = table.withLock { table -> [Connection] in
            let idle = table.slots.values.filter { !$0.busy }.map(\.connection)
            table.slots.removeAll()
            return idle
        }
        for c in rest { c.socket.close() }
        if exited {
            [epoll, wakeup, timer].forEach(SystemCall.close)
        }
    }

    /// Past the drain deadline: closes every connection no thread owns (an answer the client has
    /// not taken, a request half read, a refusal lingering); handlers under way still answer.
    private func closeStalledConnections() {
        let stalled = table.withLock { table -> [Connection] in
            var taken: [Connection] = []
            for (id, slot) in table.slots where !slot.busy {
                table.slots[id]?.busy = true
                taken.append(slot.connection)
            }
            return taken
        }
        for c in stalled {
            if c.machine.drainDeadlinePassed() == .close { close(c) } else { release(c) }
        }
    }

    /// While stopping: closes connections with no request under way (or only lingering).
    private func closeIdleConnections() {
        let idle = table.withLock { table -> [Connection] in
            var taken: [Connection] = []
            for (id, slot) in table.slots where !slot.busy && (slot.connection.machine.isIdle || slot.connection.machine.isLingering) {
                table.slots[id]?.busy = true
                taken.append(slot.connection)
            }
            return taken
        }
        for c in idle { close(c) }
    }
}
