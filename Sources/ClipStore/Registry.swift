public import ClipCore
public import Foundation
public import SQLiteDB
import StrictJSON

/// The registry on one SQLite file: every operation of the API and clipctl that reads or writes, built
/// on the pure core. One instance per thread (it owns a connection).
public final class Registry {
    let db: Connection
    public let path: String
    /// Who makes the changes, for change records (a user or token name; never a secret).
    public var actor: String
    /// Whether this connection notes the hosts whose AASA a write changes (`trackAASAChanges`).
    var tracksAASAChanges = false
    /// The webhook endpoints, read once in a write transaction at its first event (Registry+Webhooks.swift).
    var webhookEndpointsOfTransaction: [WebhookEndpoint]?
    /// What the write transaction under way has changed so far (`write`); nil outside one.
    var accountOfTransaction: WriteAccount?
    /// Told of each write transaction this registry commits (`WriteObservers`): a server's pool
    /// shares one set among its connections; nil for a registry nobody observes (clipctl on the file).
    public var observers: WriteObservers?
    /// While an import writes: the one time its rows and change records carry (`timestamp()`). They
    /// all become visible at one commit; formatting the time for each row was 2% of a 100k-line import.
    var timestampOfImport: String?
    let now: () -> Date

    /// The moment this registry answers for: its clock (the tests' seam is `now`).
    public var instant: Instant { Instant(seconds: Int64(now().timeIntervalSince1970.rounded(.down))) }

    /// Opens (creating if needed) and migrates the database at `path`.
    /// A file that is not a database, or a database that is not ours, is refused untouched.
    /// `stop`, when given, ends this registry's database work early once raised (a server's drain deadline).
    public init(path: String, actor: String = "local", now: @escaping () -> Date = Date.init, stop: StopSignal? = nil) throws(RegistryError)
    {
        self.path = path
        self.actor = actor
        self.now = now
        do {
            var options = Connection.Options()
            options.stop = stop
            db = try Connection(path: path, options: options)
        } catch {
            throw RegistryError.from(error as? SQLiteError ?? SQLiteError(extendedCode: 1, message: "\(error)"), path: path)
        }
        try guarded {
            try Self.refuseForeign(db, path: path, doing: "change")
            do {
                try Schema.migrator.migrate(db)
            } catch Migrator.MigratorError.readOnly(let pending) {
                throw RegistryError.readOnly(
                    "the database \(path) is read-only and needs migrations \(pending.joined(separator: ", ")); open it once with write access (or with a newer copy of it)"
                )
            } catch let error as Migrator.MigratorError {
                throw RegistryError.storage("\(path): \(error)")
            }
        }
    }

    /// A registry over `connection` as it is, unmigrated: for checking a database before it is
    /// used (a restore's candidate). `path` names it in errors.
    init(checking connection: Connection, path: String) {
        self.db = connection
        self.path = path
        self.actor = "check"
        self.now = Date.init
    }

    public func close() { db.close() }

    /// Another application's SQLite database (tables, but no `schema_migrations`) is never
    /// changed: migrating or replacing it would corrupt somebody else's data.
    static func refuseForeign(_ connection: Connection, path: String, doing action: String) throws {
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map {
            try $0.string("name")
        }
        if !tables.isEmpty && !tables.contains("schema_migrations") {
            throw RegistryError.storage(
                "\(path) is an SQLite database but not a Clip Registry database (it has tables \(tables.prefix(5).joined(separator: ", "))); refusing to \(action) it"
            )
        }
    }

    /// True when the database can only be read (see `Connection.isReadOnly`): writes are refused
    /// with `RegistryError.readOnly`.
    public var isReadOnly: Bool { db.isReadOnly }

    /// Runs `body`, mapping every error to a `RegistryError` once.
    func guarded<T>(_ body: () throws -> T) throws(RegistryError) -> T {
        do {
            return try body()
        } catch let error as RegistryError {
            throw error
        } catch let error as ValidationFailure {
            throw RegistryError.from(error)
        } catch let error as SQLiteError {
            throw RegistryError.from(error, path: path)
        } catch {
            throw RegistryError.storage("\(error)")
        }
    }

