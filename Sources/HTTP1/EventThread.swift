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
    /// The connections this thread would close next to make room at the cap (`RoomSearch`).
    var room = RoomSearch()
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
