public import ClipCore
import Dispatch
import Glibc
import SQLiteDB
import StrictJSON
import Locking

/// The server's read model: an `ExperienceIndex` of the whole registry and each
/// host's AASA bytes, kept in step with the database so that reads never touch the disk.
///
/// Every read first asks SQLite whether anything committed since (`PRAGMA data_version`, which
/// changes when another connection, in this process or another, commits; sqlite.org/pragma.html
/// #pragma_data_version). If so it applies the new change records: experiences are reloaded one
/// by one, and any other change (domains, default experiences, apps, applinks) rebuilds the
/// default fallbacks and forgets the cached AASA files. A large batch (an import) or a change log
/// that no longer continues the one seen (a restore) rebuilds everything. A read after a
/// committed write therefore sees it.
///
/// Asking SQLite costs a shared-memory lock (an `fcntl`), so it is asked at most once a
/// millisecond, and at once after a write committed through a registry that has it among its
/// observers (`registryDidCommit`; a `RegistryPool` registers its index): a write through the API is
/// seen by the next read; a write by another process (clipctl on the file) within a millisecond.
public final class LiveIndex: WriteObserver {
    public struct AASAFile: Sendable {
        public let bytes: [UInt8]
        /// A strong validator: the first 128 bits of the bytes' SHA-256, quoted (RFC 9110 §8.8.3).
        public let etag: String
    }

    /// More new change records than this rebuild the index instead of replaying them.
    public static let replayLimit = 2_000

    /// Everything a read or a catch-up changes, behind one lock (the registry's connection too:
    /// one thread at a time uses it).
    private let state: Locked<State>

    /// How the index was made at start-up.
    public enum Start: Sendable, Equatable {
        /// Read from the saved read model, then `replayed` change records after it.
        case saved(replayed: Int)
        /// Built from the rows; `ignoring` says why a saved read model beside the database was not used.
        case built(ignoring: String?)
    }

    public let start: Start

    /// Opens its own connection and builds the index: from the read model saved at `savedReadModel`
    /// (`SavedReadModel`) when there is a usable one, the change records after it replayed; from the
    /// rows otherwise.
    public init(path: String, checkIntervalNanoseconds: UInt64 = 1_000_000, savedReadModel: String? = nil) throws(RegistryError) {
        var initial = State(registry: try Registry(path: path, actor: "index"), checkIntervalNanoseconds: checkIntervalNanoseconds)
        var ignoring: String?
        var saved: SavedReadModel.Position?
        if let savedReadModel {
            do throws(SavedReadModel.Problem) {
                saved = try initial.restore(from: savedReadModel)
            } catch {
                ignoring = "\(savedReadModel): \(error)"
            }
        }
        try initial.refresh()
        if let saved, !initial.rebuilt {
            start = .saved(replayed: Int(initial.lastChange.id - saved.changeID))
        } else {
            start = .built(
                ignoring: saved == nil ? ignoring : "\(savedReadModel!): the database does not continue it (a restore, or many changes)")
        }
        state = Locked(initial)
    }

    /// Saves the index, caught up with the database, to `path` (`SavedReadModel.save`); false when
    /// the file there already holds this state (nothing changed since it was read or saved).
    @discardableResult
    public func save(to path: String) throws(SavedReadModel.Problem) -> Bool {
        let current: (index: ExperienceIndex, position: SavedReadModel.Position, migrations: UInt64)
        do {
            current = try state.withLock { s in
                try s.refresh()
                return (s.index, SavedReadModel.Position(changeID: s.lastChange.id, changeAt: s.lastChange.at), try s.migrations())
            }
        } catch {
            throw SavedReadModel.Problem("cannot read the database: \(error)")
        }
        // An empty registry has no change to name: nothing worth saving.
        guard current.position.changeID > 0 else { return false }
        try SavedReadModel.checkReplaceable(path)
        if state.withLock({ $0.savedPosition == current.position }) && SavedReadModel.startsWithMagic(path) { return false }
        try SavedReadModel.save(current.index, at: current.position, migrations: current.migrations, to: path)
        state.withLock { $0.savedPosition = current.position }
        return true
    }

    public var count: Int { state.withLock { $0.index.count } }

    /// Hosts whose AASA answer is cached (for tests: bounded by the registry's hosts).
    var cachedAASACount: Int { state.withLock { $0.aasaFiles.count } }

    /// The index as it is now (a copy-on-write value: later changes do not reach it), for
    /// measuring lookups without the lock (clip-bench).
    public func snapshot() -> ExperienceIndex { state.withLock { $0.index } }

