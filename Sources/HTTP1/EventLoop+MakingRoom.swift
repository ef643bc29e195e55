extension EventLoop.Table {
    /// At the connection cap, a new client is served rather than refused while a connection has
    /// nothing more to say: one answered and lingering before its close (RFC 9112 §9.6; the answer
    /// is out), else one idle for at least `idleAtLeast` ms (kept alive, or opened and silent),
    /// whichever has waited longest. Clients must expect a kept-alive connection to close at any
    /// time between requests (RFC 9112 §9.3.1). The minimum idle time keeps a burst of new
    /// connections from closing each other (or a busy keep-alive client between two requests)
    /// before they send anything: then the newcomer is refused as before. The connection is now
    /// owned by the caller, to close quietly. nil: none qualifies.
    mutating func takeConnectionToMakeRoom(now: UInt64, idleAtLeast: UInt64) -> Connection? {
        var best: (id: UInt64, lingering: Bool, since: UInt64)?
        for (id, slot) in slots where !slot.busy && !slot.refused && slot.connection.hot.out.isEmpty {
            let lingering: Bool, since: UInt64
            switch slot.connection.machine.state {
            case .lingering(let s): (lingering, since) = (true, s)
            case .idle(let s) where slot.connection.buffer.isEmpty && s + idleAtLeast <= now: (lingering, since) = (false, s)
            default: continue
            }
            if let best, best.lingering && !lingering || (best.lingering == lingering && best.since <= since) { continue }
            best = (id, lingering, since)
        }
        guard let best else { return nil }
        slots[best.id]?.busy = true
        return slots[best.id]?.connection
    }
}

extension EventLoop {
    /// How long a connection must have been idle before it is closed to make room (at most 1 s).
    var idleBeforeMakingRoom: UInt64 { min(1_000, timeouts.idle) }
}
