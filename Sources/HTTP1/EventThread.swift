import CLinuxIO
import Dispatch
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// One event thread and everything only it touches: its connections (for their whole life), its
/// timer, its read buffer. Made on its thread and never shared, so serving a request takes no
/// lock; other threads reach it through its `Mailbox`. (With one epoll set shared by every
/// thread and one locked table, two threads on two cores served about half of what one did:
/// wrk on core 0, `scripts/bench-http`.)
final class EventThread {
    /// A connection this thread owns.
    struct Slot {
        let connection: Connection
        /// Its request is with the blocking pool, which owns the connection until it posts it back.
        var handedOff = false
        /// An event came while handed off: read again once it is back.
        var pendingEvent = false
        /// Refused over the cap and lingering until it closes: not counted against the cap.
        var refused = false
    }

    let loop: EventLoop
    let index: Int
    let mailbox: Mailbox
    var slots: [UInt64: Slot] = [:]
    var nextID = EventLoop.firstConnectionID
    /// When the timerfd fires next (monotonic milliseconds); nil when disarmed.
    var timerAt: UInt64?
    /// The thread the accepting thread hands its next connection to.
    var nextThread = 0
    var exiting = false
    /// Reads land here first (`ConnectionSocket.readAvailable`), allocated once.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: EventLoop.bodyChunk, alignment: 16)

    init(loop: EventLoop, index: Int, mailbox: Mailbox) {
        self.loop = loop
        self.index = index
        self.mailbox = mailbox
    }

    deinit { scratch.deallocate() }