    /// Resolves from memory, after catching up with the database.
    public func resolve(_ invocationURL: String, preferences: [Language], at: Instant) throws(RegistryError) -> Resolution {
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return try Registry.unresolvable(invocationURL, problem: error) }
        return try state.withLock { (s) throws(RegistryError) -> Resolution in
            try s.refresh()
            return s.index.resolve(invocationURL, url: url, preferences: preferences, at: at)
        }
    }

    /// Appends the bytes of the resolve answer (`Resolution.json(explain: false)`) for a raw
    /// invocation URL that is plain (`PlainInvocationURL`: nearly every request) and resolves to an
    /// advanced experience, after catching up with the database; false otherwise (`out` unchanged),
    /// and the caller takes `resolve`. Normalization, probes and the answer read the URL's bytes
    /// and the index's arena: nothing is allocated once `out` has room (clip-bench counts).
    public func writeAdvancedAnswer(
        invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], at: Instant, into out: inout [UInt8]
    ) throws(RegistryError) -> Bool {
        try state.withLock { (s) throws(RegistryError) -> Bool in
            try s.refresh()
            return s.index.writeAdvancedAnswer(invocationURL, preferences: preferences, at: at, into: &out)
        }
    }

    /// `writeAdvancedAnswer`, also telling a plain URL that resolves to nothing
    /// (`ExperienceIndex.writePlainAnswer`): both from one look at the index, caught up first.
    public func writePlainAnswer(
        invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], at: Instant, into out: inout [UInt8]
    ) throws(RegistryError) -> ExperienceIndex.PlainAnswer? {
        try state.withLock { (s) throws(RegistryError) -> ExperienceIndex.PlainAnswer? in
            try s.refresh()
            return s.index.writePlainAnswer(invocationURL, preferences: preferences, at: at, into: &out)
        }
    }

    /// The answer's bytes when `resolution` is an advanced match without notes (the common
    /// case), rendered from the index's arena; nil otherwise.
    public func answerBytes(_ resolution: Resolution) -> [UInt8]? {
        guard case .advanced(let e, let language) = resolution.match, resolution.notes.isEmpty else { return nil }
        if let bytes = state.withLock({ $0.index.advancedAnswerBytes(resolution) }) { return bytes }
        // The index moved on since `resolution` was made: render the experience it holds.
        return Resolution.advancedAnswerBytes(
            invocationURL: resolution.invocationURL, renderedExperience: JSONWriter.bytes(Resolution.experienceJSON(e, language: language)))
    }

    /// The AASA of `host` (already normalized) from the cache, generated on a miss; nil when the
    /// host has none.
    public func aasa(host: String) throws(RegistryError) -> AASAFile? {
        try state.withLock { (s) throws(RegistryError) -> AASAFile? in
            try s.refresh()
            guard s.aasaHosts.contains(host) else { return nil }
            if let cached = s.aasaFiles[host] { return cached }
            let file: AASAFile?
            do throws(RegistryError) {
                let bytes = try s.registry.aasa(host: host)
                file = AASAFile(bytes: bytes, etag: Registry.aasaETag(bytes))
            } catch .notFound {
                file = nil
            } catch .invalid {
                file = nil
            }
            s.aasaFiles[host] = .some(file)
            return file
        }
    }

    /// The newest change record's id and time (ISO 8601, as stored), once caught up with the database:
    /// the last moment anything a public answer shows could have changed.
    public func lastChange() throws(RegistryError) -> (id: Int64, at: String) {
        try state.withLock { (s) throws(RegistryError) -> (id: Int64, at: String) in
            try s.refresh()
            return s.lastChange
        }
    }

    /// A write this process committed (`WriteObservers`): the next read asks the database at once
    /// instead of at the next periodic check, and replays the change records the account ends with.
    public func registryDidCommit(_ account: WriteAccount) {
        state.withLock { $0.localWrite = true }
    }
}

extension LiveIndex {
    // MARK: Keeping in step

    struct State {
        let registry: Registry
        /// How stale a write by another process may be seen (default 1 ms; 0 asks on every read).
        let checkIntervalNanoseconds: UInt64
        var index = ExperienceIndex()
        var dataVersion: Int64 = -1
        var lastChange: (id: Int64, at: String) = (0, "")
        /// Hosts with a clip, applinks or webcredentials: the only ones whose AASA is generated and
        /// cached, so that the cache is bounded by the registry, not by the `Host` values clients send.
        var aasaHosts: Set<String> = []
        var aasaFiles: [String: AASAFile?] = [:]
        var lastCheck: UInt64 = 0
        var localWrite = true
        /// Whether the index was built from the rows (not read from a saved read model and caught up).
        var rebuilt = false
        /// The change the saved read model file holds, when it was read or written by this process.
        var savedPosition: SavedReadModel.Position?

        init(registry: Registry, checkIntervalNanoseconds: UInt64) {
            self.registry = registry
            self.checkIntervalNanoseconds = checkIntervalNanoseconds
        }

