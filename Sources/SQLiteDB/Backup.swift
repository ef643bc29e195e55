import CSQLite

extension Connection {
    /// Copies this database into `destination` with SQLite's online backup API
    /// (https://sqlite.org/backup.html): a consistent snapshot even while other connections
    /// write, since each step holds a read transaction and the copy restarts when the source
    /// changes under it. `pagesPerStep` bounds how long a step holds its lock.
    public func backup(into destination: Connection, pagesPerStep: Int32 = 256) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), sql: nil)
        }
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else {
            throw destination.error(rc == SQLITE_DONE ? finish : rc, sql: nil)
        }
    }

    /// `PRAGMA integrity_check`: "ok", or the problems found.
    public func integrityCheck() throws -> [String] {
        try query("PRAGMA integrity_check").compactMap { row in
            if case .text(let s) = row.values.first { return s }
            return nil
        }
    }
}
