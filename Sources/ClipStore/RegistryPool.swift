public import ClipCore
public import Foundation
import SQLiteDB
import Locking

/// A few `Registry` connections shared by the server's threads: a request checks one out,
/// uses it alone, and returns it. SQLite in WAL mode lets readers run beside the one writer.
public final class RegistryPool: Sendable {
    private let path: String
    /// A connection not checked out. `@unchecked Sendable`: a Registry is not thread-safe, but the
    /// pool gives each to one request at a time, so it only ever moves between threads whole.
    private struct Parked: @unchecked Sendable { let registry: Registry }
    private let idle: Locked<[Parked]>
    private let capacity: Int
    private let available: DispatchSemaphore
    /// The in-memory read model that resolve and the served AASA use (docs/architecture.md#the-read-model).
    public let index: LiveIndex
    /// Told of every write committed through the pool's connections (the read model first; the
    /// server adds the webhook worker and the HTTP API's cache).
    public let observers = WriteObservers()
    /// Raised at the server's drain deadline: every pooled connection's work stops.
    private let stop = StopSignal()
    /// The clock of every connection and of the read model's answers (the tests' seam; production's is the system's).
    private let now: @Sendable () -> Date

    /// Opens (and migrates) the database once, so that a bad file fails at start-up. The read model
    /// starts from the one saved at `savedReadModel` when it can (`LiveIndex.init`), and asks the
    /// database for other processes' writes at most every `checkIntervalNanoseconds`.
    public init(
        path: String, capacity: Int = 8, savedReadModel: String? = nil, checkIntervalNanoseconds: UInt64 = 1_000_000,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(RegistryError) {
        self.path = path
        self.now = now
        self.capacity = capacity
        available = DispatchSemaphore(value: capacity)
        let first = try Registry(path: path, actor: "api", now: now, stop: stop)
        first.observers = observers
        idle = Locked([Parked(registry: first)])
        index = try LiveIndex(path: path, checkIntervalNanoseconds: checkIntervalNanoseconds, savedReadModel: savedReadModel)
        observers.add(index)
    }

    /// The moment the read model answers for (`Registry.instant`).
    public var instant: Instant { Instant(seconds: Int64(now().timeIntervalSince1970.rounded(.down))) }

    /// Ends the database work of every request under way, and of any started later: their
    /// transactions roll back and they answer 503 (`RegistryError.interrupted` or `.busy`).
    public func interruptWork() { stop.raise() }

    /// Whether `interruptWork` was called: long work outside the database (an App Store Connect apply) stops too.
    public var isInterrupted: Bool { stop.isRaised }

    public func with<T>(actor: String, _ body: (Registry) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let registry = try idle.withLock { $0.popLast() }?.registry ?? Registry(path: path, actor: "api", now: now, stop: stop)
        registry.observers = observers
        let parked = Parked(registry: registry)
        defer { idle.withLock { $0.append(parked) } }
        registry.actor = actor
        return try body(registry)
    }
}
