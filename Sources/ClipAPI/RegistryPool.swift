import ClipStore
import Foundation
import SQLiteDB

/// A few `Registry` connections shared by the server's threads: a request checks one out,
/// uses it alone, and returns it. SQLite in WAL mode lets readers run beside the one writer.
public final class RegistryPool: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var idle: [Registry] = []
    private var created = 0
    private let capacity: Int
    private let available: DispatchSemaphore
    /// The in-memory read model that resolve and the served AASA use (issue #4).
    public let index: LiveIndex
    /// Raised at the server's drain deadline: every pooled connection's work stops.
    private let stop = StopSignal()

    /// Opens (and migrates) the database once, so that a bad file fails at start-up.
    public init(path: String, capacity: Int = 8) throws(RegistryError) {
        self.path = path
        self.capacity = capacity
        available = DispatchSemaphore(value: capacity)
        let first = try Registry(path: path, actor: "api", stop: stop)
        idle.append(first)
        created = 1
        index = try LiveIndex(path: path)
    }

    /// Ends the database work of every request under way, and of any started later: their
    /// transactions roll back and they answer 503 (`RegistryError.interrupted` or `.busy`).
    public func interruptWork() { stop.raise() }

    public func with<T>(actor: String, _ body: (Registry) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let registry: Registry = try lock.withLock {
            if let r = idle.popLast() { return r }
            created += 1
            return try Registry(path: path, actor: "api", stop: stop)
        }
        defer { lock.withLock { idle.append(registry) } }
        registry.actor = actor
        return try body(registry)
    }
}
