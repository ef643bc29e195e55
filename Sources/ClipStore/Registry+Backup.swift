import Foundation
import SQLiteDB
import StrictJSON

/// Backups and restores of the whole registry (SQLite's online backup API).
extension Registry {
    /// Writes a consistent snapshot to `path` (a new file; an existing one is refused), checked
    /// with `PRAGMA integrity_check`. Safe while a server and other writers run.
    public func backup(to path: String) throws(RegistryError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw RegistryError.conflict("\(path) already exists; choose a new file for the backup")
        }
        let temporary = path + ".partial"
        try guarded {
            try? FileManager.default.removeItem(atPath: temporary)
            var options = Connection.Options()
            options.walJournal = false
            let destination = try Connection(path: temporary, options: options)
            do {
                try db.backup(into: destination)
                let check = try destination.integrityCheck()
                guard check == ["ok"] else { throw RegistryError.storage("the backup failed its integrity check: \(check.prefix(3).joined(separator: "; "))") }
                destination.close()
                // Renamed into place only when complete, so a failed backup leaves no file that looks whole.
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            } catch {
                destination.close()
                try? FileManager.default.removeItem(atPath: temporary)
                throw error
            }
        }
    }

    /// Replaces the registry's content with the backup at `path`, after checking that it is a
    /// sound Clip Registry database no newer than this binary. Returns the migrations applied to
    /// bring an older backup up to date. Running servers see the restored data at their next request.
    public func restore(from path: String) throws(RegistryError) -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { throw RegistryError.notFound("backup file \(path)") }
        return try guarded {
            var options = Connection.Options()
            options.readOnly = true
            options.create = false
            let source: Connection
            do { source = try Connection(path: path, options: options) } catch let error as SQLiteError {
                throw RegistryError.storage("\(path) is not a readable SQLite database (\(error.message))")
            }
            defer { source.close() }
            let check = try source.integrityCheck()
            guard check == ["ok"] else { throw RegistryError.storage("\(path) fails its integrity check: \(check.prefix(3).joined(separator: "; "))") }
            let tables = try source.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
            guard !tables.isEmpty else { throw RegistryError.storage("\(path) is not a Clip Registry database") }
            let known = Set(Schema.migrations.map(\.name))
            let applied = try Schema.migrator.appliedNames(source)
            let unknown = applied.subtracting(known)
            guard unknown.isEmpty else {
                throw RegistryError.storage("\(path) was written by a newer version (unknown migrations: \(unknown.sorted().joined(separator: ", ")))")
            }
            try source.backup(into: db)
            let migrated = try Schema.migrator.migrate(db)
            try recordChange(entity: "registry", id: "main", action: "restore", before: nil, after: .object(["from": .string(path)]))
            return migrated
        }
    }
}
