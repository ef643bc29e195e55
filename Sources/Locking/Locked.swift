public import Synchronization

/// A value behind a lock: the standard library's `Mutex`, and what the project uses wherever a
/// lock is all a type needs.
///
/// Why not `Mutex` itself: on Linux a contended `Mutex` waits in the standard library's futex code,
/// which ThreadSanitizer does not instrument, so it cannot see that one holder's writes happen
/// before the next holder's reads and reports races that are not there. Built with
/// `-DTHREAD_SANITIZER` (`scripts/sanitizers thread`), every critical section also acquires and
/// releases an atomic, which ThreadSanitizer does see; other builds compile to the bare `Mutex`.
///
/// `withLock` is inlinable so that callers in other modules specialize it: unspecialized, every
/// call instantiated `Mutex<Value>`'s generic metadata (callgrind: 6% of an AASA request in
/// `swift_getGenericMetadata` under `Locked.withLock`).
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    #if THREAD_SANITIZER
        @usableFromInline let order = Atomic<Int>(0)
    #endif

    public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if THREAD_SANITIZER
                order.add(1, ordering: .acquiring)
                defer { order.add(1, ordering: .releasing) }
            #endif
            return try body(&value)
        }
    }
}