    /// A write transaction (BEGIN IMMEDIATE) with errors mapped: the one write pipeline
    /// (docs/architecture.md#the-path-of-a-write). Its steps add to the transaction's account
    /// (`WriteAccount`: change records, outbox events); before the commit the store closes it
    /// (`closeTransaction`: the hosts whose AASA changed, their `aasa.changed` events, the AASA
    /// invariant, which may still refuse the whole write); after the commit the account goes to
    /// the observers (`observers`). A rolled-back or refused write announces nothing. A write inside
    /// another write joins it.
    func write<T>(_ body: () throws -> T) throws(RegistryError) -> T {
        if db.isInsideTransaction { return try guarded(body) }
        let (result, account) = try guarded { () throws -> (T, WriteAccount) in
            try trackAASAChanges()
            webhookEndpointsOfTransaction = nil
            accountOfTransaction = WriteAccount()
            defer {
                webhookEndpointsOfTransaction = nil
                accountOfTransaction = nil
            }
            let result = try db.write {
                let result = try body()
                try closeTransaction()
                return result
            }
            return (result, accountOfTransaction ?? WriteAccount())
        }
        if !account.isEmpty { observers?.announce(account) }
        return result
    }

    /// The store's own steps at the end of every write transaction, before its commit, in this order:
    /// the account takes the hosts whose AASA changed (the AASA invariant's triggers noted them);
    /// the outbox writes their `aasa.changed` events (Registry+Webhooks.swift); the invariant checks
    /// them (Registry+AASAInvariant.swift) and throws, rolling everything back, when one fails.
    func closeTransaction() throws {
        accountOfTransaction?.aasaHosts = try aasaChangedHosts()
        try emitAASAEvents()
        try checkTouchedAASA()
    }

    /// A write (as `write`) whose outcome names the hosts whose AASA it changed
    /// (Registry+AASAInvariant.swift notes them).
    func writeOutcome<T>(_ body: () throws -> WriteOutcome<T>) throws(RegistryError) -> WriteOutcome<T> {
        try write {
            var outcome = try body()
            outcome.touchedHosts = try aasaChangedHosts()
            return outcome
        }
    }

