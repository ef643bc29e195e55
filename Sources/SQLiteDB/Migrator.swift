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
        public var description: String {
            switch self {
            case .unknownMigrations(let names):
                "the database was migrated by a newer version (unknown migrations: \(names.joined(separator: ", ")))"
            }
        }
    }

    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.name < $1.name }
    }

    /// Applies the migrations not yet recorded; returns their names.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [String] {
        try connection.write {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    name TEXT PRIMARY KEY,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ) STRICT
                """)
            return ()
        }
        let applied = try appliedNames(connection)
        let known = Set(migrations.map(\.name))
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else { throw MigratorError.unknownMigrations(unknown.sorted()) }

        var newlyApplied: [String] = []
        for migration in migrations where !applied.contains(migration.name) {
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

    public func appliedNames(_ connection: Connection) throws -> Set<String> {
        Set(try connection.query("SELECT name FROM schema_migrations").map { try $0.string("name") })
    }

    /// True when every known migration is recorded.
    public func isUpToDate(_ connection: Connection) throws -> Bool {
        let exists = try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        guard !exists.isEmpty else { return migrations.isEmpty }
        return try appliedNames(connection).isSuperset(of: migrations.map(\.name))
    }
}
