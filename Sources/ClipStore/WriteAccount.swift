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

/// The observers of one store (a `RegistryPool`'s connections share one set), held strongly until
/// removed: an observer must not own the store, or neither is ever freed (the HTTP API registers its
/// `Last-Modified` clock, not itself). Not weakly: a weak reference gives its object a side table,
/// and every retain and release of the read model and the API on the hot paths then takes the
/// runtime's slow path (callgrind: about 370 instructions a resolve request, docs/performance.md).
public final class WriteObservers: Sendable {
    private let observers = Locked<[any WriteObserver]>([])

    public init() {}

    public func add(_ observer: any WriteObserver) {
        observers.withLock { $0.append(observer) }
    }

    public func remove(_ observer: any WriteObserver) {
        observers.withLock { $0.removeAll { $0 === observer } }
    }

    /// Each observer, in the order added.
    func announce(_ account: WriteAccount) {
        for observer in observers.withLock({ $0 }) { observer.registryDidCommit(account) }
    }
}
