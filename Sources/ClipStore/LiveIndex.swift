import ClipCore
import Dispatch
import Foundation
import SQLiteDB

/// The server's read model (issue #4): an `ExperienceIndex` of the whole registry and each
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
/// millisecond, and at once after a write this process made (`noteLocalWrite`): a write through
/// the API is seen by the next read; a write by another process within a millisecond.
public final class LiveIndex: @unchecked Sendable {
    public struct AASAFile: Sendable {
        public let bytes: [UInt8]
        /// A strong validator: the first 128 bits of the bytes' SHA-256, quoted (RFC 9110 §8.8.3).
        public let etag: String
    }

    /// More new change records than this rebuild the index instead of replaying them.
    public static let replayLimit = 2_000
    /// Unknown hosts remembered as having no AASA, at most (a client cannot grow the cache unbounded).
    static let maxNegativeEntries = 10_000

    private let registry: Registry
    private let lock = NSLock()
    private var index = ExperienceIndex()
    private var dataVersion: Int64 = -1
    private var lastChange: (id: Int64, at: String) = (0, "")
    private var aasaFiles: [String: AASAFile?] = [:]
    private var negativeEntries = 0
    private var lastCheck: UInt64 = 0
    private var localWrite = true
    /// How stale a write by another process may be seen (default 1 ms; 0 asks on every read).
    private let checkIntervalNanoseconds: UInt64

    /// Opens its own connection and builds the index.
    public init(path: String, checkIntervalNanoseconds: UInt64 = 1_000_000) throws(RegistryError) {
        self.checkIntervalNanoseconds = checkIntervalNanoseconds
        registry = try Registry(path: path, actor: "index")
        lock.lock()
        defer { lock.unlock() }
        try refreshLocked()
    }

    public var count: Int { lock.withLock { index.count } }

    /// The index as it is now (a copy-on-write value: later changes do not reach it), for
    /// measuring lookups without the lock (clip-bench).
    public func snapshot() -> ExperienceIndex { lock.withLock { index } }

    /// Resolves from memory, after catching up with the database.
    public func resolve(_ invocationURL: String, preferences: [Language]) throws(RegistryError) -> Resolution {
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return Resolver.unresolvable(invocationURL, problem: error) }
        lock.lock()
        defer { lock.unlock() }
        try refreshLocked()
        return index.resolve(invocationURL, url: url, preferences: preferences)
    }

    /// The AASA of `host` (already normalized) from the cache, generated on a miss; nil when the
    /// host has none.
    public func aasa(host: String) throws(RegistryError) -> AASAFile? {
        lock.lock()
        defer { lock.unlock() }
        try refreshLocked()
        if let cached = aasaFiles[host] { return cached }
        let file: AASAFile?
        do {
            let bytes = try registry.aasa(host: host)
            file = AASAFile(bytes: bytes, etag: "\"" + SHA256.hexDigest(bytes).prefix(32) + "\"")
        } catch .notFound {
            file = nil
        } catch .invalid {
            file = nil
        }
        if file == nil {
            guard negativeEntries < Self.maxNegativeEntries else { return nil }
            negativeEntries += 1
        }
        aasaFiles[host] = .some(file)
        return file
    }

    /// Called after this process committed a write (the API's writes), so that the next read
    /// asks the database instead of waiting for the next periodic check.
    public func noteLocalWrite() {
        lock.lock()
        localWrite = true
        lock.unlock()
    }

    // MARK: Keeping in step

    private func refreshLocked() throws(RegistryError) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard localWrite || now &- lastCheck >= checkIntervalNanoseconds else { return }
        localWrite = false
        lastCheck = now
        try registry.guarded {
            let version = try registry.db.query("PRAGMA data_version").first!.int("data_version")
            guard Int64(version) != dataVersion else { return }
            dataVersion = Int64(version)
            try registry.db.read {
                let continues = try lastChange.id == 0
                    || (registry.db.query("SELECT at FROM change_record WHERE id = ?", [.integer(lastChange.id)]).first?.string("at")) == lastChange.at
                let pending = try registry.db.query("SELECT count(*) AS n FROM change_record WHERE id > ?", [.integer(lastChange.id)]).first!.int("n")
                if !continues || pending > Self.replayLimit || index.count == 0 && lastChange.id == 0 {
                    try rebuild()
                } else if pending > 0 {
                    try replay()
                }
            }
        }
    }

    private func rebuild() throws {
        var fresh = ExperienceIndex()
        try registry.db.forEachRow(Registry.experienceColumns + " WHERE e.removed_at IS NULL") { row in
            fresh.upsert(try registry.readExperience(row))
        }
        fresh.setFallbacks(try allFallbacks())
        index = fresh
        aasaFiles = [:]
        negativeEntries = 0
        try rememberLastChange()
    }

    private func replay() throws {
        var othersChanged = false
        for row in try registry.db.query("SELECT id, at, entity, entity_id FROM change_record WHERE id > ? ORDER BY id", [.integer(lastChange.id)]) {
            lastChange = (Int64(try row.int("id")), try row.string("at"))
            guard try row.string("entity") == "experience", let id = Int64(try row.string("entity_id")) else {
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
            negativeEntries = 0
        }
    }

    private func forgetAASA(_ host: String) {
        if case .some(.none) = aasaFiles.removeValue(forKey: host) { negativeEntries -= 1 }
    }

    private func rememberLastChange() throws {
        if let row = try registry.db.query("SELECT id, at FROM change_record ORDER BY id DESC LIMIT 1").first {
            lastChange = (Int64(try row.int("id")), try row.string("at"))
        } else {
            lastChange = (0, "")
        }
    }

    private func allFallbacks() throws -> [String: [DefaultFallback]] {
        var result: [String: [DefaultFallback]] = [:]
        for row in try registry.db.query("SELECT DISTINCT host FROM domain_association") {
            let host = try row.string("host")
            let fallbacks = try registry.defaultFallbacks(host: host)
            if !fallbacks.isEmpty { result[host] = fallbacks }
        }
        return result
    }
}
