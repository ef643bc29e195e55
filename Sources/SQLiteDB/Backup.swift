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

extension Connection {
    /// Replaces this database's content with `source`'s in one write transaction of this
    /// connection, with the online backup API (https://sqlite.org/backup.html): other connections
    /// to this file, in this process or others, read the old content or the new, and see the new
    /// at their next transaction. `beforeWriting` runs once this connection holds the file's write
    /// lock and before any page is written, so a copy another connection reads there is exactly
    /// the content replaced; if it throws, nothing is written. In WAL mode the page sizes must
    /// match (the backup API cannot change a WAL database's page size).
    public func replaceContents(with source: Connection, beforeWriting: () throws -> Void) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw error(sqlite3_errcode(handle), sql: nil)
        }
        // A step of 0 pages takes the source's read lock and this database's write lock and
        // copies nothing; the write lock is kept until the backup finishes.
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, 0)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        if rc == SQLITE_OK || rc == SQLITE_DONE {
            do { try beforeWriting() } catch {
                sqlite3_backup_finish(backup)
                throw error
            }
        }
        while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
            rc = sqlite3_backup_step(backup, -1)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(10) }
        }
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else {
            throw error(rc == SQLITE_DONE ? finish : rc, sql: nil)
        }
    }

    /// `PRAGMA foreign_key_check`: one line per row whose reference is missing.
    public func foreignKeyCheck() throws -> [String] {
        try query("PRAGMA foreign_key_check").map { row in
            row.values.map { "\($0)" }.joined(separator: " ")
        }
    }

    /// The schema as comparable lines: each table with its kind (STRICT, WITHOUT ROWID) and its
    /// columns (name, declared type, NOT NULL, default, primary-key position) and foreign keys;
    /// each index, trigger and view with its SQL. SQLite's own objects (`sqlite_%`) are left out.
    /// Two databases made by the same statements describe alike.
    public func schemaDescription() throws -> [String] {
        var lines: [String] = []
        for table in try query(
            "SELECT name, type, ncol, wr, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        {
            let name = try table.string("name")
            lines.append(
                "\(try table.string("type")) \(name) columns=\(try table.int("ncol")) withoutRowid=\(try table.int("wr")) strict=\(try table.int("strict"))"
            )
            for column in try query(
                "SELECT name, type, \"notnull\" AS nn, dflt_value, pk FROM pragma_table_xinfo(?) ORDER BY cid", [.text(name)])
            {
                lines.append(
                    "  column \(name).\(try column.string("name")) \(try column.string("type")) notNull=\(try column.int("nn")) default=\(try column.optionalString("dflt_value") ?? "none") pk=\(try column.int("pk"))"
                )
            }
            for key in try query(
                "SELECT \"table\" AS target, \"from\" AS source, \"to\" AS dest, on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq",
                [.text(name)])
            {
                lines.append(
                    "  foreign key \(name).\(try key.string("source")) → \(try key.string("target")).\(try key.optionalString("dest") ?? "(primary key)") update=\(try key.string("on_update")) delete=\(try key.string("on_delete"))"
                )
            }
        }
        for object in try query(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ) {
            lines.append(
                "\(try object.string("type")) \(try object.string("name")) on \(try object.string("tbl_name")): \(try object.optionalString("sql") ?? "")"
            )
        }
        return lines
    }
}