    var configuration: HTTPServer.Configuration { loop.configuration }
    var isStopping: Bool { loop.stopping.load(ordering: .relaxed) }

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !exiting {
            let count: Int32
            do {
                count = try events.withUnsafeMutableBufferPointer { buffer throws(SocketError) in
                    try SystemCall.run("epoll_wait") { epoll_wait(mailbox.epoll, buffer.baseAddress, Int32(buffer.count), -1) }
                }
            } catch {
                break
            }
            for i in 0..<Int(count) {
                switch events[i].data.u64 {
                case EventLoop.listenerID: acceptAll()
                case EventLoop.wakeupID: mailbox.take().forEach(handle)
                case EventLoop.timerID: timerFired()
                case let id:
                    // Each slot is read and stored whole (`updateValue`): `slots[id]?.field = x` goes through the
                    // Dictionary's `_modify` coroutine, whose frame was a malloc per call (callgrind).
                    guard var slot = slots[id] else { continue }  // closed earlier in this batch
                    if slot.handedOff {
                        slot.pendingEvent = true
                        slots.updateValue(slot, forKey: id)
                    } else {
                        serve(slot.connection)
                    }
                }
            }
        }
        for slot in slots.values where !slot.handedOff { slot.connection.socket.close() }
        slots.removeAll()
    }

    private func handle(_ message: Mailbox.Message) {
        switch message {
        case .arrived(let arrival):
            if exiting { arrival.socket.close() } else { arrive(arrival) }
        case .answered(let c):
            guard var slot = slots[c.id] else { return }
            let read = slot.pendingEvent
            slot.handedOff = false
            slot.pendingEvent = false
            slots.updateValue(slot, forKey: c.id)
            serve(c, read: read)
        case .closeIdle:
            for slot in slots.values where !slot.handedOff && (slot.connection.machine.isIdle || slot.connection.machine.isLingering) {
                close(slot.connection)
            }
        case .closeStalled:
            // Past the drain deadline: every connection no handler is answering (an answer the client has not
            // taken, a request half read, a refusal lingering); handlers under way still answer.
            for slot in slots.values where !slot.handedOff {
                let c = slot.connection
                guard slots[c.id] != nil else { continue }
                if c.machine.drainDeadlinePassed() == .close { close(c) } else { release(c) }
            }
        case .exit:
            exiting = true
        }
    }

    /// Serves `c` (owned by this thread) until it waits in epoll again, is closed, or is handed to
    /// the blocking pool (which posts it back once its handler has answered).
    func serve(_ c: Connection, read: Bool = true) {
        if step(c, read: read, scratch: scratch) == .rearmed { release(c) }
    }

    /// `c`, re-armed, waits in epoll under its deadline; while stopping an idle one is closed.
    func release(_ c: Connection) {
        if isStopping {
            if c.machine.isIdle && c.buffer.isEmpty {
                close(c)
                return
            }
            loop.changed.signal()
        }
        armTimer(at: c.machine.deadline)
    }

    func register(_ c: Connection, operation: Int32, events: UInt32 = EventLoop.connectionEvents) throws(SocketError) {
        try EventLoop.register(mailbox.epoll, c.socket.fd, id: c.id, events: events, operation: operation)
    }

    // MARK: New connections

    /// The accepting thread: each connection goes to the next thread in turn.
    private func acceptAll() {
        while let (fd, address) = try? loop.listener.acceptNow() {
            let socket = ConnectionSocket(fd: fd)
            socket.setNoDelay()
            let arrival = Mailbox.Arrival(socket: socket, address: address)
            let target = nextThread
            nextThread = (nextThread + 1) % loop.mailboxes.count
            if target == index { arrive(arrival) } else { loop.mailboxes[target].post(.arrived(arrival)) }
        }
    }

    /// Admits a new connection below the cap. At the cap (global, `EventLoop.open`) a client with
    /// nothing more to say is closed to make room (`roomCandidate`), the best one of every thread:
    /// the arrival visits each in turn, then the one holding the best. Otherwise (or stopping) the
    /// newcomer is refused with a 503.
    func arrive(_ arrival: Mailbox.Arrival) {
        var arrival = arrival
        let limits = configuration.limits
        if !isStopping {
            if EventLoop.reserve(loop.open, below: limits.maxConnections) {
                admit(arrival, refused: false)
                return
            }
            let threads = loop.mailboxes.count
            let now = monotonicMilliseconds()
            if arrival.decided {
                if let mine = roomCandidate(now: now) {
                    makeRoom(mine, for: arrival)
                    return
                }
            } else {
                if let mine = roomCandidate(now: now), mine.isBetter(than: arrival.best) { arrival.best = mine }
                arrival.visited += 1
                if arrival.visited < threads {
                    loop.mailboxes[(index + 1) % threads].post(.arrived(arrival))
                    return
                }
                if let best = arrival.best {
                    if best.thread == index, let mine = roomCandidate(now: now) {
                        makeRoom(mine, for: arrival)
                    } else {
                        arrival.decided = true
                        loop.mailboxes[best.thread].post(.arrived(arrival))
                    }
                    return
                }
            }
        }
        guard EventLoop.reserve(loop.refused, below: EventLoop.maxLingeringRefusals) else {
            // Too many refusals lingering already: the 503 as far as the socket takes it at once.
            _ = try? arrival.socket.writeAvailable(EventLoop.overTheCap[...])
            arrival.socket.shutdownWrites()
            arrival.socket.close()
            return
        }
        admit(arrival, refused: true)
    }

    /// Closes `candidate` and gives its place under the cap to the newcomer.
    private func makeRoom(_ candidate: Mailbox.RoomCandidate, for arrival: Mailbox.Arrival) {
        guard let slot = slots[candidate.id] else { return }
        close(slot.connection, keepingItsPlace: true)
        admit(arrival, refused: false)
    }

    /// A new connection joins this thread's set, its place (or its refusal) already counted.
    private func admit(_ arrival: Mailbox.Arrival, refused: Bool) {
        let machine = ConnectionStateMachine(timeouts: loop.timeouts, now: monotonicMilliseconds())
        let c = Connection(socket: arrival.socket, id: nextID, address: arrival.address, machine: machine)
        nextID += 1
        slots[c.id] = Slot(connection: c, refused: refused)
        do { try register(c, operation: EPOLL_CTL_ADD) } catch {
            close(c)
            return
        }
        if refused {
            // Over the cap: a clean refusal the client can read, never a crash or a silent hang.
            guard answerAndLinger(c, EventLoop.overTheCap, scratch: scratch) == .rearmed else { return }
        }
        release(c)
    }

    /// At the connection cap, a new client is served rather than refused while a connection has
    /// nothing more to say: one answered and lingering before its close (RFC 9112 §9.6; the answer
    /// is out), else one idle for at least `EventLoop.idleBeforeMakingRoom` (kept alive, or opened
    /// and silent), whichever has waited longest. Clients must expect a kept-alive connection to
    /// close at any time between requests (RFC 9112 §9.3.1). The minimum idle time keeps a burst of
    /// new connections from closing each other (or a busy keep-alive client between two requests)
    /// before they send anything: then the newcomer is refused as before. nil: none qualifies here.
    func roomCandidate(now: UInt64) -> Mailbox.RoomCandidate? {
        let idleAtLeast = loop.idleBeforeMakingRoom
        var best: Mailbox.RoomCandidate?
        for (id, slot) in slots where !slot.handedOff && !slot.refused && slot.connection.hot.out.isEmpty {
            let candidate: Mailbox.RoomCandidate
            switch slot.connection.machine.state {
            case .lingering(let since): candidate = .init(thread: index, id: id, lingering: true, since: since)
            case .idle(let since) where slot.connection.buffer.isEmpty && since + idleAtLeast <= now:
                candidate = .init(thread: index, id: id, lingering: false, since: since)
            default: continue
            }
            if candidate.isBetter(than: best) { best = candidate }
        }
        return best
    }

    // MARK: Deadlines

    /// Arms the timer for `deadline` unless it fires sooner already.
    private func armTimer(at deadline: UInt64?) {
        guard let deadline, timerAt.map({ deadline < $0 }) ?? true else { return }
        timerAt = deadline
        setTimer(deadline)
    }

    /// timerfd_settime at an absolute CLOCK_MONOTONIC time (timerfd_create(2)); nil disarms.
    private func setTimer(_ milliseconds: UInt64?) {
        var spec = itimerspec()
        if let milliseconds {
            // An all-zero time would disarm the timer: a deadline at 0 fires at 1 ns.
            spec.it_value = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: max(1, Int(milliseconds % 1000) * 1_000_000))
        }
        _ = try? SystemCall.run("timerfd_settime") { timerfd_settime(mailbox.timer, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
    }

    /// The timer fired: every connection whose deadline has passed is told the time (its state
    /// machine says whether to answer 408 or close), and the timer is armed for the next one.
    private func timerFired() {
        var expirations: UInt64 = 0
        // Re-armed meanwhile: nothing to do.
        guard (try? SystemCall.unlessWouldBlock("read(timerfd)", { Glibc.read(mailbox.timer, &expirations, 8) })) != nil else { return }
        let now = monotonicMilliseconds()
        var due: [Connection] = []
        var next: UInt64?
        for slot in slots.values where !slot.handedOff {
            guard let deadline = slot.connection.machine.deadline else { continue }
            if deadline <= now {
                due.append(slot.connection)
            } else {
                next = min(next ?? deadline, deadline)
            }
        }
        timerAt = next
        setTimer(next)
        for c in due where slots[c.id] != nil {
            switch c.machine.tick(now: now) {
            case .fail(let error): if fail(c, error, scratch: scratch) == .rearmed { release(c) }
            case .close: close(c)
            default: release(c)
            }
        }
    }
}
