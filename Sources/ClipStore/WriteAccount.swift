public import ClipCore
import Locking

/// What one committed write transaction changed, as the store tells its observers after the commit
/// (docs/architecture.md#the-path-of-a-write). Built while the transaction runs, by the store's own
/// steps (`Registry.recordChange`, the outbox, the AASA invariant's notes), never by the caller; a
/// transaction that rolls back throws its account away.
public struct WriteAccount: Sendable, Equatable {
    /// Experiences created or changed (any action but `remove`), by id, each once, in the order first changed.
    public internal(set) var experiencesChanged: [Int64] = []
    /// Experiences removed, by id, each once.
    public internal(set) var experiencesRemoved: [Int64] = []
    /// The other kinds of object that changed (apps, clips, domains, tokens, webhooks, …), each once.
    public internal(set) var otherChanges: [ChangeEntity] = []
    /// Hosts whose AASA the transaction added to, changed or took from (the AASA invariant's notes), sorted.
    public internal(set) var aasaHosts: [String] = []
    /// The webhook events written to the outbox, in order.
    public internal(set) var events: [WebhookEventType] = []
    /// The last change record the transaction wrote: its id and time as stored.
    public internal(set) var lastChange: ChangeMark?
    /// The experiences in either list, so that each is listed once whatever the size of the transaction.
    private var experiencesSeen: Set<Int64> = []

    public init() {}

    /// Nothing a reader could see changed: a committed transaction with an empty account is not announced.
    public var isEmpty: Bool { lastChange == nil && aasaHosts.isEmpty && events.isEmpty }

    mutating func noteChange(_ entity: ChangeEntity, id: String, action: ChangeAction, record: ChangeMark) {
        lastChange = record
        guard entity == .experience, let number = Int64(id) else {
            if !otherChanges.contains(entity) { otherChanges.append(entity) }
            return
        }
        let isNew = experiencesSeen.insert(number).inserted
        if action == .remove {
            if !isNew { experiencesChanged.removeAll { $0 == number } }
            if isNew || !experiencesRemoved.contains(number) { experiencesRemoved.append(number) }
        } else if isNew {
            experiencesChanged.append(number)
        }
    }

    /// An import's chunk of new experiences: new ids, so no search for duplicates.
    mutating func noteCreated(experiences ids: some Sequence<Int64>, record: ChangeMark) {
        for id in ids where experiencesSeen.insert(id).inserted { experiencesChanged.append(id) }
        lastChange = record
    }
}

/// A change record's id and time, as stored (`change_record.id`, `at`).
public struct ChangeMark: Sendable, Equatable {
    public let id: Int64
    public let at: String
}

/// Told of every write transaction committed through a store that has it registered
/// (`WriteObservers.add`), once per transaction, after the commit and outside it: what it does
/// cannot undo the write. Refusing a write is the store's own business, before the commit
/// (the AASA invariant), never an observer's. Called on the writing thread: return quickly.
public protocol WriteObserver: AnyObject, Sendable {
    func registryDidCommit(_ account: WriteAccount)
}

/// The observers of one store (a `RegistryPool`'s connections share one set). Held weakly, so
/// that an observer that owns the store (the HTTP API owns its pool) makes no cycle.
public final class WriteObservers: Sendable {
    private struct Entry: @unchecked Sendable {
        // @unchecked: a weak reference to a Sendable observer, read and written under the lock only.
        weak var observer: (any WriteObserver)?
    }
    private let entries = Locked<[Entry]>([])

    public init() {}

    public func add(_ observer: any WriteObserver) {
        entries.withLock { $0.append(Entry(observer: observer)) }
    }

    /// Each observer still alive, in the order added.
    func announce(_ account: WriteAccount) {
        let observers = entries.withLock { entries in
            entries.removeAll { $0.observer == nil }
            return entries.compactMap(\.observer)
        }
        for observer in observers { observer.registryDidCommit(account) }
    }
}