    /// `date` (by default now) as the registry writes times: fixed-width ISO 8601 in UTC, so that text order is time order.
    func timestamp(_ date: Date? = nil) -> String {
        if date == nil, let timestampOfImport { return timestampOfImport }
        return (date ?? now()).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Appends a change record (docs/rules.md#change-records: when, who, what entity, before/after).
    func recordChange(entity: ChangeEntity, id: String, action: ChangeAction, before: JSONValue?, after: JSONValue?) throws {
        let at = timestamp()
        try db.execute(
            "INSERT INTO \(Self.changeRecordColumns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(at), .text(actor), .text(entity.rawValue), .text(id), .text(action.rawValue),
                .text(before.map { JSONWriter.string($0) }), .text(after.map { JSONWriter.string($0) }), .integer(AuditForm.version),
            ])
        accountOfTransaction?.noteChange(entity, id: id, action: action, record: ChangeMark(id: db.lastInsertRowID, at: at))
        if entity == .experience { try emitExperienceEvent(action: action, before: before, after: after) }
    }

    /// Every change record names the audit form its `before` and `after` are in (`AuditForm`, Migrations/0010).
    static let changeRecordColumns = "change_record(at, actor, entity, entity_id, action, before, after, form)"

    /// Appends the change records of several creations at once (an import's chunk), in order,
    /// as `recordChange` would one by one: each one's id and `after` as JSON text. `objects`
    /// gives the same values as JSON, built only when a webhook endpoint may want them.
    func recordChanges(
        entity: ChangeEntity, action: ChangeAction, _ created: [(id: String, after: String)], objects: () -> [JSONValue]
    ) throws {
        let at = timestamp()
        var values: [SQLValue] = []
        values.reserveCapacity(created.count * 8)
        for (id, after) in created {
            values += [
                .text(at), .text(actor), .text(entity.rawValue), .text(id), .text(action.rawValue), .null, .text(after),
                .integer(AuditForm.version),
            ]
        }
        try insertRows(Self.changeRecordColumns, columns: 8, values)
        if !created.isEmpty {
            let mark = ChangeMark(id: db.lastInsertRowID, at: at)
            if entity == .experience {
                accountOfTransaction?.noteCreated(experiences: created.lazy.compactMap { Int64($0.id) }, record: mark)
            } else {
                accountOfTransaction?.noteChange(entity, id: created.last!.id, action: action, record: mark)
            }
        }
        if entity == .experience, !(try transactionEndpoints().isEmpty) {
            for after in objects() { try emitExperienceEvent(action: action, before: nil, after: after) }
        }
    }

    /// The change records after `since`, oldest first.
    public func changes(since: Int64 = 0, limit: Int = 100) throws(RegistryError) -> [ChangeRecord] {
        try changeRecords(where: "id > ?", [.integer(since)], limit: limit)
    }

    /// The change records of one entity after `since`, oldest first (index `change_record_by_entity`).
    /// With `namingTokensOf`, only that team's tokens are named (`ChangeRecord.actorName`): a team learns
    /// nothing of other tenants' tokens, nor of the administrators'.
    public func changes(
        of entity: ChangeEntity, id: String, since: Int64 = 0, limit: Int = 100, namingTokensOf team: TeamID? = nil
    ) throws(RegistryError) -> [ChangeRecord] {
        try changeRecords(
            where: "entity = ? AND entity_id = ? AND id > ?", [.text(entity.rawValue), .text(id), .integer(since)], limit: limit,
            namingTokensOf: team)
    }

    func changeRecords(
        where condition: String, _ values: [SQLValue], limit: Int, namingTokensOf team: TeamID? = nil
    ) throws(RegistryError) -> [ChangeRecord] {
        try guarded {
            let rows = try db.query(
                "SELECT id, at, actor, entity, entity_id, action, before, after, form FROM change_record WHERE \(condition) ORDER BY id LIMIT ?",
                values + [.integer(Int64(limit))])
            let names = try tokenNames(actors: Set(try rows.map { try $0.string("actor") }), team: team)
            return try rows.map { row in
                let id = Int64(try row.int("id"))
                let entity = try row.string("entity"), action = try row.string("action"), form = Int64(try row.int("form"))
                guard let kind = ChangeEntity(rawValue: entity), let change = ChangeAction(rawValue: action) else {
                    throw RegistryError.storage("\(path): change record \(id) has an unknown entity or action (\(entity), \(action))")
                }
                let actor = try row.string("actor")
                return ChangeRecord(
                    id: id, at: try row.string("at"), actor: actor,
                    entity: kind, entityID: try row.string("entity_id"), action: change,
                    before: try row.optionalString("before").map { try AuditForm.read($0, form: form) },
                    after: try row.optionalString("after").map { try AuditForm.read($0, form: form) },
                    actorName: names[actor])
            }
        }
    }

    /// The names of the tokens among `actors` (`token:ID`, the actor ClipAPI records for a token's
    /// writes), only `team`'s when it is given.
    func tokenNames(actors: Set<String>, team: TeamID?) throws -> [String: String] {
        var names: [String: String] = [:]
        for actor in actors where actor.hasPrefix("token:") {
            guard let id = Int64(actor.dropFirst(6)),
                let row = try db.query("SELECT name, team_id FROM api_token WHERE id = ?", [.integer(id)]).first
            else { continue }
            if let team, try row.optionalString("team_id") != team.rawValue { continue }
            names[actor] = try row.string("name")
        }
        return names
    }

    /// True when the file is open and every embedded migration is applied.
    public func isReady() -> Bool { (try? Schema.migrator.isUpToDate(db)) ?? false }
}
