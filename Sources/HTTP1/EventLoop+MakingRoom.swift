extension EventLoop.Table {
    /// At the connection cap, a new client is served rather than refused while a connection sits
    /// idle (kept alive, or opened and silent): the one idle longest, now owned by the caller to
    /// close quietly, as its idle timeout would. Clients must expect a kept-alive connection to
    /// close at any time between requests (RFC 9112 §9.3.1, §9.5). nil: none is idle.
    mutating func takeLongestIdle() -> Connection? {
        var longest: (id: UInt64, since: UInt64)?
        for (id, slot) in slots where !slot.busy && !slot.refused && slot.connection.buffer.isEmpty {
            guard case .idle(let since) = slot.connection.machine.state, since < longest?.since ?? .max else { continue }
            longest = (id, since)
        }
        guard let longest else { return nil }
        slots[longest.id]?.busy = true
        return slots[longest.id]?.connection
    }
}