        mutating func refresh() throws(RegistryError) {
            let now = DispatchTime.now().uptimeNanoseconds
            guard localWrite || now &- lastCheck >= checkIntervalNanoseconds else { return }
            localWrite = false
            lastCheck = now
            let registry = registry
            try registry.guarded {
                // Read in place: a `Row` would allocate on every check, which the served answer
                // otherwise does not (clip-bench's allocations per served answer).
                var version: Int64 = -1
                try registry.db.forEachRowInPlace("PRAGMA data_version") { version = $0.int64(0) }
                guard version != dataVersion else { return }
                dataVersion = version
                try registry.db.read {
                    let continues =
                        try lastChange.id == 0
                        || (registry.db.query("SELECT at FROM change_record WHERE id = ?", [.integer(lastChange.id)]).first?.string("at"))
                            == lastChange.at
                    let pending = try registry.db.query("SELECT count(*) AS n FROM change_record WHERE id > ?", [.integer(lastChange.id)])
                        .first!.int("n")
                    // A restore replaced everything, whatever history the backup shares with what we saw.
                    let restored = try !registry.db.query(
                        "SELECT 1 FROM change_record WHERE id > ? AND entity = ? AND action = ? LIMIT 1",
                        [
                            .integer(lastChange.id), .text(ChangeEntity.registry.rawValue),
                            .text(ChangeAction.restore.rawValue),
                        ]
                    ).isEmpty
                    if !continues || restored || pending > LiveIndex.replayLimit || index.count == 0 && lastChange.id == 0 {
                        try rebuild()
                    } else if pending > 0 {
                        try replay()
                    }
                }
            }
        }

        /// Reads the saved read model at `path`, and the few things it leaves out (fallbacks, the
        /// hosts with an AASA) from the database; `refresh` then replays the changes after it.
        mutating func restore(from path: String) throws(SavedReadModel.Problem) -> SavedReadModel.Position? {
            let migrations: UInt64
            do { migrations = try self.migrations() } catch { throw SavedReadModel.Problem("cannot read the database: \(error)") }
            guard let loaded = try SavedReadModel.load(path, migrations: migrations) else { return nil }
            var index = loaded.index
            do {
                index.setFallbacks(try allFallbacks())
                aasaHosts = try registry.hostsWithAASA()
            } catch {
                throw SavedReadModel.Problem("cannot read the database: \(error)")
            }
            self.index = index
            lastChange = (loaded.position.changeID, loaded.position.changeAt)
            savedPosition = loaded.position
            return loaded.position
        }

        /// FNV-1a over the names of the migrations applied: a saved read model is read only by the
        /// schema it was written under (a migration may change rows without change records).
        func migrations() throws -> UInt64 {
            try LiveIndex.State.hash(
                registry.db.query("SELECT name FROM schema_migrations ORDER BY name").map { try $0.string("name") }.joined(separator: "\n")
                    .utf8)
        }

        mutating func rebuild() throws {
            rebuilt = true
            var fresh = try loadAll()
            fresh.setFallbacks(try allFallbacks())
            index = fresh
            aasaFiles = [:]
            aasaHosts = try registry.hostsWithAASA()
            try rememberLastChange()
        }

        /// Applies the change records after `lastChange`: an experience's is reloaded on its own;
        /// any other (or one this version does not know) rebuilds the fallbacks and the AASA cache.
        mutating func replay() throws {
            var othersChanged = false
            for row in try registry.db.query(
                "SELECT id, at, entity, entity_id FROM change_record WHERE id > ? ORDER BY id", [.integer(lastChange.id)])
            {
                lastChange = (Int64(try row.int("id")), try row.string("at"))
                guard ChangeEntity(rawValue: try row.string("entity")) == .experience, let id = Int64(try row.string("entity_id")) else {
                    othersChanged = true
                    continue
                }
                let before = index.experience(id: id)
                if let now = try registry.loadExperience(id: id) {
                    index.upsert(now)
                    forgetAASA(now.url.host)
                } else {
                    index.remove(id: id)
                }
                // Hosts that generate applinks from experiences change with them.
                if let before { forgetAASA(before.url.host) }
            }
            if othersChanged {
                index.setFallbacks(try allFallbacks())
                aasaFiles = [:]
                aasaHosts = try registry.hostsWithAASA()
            }
        }

