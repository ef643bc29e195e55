/// Applies named SQL migrations in order, each in its own `BEGIN IMMEDIATE` transaction, and
/// records each in `schema_migrations`, so that a crash mid-way leaves every migration either
/// applied and recorded, or neither.
public struct Migrator {
    public struct Migration: Sendable {
        public let name: String
        public let sql: String
        public init(name: String, sql: String) { self.name = name; self.sql = sql }
    }

    public enum MigratorError: Error, CustomStringConvertible, Equatable {
        /// The database records a migration this binary does not know: it was written by a newer version.
        case unknownMigrations([String])
        /// The database has no `schema_migrations` table.
        case noHistory
        /// `schema_migrations` lists none of these migrations: another application's table.
        case foreignHistory([String])
        /// Migrations missing before the last one recorded, or unknown ones between known ones.
        case inconsistentHistory(String)
        /// The tables differ from what the recorded migrations make.
        case schemaMismatch([String])
        /// The database is read-only and these migrations are not applied.
        case readOnly(pending: [String])

        public var description: String {
            switch self {
            case .unknownMigrations(let names):
                "the database was migrated by a newer version (unknown migrations: \(names.joined(separator: ", ")))"
            case .noHistory:
                "it has no schema_migrations table"
            case .foreignHistory(let names):
                "its schema_migrations lists none of this application's migrations (\(names.prefix(3).joined(separator: ", ")))"
            case .inconsistentHistory(let why):
                "its migration history is inconsistent: \(why)"
            case .schemaMismatch(let differences):
                "its tables are not those its recorded migrations make (\(differences.count) difference\(differences.count == 1 ? "" : "s"): \(differences.prefix(3).joined(separator: "; ")))"
            case .readOnly(let pending):
                "the database is read-only and not up to date (migrations to apply: \(pending.joined(separator: ", "))); open it once with write access"
            }
        }
    }

    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.name < $1.name }
    }

    static let historyTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            name TEXT PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        ) STRICT
        """

    /// Applies the migrations not yet recorded; returns their names. An up-to-date database is
    /// only read (so a read-only one opens); a read-only one that is not up to date is refused.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [String] {
        let hasHistory = try hasHistoryTable(connection)
        let applied = hasHistory ? try appliedNames(connection) : []
        let known = Set(migrations.map(\.name))
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else { throw MigratorError.unknownMigrations(unknown.sorted()) }
        let pending = migrations.filter { !applied.contains($0.name) }
        if hasHistory && pending.isEmpty { return [] }
        if connection.isReadOnly { throw MigratorError.readOnly(pending: pending.map(\.name)) }

        try connection.write { try connection.execute(Self.historyTable) }
        var newlyApplied: [String] = []
        for migration in pending {
            try connection.write {
                // Re-check under the write lock: another process may have migrated meanwhile.
                let done = try connection.query("SELECT 1 FROM schema_migrations WHERE name = ?", [.text(migration.name)])
                guard done.isEmpty else { return }
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO schema_migrations(name) VALUES (?)", [.text(migration.name)])
                newlyApplied.append(migration.name)
            }
        }
        return newlyApplied
    }

    /// Checks, without writing, that `candidate` was made by these migrations: its history is the
    /// first k of them, none missing and none unknown, and its schema is exactly what those k
    /// make (built afresh in memory and compared with `Connection.schemaDescription`). Returns k.
    /// A history with every migration and more after them is a newer version's (`unknownMigrations`).
    @discardableResult
    public func verify(_ candidate: Connection) throws -> Int {
        guard try hasHistoryTable(candidate) else { throw MigratorError.noHistory }
        let recorded = try appliedNames(candidate)
        let names = migrations.map(\.name)
        let known = Set(names)
        let unknown = recorded.filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty {
            if recorded.isDisjoint(with: known) { throw MigratorError.foreignHistory(unknown) }
            if recorded.isSuperset(of: known), let last = names.last, unknown.allSatisfy({ $0 > last }) {
                throw MigratorError.unknownMigrations(unknown)
            }
            throw MigratorError.inconsistentHistory("unknown migrations \(unknown.joined(separator: ", ")) beside known ones")
        }
        let count = (names.lastIndex { recorded.contains($0) } ?? -1) + 1
        let missing = names.prefix(count).filter { !recorded.contains($0) }
        guard missing.isEmpty else {
            throw MigratorError.inconsistentHistory("\(missing.joined(separator: ", ")) not recorded, though \(names[count - 1]) is")
        }
        let reference = try Connection(path: ":memory:")
        defer { reference.close() }
        try Migrator(migrations: Array(migrations.prefix(count))).migrate(reference)
        let expected = try reference.schemaDescription()
        let actual = try candidate.schemaDescription()
        guard expected == actual else {
            let extra = actual.filter { !expected.contains($0) }.map { "unexpected \($0.trimmingLeadingSpaces)" }
            let absent = expected.filter { !actual.contains($0) }.map { "missing \($0.trimmingLeadingSpaces)" }
            throw MigratorError.schemaMismatch(absent + extra)
        }
        return count
    }

    func hasHistoryTable(_ connection: Connection) throws -> Bool {
        try !connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").isEmpty
    }

    public func appliedNames(_ connection: Connection) throws -> Set<String> {
        Set(try connection.query("SELECT name FROM schema_migrations").map { try $0.string("name") })
    }

    /// True when every known migration is recorded.
    public func isUpToDate(_ connection: Connection) throws -> Bool {
        guard try hasHistoryTable(connection) else { return migrations.isEmpty }
        return try appliedNames(connection).isSuperset(of: migrations.map(\.name))
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: Substring { drop { $0 == " " } }
}
