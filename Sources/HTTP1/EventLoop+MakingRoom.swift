extension EventLoop.Table {
    /// At the connection cap, a new client is served rather than refused while a connection has
    /// nothing more to say: one answered and lingering before its close (RFC 9112 §9.6; the answer
    /// is out), else one idle (kept alive, or opened and silent), whichever has waited longest.
    /// Clients must expect a kept-alive connection to close at any time between requests (RFC 9112
    /// §9.3.1). The connection is now owned by the caller, to close quietly. nil: none qualifies.
    mutating func takeConnectionToMakeRoom() -> Connection? {
        var best: (id: UInt64, lingering: Bool, since: UInt64)?
        for (id, slot) in slots where !slot.busy && !slot.refused && slot.connection.unsent == nil {
            let lingering: Bool, since: UInt64
            switch slot.connection.machine.state {
            case .lingering(let s): (lingering, since) = (true, s)
            case .idle(let s) where slot.connection.buffer.isEmpty: (lingering, since) = (false, s)
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
