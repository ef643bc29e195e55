/// A graceful stop as a value: told how many connections are open and how many requests are in
/// flight at a monotonic millisecond, it says whether to wait, to ask the application to end its
/// handlers early (once, at the drain deadline), or to finish. No I/O, no clock.
///
/// A shutdown never lies: a request whose handler started is always answered before the stop
/// finishes. Until the deadline open connections may finish their requests; after it, what is
/// still in flight is interrupted (not cut off) and awaited.
struct DrainSchedule: Equatable, Sendable {
    enum Action: Equatable, Sendable {
        /// Wait for a connection to close or a request to finish, at most until `until` (nil: no limit).
        case wait(until: UInt64?)
        /// The deadline passed with these requests in flight: make their handlers end early.
        case interrupt(inFlight: Int)
        case finish
    }

    let deadline: UInt64
    private(set) var interrupted = false

    init(now: UInt64, drainMilliseconds: UInt64) { deadline = now + drainMilliseconds }

    mutating func next(now: UInt64, connections: Int, inFlight: Int) -> Action {
        if interrupted { return inFlight > 0 ? .wait(until: nil) : .finish }
        if connections == 0 { return .finish }
        if now < deadline { return .wait(until: deadline) }
        interrupted = true
        return inFlight > 0 ? .interrupt(inFlight: inFlight) : .finish
    }
}
