import ClipCore
public import Foundation
import Glibc
import SQLiteDB
import StrictJSON

/// Backups and restores of the whole registry (SQLite's online backup API).
extension Registry {
    /// Writes a consistent snapshot to `path` (a new file; an existing one is refused), checked
    /// with `PRAGMA integrity_check`. Safe while a server and other writers run. The snapshot is
    /// written under a temporary name beside `path` and linked into place only when complete and
    /// synced, so a failed or interrupted backup leaves no file that looks whole.
    public func backup(to path: String) throws(RegistryError) {
        let sqliteMessage = Self.sqliteMessage
        if let why = DurableFiles.missingDirectory(for: path) { throw RegistryError.storage("cannot write \(path): \(why)") }
        // SQLite keeps a database's journal beside it under the database's name plus -journal,
        // -wal or -shm (https://sqlite.org/tempfiles.html) and deletes or replays such a file at
        // the next open: a backup may not take one of those names (nor the database's own).
        let target = DurableFiles.resolved(path)
        for database in Set([DurableFiles.resolved(self.path), DurableFiles.resolved(self.path, followingLink: false)]) {
            for suffix in ["", "-journal", "-wal", "-shm"] where target == database + suffix {
                throw RegistryError.conflict(
                    "\(path) is \(suffix.isEmpty ? "the database itself" : "the database's \(suffix.dropFirst()) file") (SQLite's name for it); choose another name for the backup"
                )
            }
        }
        guard !DurableFiles.exists(path) else {
            throw RegistryError.conflict("\(path) already exists; choose a new file for the backup")
        }
        let temporary: String
        do { temporary = try DurableFiles.createUnique(prefix: path + ".partial-") } catch {
            throw RegistryError.storage("cannot write \(path): \(error)")
        }
        defer { DurableFiles.removeDatabaseFile(temporary) }
        var options = Connection.Options()
        options.walJournal = false
        let destination: Connection
        do { destination = try Connection(path: temporary, options: options) } catch {
            throw RegistryError.storage("cannot write \(path): \(sqliteMessage(error))")
        }
        defer { destination.close() }
        do { try db.backup(into: destination) } catch {
            if (error as? SQLiteError)?.isBusy == true { throw RegistryError.busy }
            throw RegistryError.storage("cannot back up \(self.path) to \(path): \(sqliteMessage(error))")
        }
        let check: [String]
        do {
            // The copied header says WAL, as the live file does; a backup is one self-contained
            // file, so it gets a rollback journal (opening it then leaves no -wal or -shm beside it).
            _ = try destination.query("PRAGMA journal_mode = DELETE")
            check = try destination.integrityCheck()
        } catch {
            throw RegistryError.storage("cannot check the backup \(path): \(sqliteMessage(error))")
        }
        guard check == ["ok"] else {
            throw RegistryError.storage("the backup \(path) failed its integrity check: \(check.prefix(3).joined(separator: "; "))")
        }
        // synchronous=FULL: the commit that ended the copy synced the file; now its name.
        destination.close()
        do { try DurableFiles.publish(temporary, as: path) } catch {
            if DurableFiles.exists(path) { throw RegistryError.conflict("\(path) already exists; choose a new file for the backup") }
            throw RegistryError.storage("cannot write \(path): \(error)")
        }
    }

    /// What a restore did.
    public struct RestoreReport: Sendable, Equatable {
        /// The migrations applied to bring an older backup up to date.
        public let migrated: [String]
        /// Where the content the restore replaced is kept (a database file beside the live one).
        public let replacedCopy: String
        /// The live database's API tokens, kept as they were (`keepInstallationState`).
        public let tokensKept: Int
    }

    /// Replaces the registry's content with the backup at `path` (see `restore(database:from:)`).
    public func restore(from path: String) throws(RegistryError) -> RestoreReport {
        try Self.restore(into: db, livePath: self.path, from: path, actor: actor, at: timestamp())
    }

    /// Replaces the content of the database at `database` with the backup at `path`, without
    /// migrating (or needing to open as a registry) the database it replaces: a restore is how a
    /// database that no longer opens is repaired. The database must be ours or empty.
    public static func restore(database: String, from path: String, actor: String, now: () -> Date = Date.init) throws(RegistryError)
        -> RestoreReport
    {
        // A backup that is not there, or not a file, is refused before the database is opened: opening creates it.
        _ = try backupFile(path)
        let live: Connection
        do { live = try Connection(path: database) } catch {
            throw RegistryError.from(error as? SQLiteError ?? SQLiteError(extendedCode: 1, message: "\(error)"), path: database)
        }
        defer { live.close() }
        do {
            try refuseForeign(live, path: database, doing: "replace")
        } catch let error as RegistryError { throw error } catch {
            throw RegistryError.from(error as? SQLiteError ?? SQLiteError(extendedCode: 1, message: "\(error)"), path: database)
        }
        let at = now().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        return try restore(into: live, livePath: database, from: path, actor: actor, at: at)
    }

    /// The backup at `path`, opened: it must exist and be a regular file (not a FIFO, a device or a folder).
    static func backupFile(_ path: String) throws(RegistryError) -> RegularFile {
        guard DurableFiles.exists(path) else { throw RegistryError.notFound("backup file \(path)") }
        do { return try RegularFile(path, what: "backup file") } catch {
            throw RegistryError.storage(error.description + (error.isNotRegular ? "; name a file written by clipctl backup" : ""))
        }
    }

    /// The restore itself. Nothing is written to the live database until the backup has passed
    /// every check on a private copy (`checkedCopy`) and that copy is migrated; the copy then
    /// replaces the live content in one write transaction of the live connection (the online
    /// backup API), so a running server sees the restored data at its next request. Under that
    /// transaction's write lock, before any page is written, the copy takes the live tokens and
    /// id counters (`keepInstallationState`) and the content being replaced is copied beside the
    /// database and synced, and kept: the restore can be undone by restoring it.
    static func restore(into live: Connection, livePath: String, from path: String, actor: String, at: String) throws(RegistryError)
        -> RestoreReport
    {
        guard !DurableFiles.sameFile(path, livePath) else {
            throw RegistryError.storage("\(path) is the database itself; name a file written by clipctl backup")
        }
        guard !live.isReadOnly else {
            throw RegistryError.readOnly("the database \(livePath) is read-only: nothing was restored")
        }
        let backup = try backupFile(path)
        // What an interrupted restore left goes first (RestoreLeftovers: only files named and held as a restore names them).
        RestoreLeftovers.remove(besides: livePath)
        let (work, staging) = try heldWorkFiles(besides: livePath)
        let copyPath = work.path, stagedPath = staging.path
        // Removed, then unlocked: the lock ends with the files.
        defer {
            DurableFiles.removeDatabaseFile(copyPath)
            Glibc.close(work.lock)
        }
        defer {
            DurableFiles.removeDatabaseFile(stagedPath)
            Glibc.close(staging.lock)
        }
        try stage(backup, at: stagedPath, livePath: livePath)
        let (copy, migrated) = try checkedCopy(of: stagedPath, named: path, at: copyPath, livePath: livePath)
        defer { copy.close() }
        DurableFiles.removeDatabaseFile(stagedPath)

        // The copy of the replaced content goes again when the restore fails: the live content is then unchanged.
        var replacedCopy: String?
        do {
            let replacedPath = try DurableFiles.createNew("\(livePath).replaced-\(fileStamp(at))")
            replacedCopy = replacedPath
            // The backup API cannot change a WAL database's page size: give the copy the live one's.
            let pageSize = try live.query("PRAGMA page_size").first!.int("page_size")
            if try copy.query("PRAGMA page_size").first!.int("page_size") != pageSize {
                try copy.execute("PRAGMA page_size = \(pageSize)")
                try copy.executeScript("VACUUM")
            }
            var tokensKept = 0
            try live.replaceContents(with: copy) {
                var readOnly = Connection.Options()
                readOnly.readOnly = true
                readOnly.create = false
                let reader = try Connection(path: livePath, options: readOnly)
                defer { reader.close() }
                // Under the live write lock, so no token or counter changes before the swap.
                try copy.write {
                    tokensKept = try keepInstallationState(of: reader, in: copy)
                    try recordRestore(in: copy, from: path, replaced: replacedPath, tokensKept: tokensKept, actor: actor, at: at)
                }
                var options = Connection.Options()
                options.walJournal = false
                let replaced = try Connection(path: replacedPath, options: options)
                defer { replaced.close() }
                try reader.backup(into: replaced)
                _ = try replaced.query("PRAGMA journal_mode = DELETE")  // self-contained, as a backup is
                replaced.close()
                try DurableFiles.syncDirectory(DurableFiles.directory(of: replacedPath))
            }
            return RestoreReport(migrated: migrated, replacedCopy: replacedPath, tokensKept: tokensKept)
        } catch {
            if let replacedCopy { DurableFiles.removeDatabaseFile(replacedCopy) }
            if let full = diskFull(error, livePath: livePath) { throw full }
            if let error = error as? SQLiteError { throw RegistryError.from(error, path: livePath) }
            throw RegistryError.storage("cannot restore into \(livePath): \(error)")
        }
    }

    /// The restore's two work files beside the database (the checked copy, the staged backup), each created
    /// and held as `RestoreLeftovers` names them, so that a restore killed halfway leaves only files it can tell.
    private static func heldWorkFiles(besides livePath: String) throws(RegistryError) -> (
        work: (path: String, lock: Int32), staging: (path: String, lock: Int32)
    ) {
        do throws(DurableFiles.Failure) {
            let work = try RestoreLeftovers.createHeld(prefix: livePath + ".restoring-")
            do throws(DurableFiles.Failure) {
                return (work, try RestoreLeftovers.createHeld(prefix: livePath + ".restoring-backup-"))
            } catch {
                DurableFiles.removeDatabaseFile(work.path)
                Glibc.close(work.lock)
                throw error
            }
        } catch {
            throw RegistryError.storage("cannot restore into \(livePath): \(error)")
        }
    }

    /// The restore's change record, in the restored content: where it came from, where the replaced content was kept.
    private static func recordRestore(
        in copy: Connection, from path: String, replaced replacedPath: String, tokensKept: Int, actor: String, at: String
    ) throws {
        try copy.execute(
            "INSERT INTO change_record(at, actor, entity, entity_id, action, before, after) VALUES (?, ?, ?, 'main', ?, NULL, ?)",
            [
                .text(at), .text(actor), .text(ChangeEntity.registry.rawValue), .text(ChangeAction.restore.rawValue),
                .text(
                    JSONWriter.string(
                        .object([
                            "from": .string(path), "replaced": .string(replacedPath), "apiTokensKept": .integer(Int64(tokensKept)),
                        ]))),
            ])
    }

    /// Litestream's control tables (docs/operations.md, Replication and recovery with Litestream):
    /// Litestream 0.5 creates them in the database it replicates, holds its read lock through
    /// `_litestream_seq` and writes both at every checkpoint it runs (its db.go: `init`,
    /// `acquireReadLock`, `checkpoint`). They are not registry content: a backup is checked
    /// without them, and a restore leaves the live database's as they are, so Litestream
    /// replicates on through a restore.
    static let litestreamTables = ["_litestream_seq", "_litestream_lock"]

    /// Copies the backup's bytes (and those of a `-wal` file beside it, which SQLite would read
    /// with it) into `stagedPath`, a file this process made beside the database: SQLite then opens
    /// only that file, never a name that could have become a FIFO since it was checked
    /// (`RegularFile`). A write that fails there is the database's disk's failure, not the backup's.
    static func stage(_ backup: RegularFile, at stagedPath: String, livePath: String) throws(RegistryError) {
        let wal = backup.path + "-wal"
        var walFile: RegularFile?
        if DurableFiles.exists(wal) {
            do { walFile = try RegularFile(wal, what: "the backup's -wal file") } catch {
                throw RegistryError.storage(error.description)
            }
        }
        for (source, target) in [(backup, stagedPath), (walFile, stagedPath + "-wal")] {
            guard let source else { continue }
            do { try source.copy(to: target) } catch {
                switch error {
                case .reading(let refusal): throw RegistryError.storage(refusal.description)
                case .writing(let code): throw writeFailure(code, livePath: livePath)
                }
            }
        }
    }

    /// A write beside the database at `livePath` failed with `code` (an errno): ENOSPC and EDQUOT name the full disk.
    static func writeFailure(_ code: Int32, livePath: String) -> RegistryError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT { return diskFullError(livePath, reason: reason) }
        return RegistryError.storage("cannot write beside the database \(livePath) (\(reason)): nothing was restored")
    }

    /// The error of a restore that ran out of space where the database is: the backup is not at fault.
    static func diskFullError(_ livePath: String, reason: String) -> RegistryError {
        RegistryError.storage(
            "the disk holding the database \(livePath) is full (\(reason)): nothing was restored; a restore needs free space beside the database for copies of the backup and of the content it replaces"
        )
    }

    /// `diskFullError` when `error` is SQLite's SQLITE_FULL (it reports ENOSPC so, https://sqlite.org/rescode.html#full).
    static func diskFull(_ error: any Error, livePath: String) -> RegistryError? {
        guard let error = error as? SQLiteError, error.isDiskFull else { return nil }
        return diskFullError(livePath, reason: error.message)
    }

    /// What a restore keeps of the live database in the copy that replaces it (README,
    /// Reliability): the API tokens are the installation's credentials, not registry content, so
    /// the live `api_token` rows replace the backup's as they are (a revoked token stays revoked,
    /// a newer one stays valid), with the `team` row of a token's team the backup lacks; and ids
    /// are never handed out twice, so every AUTOINCREMENT counter is raised to at least the live
    /// one (https://sqlite.org/autoinc.html: `sqlite_sequence` is updated with ordinary
    /// statements), and an ETag or a change-feed position from before the restore never names
    /// another object. Returns the number of tokens kept. Runs inside a write transaction of `copy`.
    static func keepInstallationState(of live: Connection, in copy: Connection) throws -> Int {
        let liveTables = Set(try live.query("SELECT name FROM sqlite_master WHERE type = 'table'").map { try $0.string("name") })
        let tokens =
            liveTables.contains("api_token")
            ? try live.query("SELECT id, name, team_id, secret_sha256, created_at, last_used_at, revoked_at FROM api_token ORDER BY id")
            : []
        try copy.execute("DELETE FROM api_token")
        for token in tokens {
            if let team = try token.optionalString("team_id"), try copy.query("SELECT 1 FROM team WHERE id = ?", [.text(team)]).isEmpty {
                guard let row = try live.query("SELECT id, name, created_at FROM team WHERE id = ?", [.text(team)]).first else {
                    throw RegistryError.storage(
                        "the live database's token \(try token.int("id")) names team \(team), which it does not have")
                }
                try copy.execute("INSERT INTO team(id, name, created_at) VALUES (?, ?, ?)", Array(row.values))
            }
            try copy.execute(
                "INSERT INTO api_token(id, name, team_id, secret_sha256, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                Array(token.values))
        }
        // Versions: an ETag is `"<kind>-v<version>"` of one object, so a restored object that the
        // live database also has takes a version above both, and a client's ETag from before the
        // restore never matches content it did not read (RFC 9110 §8.8.3: a strong validator
        // changes whenever the representation does).
        for (table, key) in [("advanced_experience", "id"), ("app", "bundle_id"), ("default_experience", "clip_bundle_id")]
        where liveTables.contains(table) {
            for row in try live.query("SELECT \(key) AS k, version FROM \(table)") {
                try copy.execute("UPDATE \(table) SET version = max(version, ?) + 1 WHERE \(key) = ?", [row.values[1], row.values[0]])
            }
        }
        for table in litestreamTables where liveTables.contains(table) {
            let definition = try live.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
            guard let sql = try definition.first?.optionalString("sql") else { continue }
            try copy.execute(sql)
            for row in try live.query("SELECT * FROM \(table)") {
                let marks = Array(repeating: "?", count: row.values.count).joined(separator: ", ")
                try copy.execute("INSERT INTO \(table) VALUES (\(marks))", Array(row.values))
            }
        }
        guard liveTables.contains("sqlite_sequence") else { return tokens.count }
        let copyTables = Set(try copy.query("SELECT name FROM sqlite_master WHERE type = 'table'").map { try $0.string("name") })
        for counter in try live.query("SELECT name, seq FROM sqlite_sequence") {
            let name = try counter.string("name"), seq = counter.values[1]
            guard copyTables.contains(name) else { continue }
            if try copy.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", [seq, .text(name)]) == 0 {
                try copy.execute("INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)", [.text(name), seq])
            }
        }
        return tokens.count
    }

    /// A private copy of the backup staged at `stagedPath` (`stage`), checked and migrated, or an
    /// error naming the backup `path`, or the database's full disk. The copy must be a sound SQLite database (`integrity_check`, `foreign_key_check`) made
    /// by this application's migrations: a history that is the first k embedded migrations with
    /// none missing, and exactly the tables and columns those k make (`Migrator.verify`); once
    /// migrated, its content must pass `verifyContent`.
    static func checkedCopy(of stagedPath: String, named path: String, at copyPath: String, livePath: String) throws(RegistryError)
        -> (Connection, [String])
    {
        var readOnly = Connection.Options()
        readOnly.readOnly = true
        readOnly.create = false
        var plain = Connection.Options()
        plain.walJournal = false
        let copy: Connection
        do {
            let source: Connection
            do { source = try Connection(path: stagedPath, options: readOnly) } catch {
                throw RegistryError.storage("\(path) is not a readable SQLite database (\(sqliteMessage(error)))")
            }
            defer { source.close() }
            copy = try Connection(path: copyPath, options: plain)
            do { try source.backup(into: copy) } catch {
                if let full = diskFull(error, livePath: livePath) { throw full }
                throw RegistryError.storage("\(path) cannot be read as an SQLite database (\(sqliteMessage(error)))")
            }
        } catch let error as RegistryError { throw error } catch {
            throw diskFull(error, livePath: livePath) ?? RegistryError.storage("cannot copy \(path): \(error)")
        }
        do {
            let check = try copy.integrityCheck()
            guard check == ["ok"] else {
                throw RegistryError.storage("\(path) fails its integrity check: \(check.prefix(3).joined(separator: "; "))")
            }
            for table in litestreamTables { try copy.execute("DROP TABLE IF EXISTS \(table)") }
            let tables = try copy.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map {
                try $0.string("name")
            }
            guard !tables.isEmpty else { throw RegistryError.storage("\(path) is an empty database, not a Clip Registry backup") }
            guard tables.contains("schema_migrations") else {
                throw RegistryError.storage(
                    "\(path) is not a Clip Registry database (it has tables \(tables.prefix(5).joined(separator: ", ")))")
            }
            do {
                try Schema.migrator.verify(copy)
            } catch let error as Migrator.MigratorError {
                switch error {
                case .unknownMigrations(let names):
                    throw RegistryError.storage(
                        "\(path) was written by a newer version (unknown migrations: \(names.joined(separator: ", ")))")
                case .foreignHistory:
                    throw RegistryError.storage("\(path) is not a Clip Registry database: \(error)")
                default:
                    throw RegistryError.storage("\(path) is not a consistent Clip Registry backup: \(error)")
                }
            }
            let orphans = try copy.foreignKeyCheck()
            guard orphans.isEmpty else {
                throw RegistryError.storage(
                    "\(path) has \(orphans.count) row(s) whose references are missing (foreign_key_check: \(orphans.prefix(3).joined(separator: "; ")))"
                )
            }
            let migrated: [String]
            do { migrated = try Schema.migrator.migrate(copy) } catch {
                throw diskFull(error, livePath: livePath)
                    ?? RegistryError.storage("\(path) could not be migrated to this version: \(error)")
            }
            try Schema.migrator.verify(copy)
            let problems: [String]
            do { problems = try Registry(checking: copy, path: path).verifyContent(limit: 100) } catch {
                throw RegistryError.storage("\(path) cannot be read as a registry: \(error)")
            }
            guard problems.isEmpty else {
                throw RegistryError.storage(
                    "\(path) has content this version cannot use (\(problems.count == 100 ? "100 or more" : String(problems.count)) problem\(problems.count == 1 ? "" : "s"), first: \(problems.prefix(3).joined(separator: "; ")))"
                )
            }
            return (copy, migrated)
        } catch let error as RegistryError {
            copy.close()
            throw error
        } catch {
            copy.close()
            throw diskFull(error, livePath: livePath) ?? RegistryError.storage("\(path) cannot be checked: \(error)")
        }
    }

    static func sqliteMessage(_ error: any Error) -> String { (error as? SQLiteError)?.message ?? "\(error)" }

    /// 2026-11-22T10:15:00.123Z → 20261122T101500Z, for file names.
    static func fileStamp(_ timestamp: String) -> String {
        let digits = timestamp.prefix(19).filter { $0.isNumber || $0 == "T" }
        return digits + "Z"
    }
}
