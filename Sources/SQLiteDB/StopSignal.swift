import CSQLite

/// A flag shared by connections whose work must end early once it is raised: their running and
/// later statements fail with SQLITE_INTERRUPT (a transaction rolls back) and a wait for a lock
/// gives up with SQLITE_BUSY. Raising it is safe from any thread.
public final class StopSignal: @unchecked Sendable {
    let flag: UnsafeMutablePointer<Int32>

    public init() {
        flag = .allocate(capacity: 1)
        flag.initialize(to: 0)
    }

    deinit { flag.deallocate() }

    public func raise() { csqlite_raise(flag) }

    public var isRaised: Bool { csqlite_is_raised(flag) != 0 }
}
