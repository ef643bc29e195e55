import CLinuxIO
#if canImport(Glibc)
    import Glibc
#endif

/// The connections one thread would close next to make room at the cap, found by one pass over
/// its connections and then taken one by one, so that a stream of newcomers at the cap costs a
/// pass per `batch` of them (or per `refresh`), not one each. Nothing here runs below the cap.
struct RoomSearch {
    /// The best last.
    var candidates: [Mailbox.RoomCandidate] = []
    /// When to pass over the connections again (monotonic milliseconds).
    var searchAgainAt: UInt64 = 0
    /// The last pass found some: once they are taken, pass again at once.
    var foundSome = false

    /// Candidates kept from one pass.
    static let batch = 64
    /// How long one pass's order stands (rates and waits change).
    static let refresh: UInt64 = 100
    /// After a pass that found none: a connection may qualify soon (its wait reaching a second,
    /// an error answered and lingering).
    static let retryWhenNone: UInt64 = 20
}

extension EventThread {
    /// Admits a new connection below the cap. At the cap (global, `EventLoop.open`) the connection
    /// with the least to lose is closed to make room (`roomCandidate`), the best one of every
    /// thread: the arrival visits each in turn, then the one holding the best. Otherwise (or
    /// stopping) the newcomer is refused with a 503.
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
        if room.candidates.last?.id == candidate.id { room.candidates.removeLast() }
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

    /// The connection this thread would close to make room for a newcomer; nil: none qualifies.
    func roomCandidate(now: UInt64) -> Mailbox.RoomCandidate? {
        if now >= room.searchAgainAt || (room.candidates.isEmpty && room.foundSome) { searchForRoom(now: now) }
        while let kept = room.candidates.last {
            if let slot = slots[kept.id], let fresh = roomCandidate(kept.id, slot, now: now) { return fresh }
            room.candidates.removeLast()
            // Every one kept has since closed, been taken or started a request: pass again, once.
            if room.candidates.isEmpty && room.searchAgainAt > now + RoomSearch.retryWhenNone {
                searchForRoom(now: now)
            }
        }
        return nil
    }

    /// One pass over this thread's connections: the best `RoomSearch.batch` of those that qualify.
    private func searchForRoom(now: UInt64) {
        var found: [Mailbox.RoomCandidate] = []
        for (id, slot) in slots {
            if let candidate = roomCandidate(id, slot, now: now) { found.append(candidate) }
        }
        found.sort { $0.isBetter(than: $1) }
        room.candidates = found.prefix(RoomSearch.batch).reversed()
        room.foundSome = !found.isEmpty
        room.searchAgainAt = now + (found.isEmpty ? RoomSearch.retryWhenNone : RoomSearch.refresh)
    }

    /// Whether a connection may be closed to make room, and its rank. Clients must expect a
    /// kept-alive connection to close at any time between requests (RFC 9112 §9.3.1), so these
    /// qualify: one answered and lingering before its close (RFC 9112 §9.6; its answer is out),
    /// and one that has waited at least `EventLoop.idleBeforeMakingRoom` for a request whose head
    /// is not complete (idle, kept alive or opened and silent, or sending its head slowly). The
    /// minimum wait keeps a burst of new connections from closing each other (or a busy keep-alive
    /// client between two requests) before they send anything. Never one whose request is with a
    /// handler, whose answer is going out or whose body is arriving (the body rate limits those).
    private func roomCandidate(_ id: UInt64, _ slot: Slot, now: UInt64) -> Mailbox.RoomCandidate? {
        let c = slot.connection
        guard !slot.handedOff && !slot.refused && c.hot.out.isEmpty else { return nil }
        let since: UInt64, received: Int
        switch c.machine.state {
        case .lingering(let lingering):
            return .init(thread: index, id: id, lingering: true, since: lingering, bytesPerSecond: 0)
        case .idle(let idle) where c.buffer.isEmpty: (since, received) = (idle, 0)
        case .readingHead(let waiting): (since, received) = (waiting, c.buffer.count)
        default: return nil
        }
        guard since + loop.idleBeforeMakingRoom <= now else { return nil }
        let rate = Double(received) * 1000 / Double(max(1, now - since))
        return .init(thread: index, id: id, lingering: false, since: since, bytesPerSecond: rate)
    }
}
