import CSQLite

/// A flag shared by connections whose work must end early once it is raised: their running and
/// later statements fail with SQLITE_INTERRUPT (a transaction rolls back) and a wait for a lock
/// gives up with SQLITE_BUSY. Raising it is safe from any thread.
/// `@unchecked Sendable`: not a lock's job (no Mutex): the flag is touched only through C atomics
/// (`csqlite_raise`, `csqlite_is_raised`), and SQLite's progress handler needs its address.
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