        /// Every experience that is not removed, read in two ordered scans (rows, then their
        /// localizations) straight from SQLite's column bytes into the index's arena: no `Row`, no
        /// String per column (the start-up cost of a million). Clip IDs are shared between
        /// experiences; timestamps are left out (no answer served from the index shows them).
        func loadAll() throws -> ExperienceIndex {
            var index = ExperienceIndex(
                capacity: try registry.db.query("SELECT count(*) AS n FROM advanced_experience WHERE removed_at IS NULL").first!.int("n"))
            Self.adviseHugePages(index)
            // The clips' App IDs, once each (a clip's team is its app's), found by the bundle
            // ID's bytes: a probe by hash, then a comparison.
            var clips: [UInt64: [(bundle: [UInt8], number: Int32)]] = [:]
            for row in try registry.db.query("SELECT c.bundle_id, a.team_id FROM clip c JOIN app a ON a.bundle_id = c.app_bundle_id") {
                let bundle = try row.string("bundle_id")
                let number = index.clipNumber(AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(bundle)))
                clips[Self.hash(bundle.utf8), default: []].append((Array(bundle.utf8), number))
            }
            func clip(_ bundle: UnsafeBufferPointer<UInt8>) -> Int32? {
                clips[Self.hash(bundle)]?.first { $0.bundle.elementsEqual(bundle) }?.number
            }
            // The fields' columns from 3 on (`LoaderColumns`), the version last.
            var columns = LoaderColumns(first: 3)
            let version = Int32(3 + ExperienceRow.fieldColumns.count)
            try registry.db.forEachRowInPlace(
                "SELECT id, url, clip_bundle_id, " + ExperienceRow.fieldColumns.joined(separator: ", ")
                    + ", version FROM advanced_experience WHERE removed_at IS NULL ORDER BY id"
            ) { row in
                guard let url = row.text(1), let bundle = row.text(2), let clip = clip(bundle) else { throw LoaderColumns.unexpected }
                columns.row = row
                try index.load(id: row.int64(0), url: url, clip: clip, version: row.int64(version), columns: &columns)
            }
            // Ordered by experience: each one's localizations come together (`loadLocalization`).
            try registry.db.forEachRowInPlace(
                "SELECT experience_id, language, title, subtitle FROM advanced_experience_localization ORDER BY experience_id"
            ) { row in
                guard let code = row.text(1), let title = row.text(2), let subtitle = row.text(3), let language = Self.languages[code]
                else {
                    return
                }
                index.loadLocalization(id: row.int64(0), language: language, title: title, subtitle: subtitle)
            }
            index.finishLoading()
            return index
        }

        /// Asks for transparent huge pages (madvise(2) MADV_HUGEPAGE; Debian's THP mode is "madvise")
        /// on the arena's buffers while they are still untouched, so that loading faults them in as
        /// 2 MiB pages: a lookup at a million experiences reads a table slot, a record and URL bytes
        /// scattered over ~250 MiB, and with 4 KiB pages each of those reads also missed the TLB.
        static func adviseHugePages(_ index: ExperienceIndex) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            index.forEachArenaRegion { start, count in
                // Whole pages inside the buffer only (madvise wants an aligned start).
                let first = (Int(bitPattern: start) + page - 1) / page * page
                let end = (Int(bitPattern: start) + count) / page * page
                guard end - first >= 2 << 20, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
                _ = madvise(aligned, end - first, MADV_HUGEPAGE)
            }
        }

        /// FNV-1a, to find short texts (bundle IDs, enumeration values) by their bytes.
        static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            return h
        }

        static let languages = EnumerationTable<Language>()

        mutating func forgetAASA(_ host: String) {
            aasaFiles.removeValue(forKey: host)
        }

        mutating func rememberLastChange() throws {
            if let row = try registry.db.query("SELECT id, at FROM change_record ORDER BY id DESC LIMIT 1").first {
                lastChange = (Int64(try row.int("id")), try row.string("at"))
            } else {
                lastChange = (0, "")
            }
        }

        func allFallbacks() throws -> [String: [DefaultFallback]] {
            var result: [String: [DefaultFallback]] = [:]
            for row in try registry.db.query("SELECT DISTINCT host FROM domain_association") {
                let host = try row.string("host")
                let fallbacks = try registry.defaultFallbacks(host: host)
                if !fallbacks.isEmpty { result[host] = fallbacks }
            }
            return result
        }
    }
}

/// An enumeration's cases by the bytes of their raw values, for reading stored columns in place.
struct EnumerationTable<E: AppleEnumeration>: Sendable {
    private let byHash: [UInt64: E]

    init() { byHash = Dictionary(uniqueKeysWithValues: E.allCases.map { (LiveIndex.State.hash($0.spelling.utf8), $0) }) }

    subscript(bytes: UnsafeBufferPointer<UInt8>) -> E? {
        guard let value = byHash[LiveIndex.State.hash(bytes)], value.spelling.utf8.elementsEqual(bytes) else { return nil }
        return value
    }

    /// The case, or the error `E.parse` gives for a value this version does not know.
    func parse(_ bytes: UnsafeBufferPointer<UInt8>, field: String) throws(ValidationFailure) -> E {
        if let value = self[bytes] { return value }
        return try E.parse(String(decoding: bytes, as: UTF8.self), field: field)
    }
}
