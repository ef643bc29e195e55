import ClipCore
import FileFormats
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

struct BackupTests {
    func export(_ registry: Registry) throws -> String {
        var text = ""
        try registry.export(format: .ndjson) { text += $0 + "\n" }
        return text
    }

    @Test func backupUnderConcurrentWritesIsConsistentAndRestores() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        for i in 0..<200 { _ = try registry.register(try experienceJSON("https://shop.example/\(i)")) }
        // A writer in another connection keeps registering while the backup runs.
        let done = DispatchSemaphore(value: 0)
        let writerPath = path
        Thread {
            let writer = try! Registry(path: writerPath)
            for i in 200..<400 { _ = try? writer.register(try! experienceJSON("https://shop.example/\(i)")) }
            done.signal()
        }.start()
        let backupPath = temporaryDatabasePath()
        try registry.backup(to: backupPath)
        done.wait()

        let snapshot = try Registry(path: backupPath)
        let count = try snapshot.experiences().count
        #expect(count >= 200 && count <= 400, "a snapshot from some moment of the writes")
        let urls = try snapshot.experiences().map { Int($0.url.path.dropFirst())! }.sorted()
        #expect(urls == Array(0..<count), "a consistent prefix of the writes: no gaps")
        #expect(try Connection(path: backupPath).integrityCheck() == ["ok"])

        // Restore puts exactly the snapshot back, and a connection opened before sees it.
        let snapshotExport = try export(snapshot)
        let reader = try Registry(path: path)
        #expect(try reader.experiences().count == 400)
        #expect(try registry.restore(from: backupPath).migrated == [])
        #expect(try export(reader) == snapshotExport)
        #expect(try Connection(path: path).query("PRAGMA journal_mode").first?.values.first == .text("wal"))
        #expect(try registry.changes(since: 0, limit: 10_000).last?.action == .restore)
    }

    @Test func refusesToOverwriteOrRestoreBadFiles() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let existing = temporaryDatabasePath()
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(throws: RegistryError.self) { try registry.backup(to: existing) }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        #expect { try registry.restore(from: existing) } throws: { "\($0)".contains("not a readable SQLite database") }

        let foreign = temporaryDatabasePath()
        let db = try Connection(path: foreign)
        try db.execute("CREATE TABLE t (x INTEGER)")
        db.close()
        #expect { try registry.restore(from: foreign) } throws: { "\($0)".contains("not a Clip Registry database") }

        let newer = temporaryDatabasePath()
        try registry.backup(to: newer)
        let n = try Connection(path: newer)
        try n.execute("INSERT INTO schema_migrations(name) VALUES ('9999_future')")
        n.close()
        #expect { try registry.restore(from: newer) } throws: { "\($0)".contains("newer version") }
        #expect(try registry.experiences().count == 1, "nothing was changed by the refused restores")
    }

    /// The live database's files and every table: what a refused restore must leave as it was.
    func liveState(_ path: String) throws -> [String] {
        let files = ["", "-wal"].map { suffix in
            "\(suffix): \(FileManager.default.contents(atPath: path + suffix).map { SHA256.hexDigest([UInt8]($0)) } ?? "absent")"
        }
        return files + (try snapshot(path))
    }

    /// Files beside the database other than it, its -wal and -shm.
    func leftovers(_ path: String) throws -> [String] {
        let name = (path as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix(name) && ![name, name + "-wal", name + "-shm"].contains($0) }
    }

    /// A backup of `registry` changed with SQL, in a folder of its own.
    func alteredBackup(_ registry: Registry, _ sql: String...) throws -> String {
        let path = temporaryDatabasePath()
        try registry.backup(to: path)
        let db = try Connection(path: path)
        try db.execute("PRAGMA foreign_keys = OFF")
        for statement in sql { try db.executeScript(statement) }
        db.close()
        return path
    }

    @Test func aRefusedRestoreLeavesTheLiveFileByteIdenticalAndNamesTheBackup() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        _ = try registry.register(try experienceJSON("https://shop.example/b"))
        let good = temporaryDatabasePath()
        try registry.backup(to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))

        var candidates: [(name: String, path: String, says: String)] = []
        func file(_ name: String, _ data: Data) throws -> String {
            let path = temporaryDatabasePath()
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
        candidates.append(("zero-byte file", try file("zero", Data()), "is an empty database"))
        candidates.append(("JSON file", try file("json", Data(#"{"experiences":[]}"#.utf8)), "not a readable SQLite database"))
        candidates.append(("truncated copy", try file("truncated", bytes.prefix(bytes.count / 2)), "malformed"))
        candidates.append(
            (
                "one migration row deleted (a gap)",
                try alteredBackup(registry, "DELETE FROM schema_migrations WHERE name = '0002_api_tokens'"),
                "0002_api_tokens not recorded"
            ))
        // The rows from the last migration that makes tables on (a data-only one, such as 0012's rewrite, leaves them as they were).
        let last = Schema.migrations.last(where: { $0.sql.contains("CREATE ") || $0.sql.contains("ALTER ") })!.name
        candidates.append(
            (
                "the last migration row deleted", try alteredBackup(registry, "DELETE FROM schema_migrations WHERE name >= '\(last)'"),
                "its tables are not those its recorded migrations make"
            ))
        candidates.append(
            (
                "newer schema version", try alteredBackup(registry, "INSERT INTO schema_migrations(name) VALUES ('9999_future')"),
                "newer version"
            ))
        candidates.append(("an extra column", try alteredBackup(registry, "ALTER TABLE team ADD COLUMN nickname TEXT"), "unexpected"))
        candidates.append(("a dangling reference", try alteredBackup(registry, "DELETE FROM team"), "references are missing"))
        // Another application's database that happens to keep a schema_migrations table.
        let foreign = temporaryDatabasePath()
        let other = try Connection(path: foreign)
        try other.executeScript(
            """
            CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT '');
            INSERT INTO schema_migrations(name) VALUES ('20240101_create_users');
            CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT);
            INSERT INTO users(email) VALUES ('a@example.com');
            """)
        other.close()
        candidates.append(("another application's database", foreign, "is not a Clip Registry database"))
        // A schema-only copy (`sqlite3 clips.db .schema | sqlite3 copy.db`): every table, no rows.
        let schemaOnly = temporaryDatabasePath()
        let source = try Connection(path: good)
        let statements = try source.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
            .map { try $0.string("sql") }
        source.close()
        let target = try Connection(path: schemaOnly)
        for sql in statements { try target.executeScript(sql) }
        target.close()
        candidates.append(("schema-only copy", schemaOnly, "its tables are not those its recorded migrations make"))
        candidates.append(("the database itself", livePath, "is the database itself"))

        let reader = try Registry(path: livePath)
        let before = try liveState(livePath)
        for candidate in candidates {
            #expect(throws: RegistryError.self, "\(candidate.name)") { _ = try registry.restore(from: candidate.path) }
            do { _ = try registry.restore(from: candidate.path) } catch {
                #expect("\(error)".contains(candidate.path) && "\(error)".contains(candidate.says), "\(candidate.name): \(error)")
                if candidate.path != livePath {
                    #expect(!"\(error)".contains(livePath), "\(candidate.name) names the backup, not the database: \(error)")
                }
            }
            #expect(try liveState(livePath) == before, "\(candidate.name) changed the database")
            #expect(try leftovers(livePath) == [], "\(candidate.name) left files beside the database")
        }
        // Every command still works, and the good backup restores.
        #expect(try reader.experiences().count == 2)
        #expect(try Registry(path: livePath).experiences().count == 2)
        _ = try registry.register(try experienceJSON("https://shop.example/c"))
        #expect(try registry.restore(from: good).migrated == [])
        #expect(try reader.experiences().map(\.url.path) == ["/a", "/b"])
    }

    @Test func aRestoreKeepsTheReplacedDatabaseAndRepairsOneThatNoLongerOpens() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let good = temporaryDatabasePath()
        try registry.backup(to: good)
        _ = try registry.register(try experienceJSON("https://shop.example/b"))
        let server = try Registry(path: livePath)
        #expect(try server.experiences().count == 2)

        let report = try registry.restore(from: good)
        #expect(try server.experiences().map(\.url.path) == ["/a"], "a connection opened before sees the restored data")
        #expect(report.replacedCopy.hasPrefix(livePath + ".replaced-"))
        #expect(try Registry(path: report.replacedCopy).experiences().count == 2, "the replaced content is kept")
        let record = try registry.changes(since: 0, limit: 1000).last
        #expect(record?.action == .restore && record?.after?["from"]?.stringValue == good)
        // Undo: restoring the replaced copy brings the replaced content back.
        _ = try registry.restore(from: report.replacedCopy)
        #expect(try server.experiences().count == 2)

        // A database a newer version migrated does not open, but a restore still repairs it.
        registry.close()
        server.close()
        let db = try Connection(path: livePath)
        try db.execute("INSERT INTO schema_migrations(name) VALUES ('9999_future')")
        db.close()
        #expect(throws: RegistryError.self) { try Registry(path: livePath) }
        let repaired = try Registry.restore(database: livePath, from: good, actor: "test")
        #expect(repaired.migrated == [] && FileManager.default.fileExists(atPath: repaired.replacedCopy))
        #expect(try Registry(path: livePath).experiences().count == 1)

        // Another application's database is not replaced.
        let foreign = temporaryDatabasePath()
        let other = try Connection(path: foreign)
        try other.execute("CREATE TABLE notes (x TEXT)")
        other.close()
        #expect { _ = try Registry.restore(database: foreign, from: good, actor: "test") } throws: {
            "\($0)".contains("refusing to replace it")
        }
        #expect(try snapshot(foreign) == [])
    }

    @Test func backupErrorsNameTheBackupAndNeverTakeOverAFile() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let missing = "/nonexistent-\(UUID().uuidString)/y.db"
        #expect { try registry.backup(to: missing) } throws: {
            "\($0)" == "cannot write \(missing): directory \((missing as NSString).deletingLastPathComponent) does not exist"
        }
        // A file that happens to have the temporary name of an earlier version is not touched.
        let path = temporaryDatabasePath()
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path + ".partial"))
        try registry.backup(to: path)
        #expect(try String(contentsOfFile: path + ".partial", encoding: .utf8) == "keep me")
        #expect(try Registry(path: path).experiences().count == 1)
        #expect(try leftovers(path) == ["clips.db.partial"])
        // The same command twice: the second is refused and the first backup is intact.
        #expect { try registry.backup(to: path) } throws: { "\($0)".contains("\(path) already exists") }
        #expect(try Registry(path: path).experiences().count == 1)
    }

    @Test func aRestoreKeepsTheLiveTokensAsTheyAre() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let admin = try registry.createToken(name: "ops", team: nil).value
        let leaked = try registry.createToken(name: "leaked", team: try TeamID("ABCDE12345")).value
        let old = temporaryDatabasePath()
        try registry.backup(to: old)
        _ = try registry.revokeToken(id: leaked.token.id)
        // A token of a team the backup does not have: its team row comes with it.
        let newer = try registry.createToken(name: "ci", team: try TeamID("KLMNO13579")).value
        #expect(try registry.authenticate(admin.secret) != nil)
        let server = try Registry(path: livePath)
        let tokens = try server.tokens()

        #expect(try registry.restore(from: old).tokensKept == 3)
        #expect(try server.tokens() == tokens, "ids, names, teams, revocations and last-used times as they were")
        #expect(try server.authenticate(leaked.secret) == nil, "a token revoked after the backup stays revoked")
        #expect(try server.authenticate(newer.secret)?.id == newer.token.id, "a token created after the backup still works")
        #expect(try server.authenticate(admin.secret)?.id == admin.token.id)
        #expect(try server.experiences().map(\.url.path) == ["/a"], "the registry content is the backup's")
        #expect(try server.changes(since: 0, limit: 1000).last?.after?["apiTokensKept"] == .integer(3))
        #expect(try server.createToken(name: "after", team: nil).value.token.id > newer.token.id)
    }

    /// Litestream (docs/operations.md) creates `_litestream_seq` and `_litestream_lock` in the
    /// database it replicates and writes them at every checkpoint it runs: a backup taken under
    /// it has them, and a restore under it must leave them as they are.
    @Test func aRestoreUnderLitestreamKeepsItsTablesAndTakesBackupsThatHaveThem() throws {
        func addLitestreamTables(_ path: String, seq: Int) throws {
            let db = try Connection(path: path)
            try db.execute("CREATE TABLE IF NOT EXISTS _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)")
            try db.execute("CREATE TABLE IF NOT EXISTS _litestream_lock (id INTEGER)")
            try db.execute(
                "INSERT INTO _litestream_seq (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq",
                [.integer(Int64(seq))])
            db.close()
        }
        func litestreamRows(_ path: String) throws -> [String] {
            let db = try Connection(path: path)
            defer { db.close() }
            let tables = try db.query("SELECT name FROM sqlite_master WHERE name LIKE '\\_litestream%' ESCAPE '\\' ORDER BY name")
                .map { try $0.string("name") }
            let seq =
                tables.contains("_litestream_seq") ? try db.query("SELECT seq FROM _litestream_seq").map { "seq \(try $0.int("seq"))" } : []
            return tables + seq
        }
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let plain = temporaryDatabasePath()
        try registry.backup(to: plain)
        try addLitestreamTables(livePath, seq: 7)
        _ = try registry.register(try experienceJSON("https://shop.example/b"))
        let underLitestream = temporaryDatabasePath()
        try registry.backup(to: underLitestream)
        try addLitestreamTables(livePath, seq: 9)
        let expected = ["_litestream_lock", "_litestream_seq", "seq 9"]

        // A backup taken while Litestream replicated is a registry backup like any other.
        _ = try registry.restore(from: underLitestream)
        #expect(try registry.experiences().map(\.url.path) == ["/a", "/b"])
        #expect(try litestreamRows(livePath) == expected, "the live tables and row as Litestream left them, not the backup's")
        // One from before Litestream ran: its tables are still there for Litestream's next checkpoint.
        _ = try registry.restore(from: plain)
        #expect(try registry.experiences().map(\.url.path) == ["/a"])
        #expect(try litestreamRows(livePath) == expected)
        #expect(try Connection(path: livePath).integrityCheck() == ["ok"])
        // Without Litestream, a restore adds none of its tables.
        let elsewhere = temporaryDatabasePath()
        let other = try Registry(path: elsewhere)
        _ = try other.restore(from: underLitestream)
        #expect(try litestreamRows(elsewhere) == [])
        #expect(try other.experiences().map(\.url.path) == ["/a", "/b"])
    }

    @Test func idsAreNeverReusedAcrossARestore() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        let a = try registry.register(try experienceJSON("https://shop.example/a")).value
        let old = temporaryDatabasePath()
        try registry.backup(to: old)
        let b = try registry.register(try experienceJSON("https://shop.example/b")).value
        _ = try registry.update(String(b.id), with: ["subtitle": "Changed"])
        guard let lastChange = try registry.changes(since: 0, limit: 1000).last?.id else { Issue.record("no change id"); return }

        _ = try registry.restore(from: old)
        let after = try registry.changes(since: lastChange, limit: 10)
        #expect(after.map(\.action) == [.restore], "a consumer polling since=\(lastChange) sees the restore")
        let c = try registry.register(try experienceJSON("https://shop.example/c")).value
        #expect(c.id > b.id, "experience \(b.id) was handed out before the restore; the next is \(c.id)")
        #expect(
            try registry.changes(since: lastChange, limit: 10).map(\.entityID) == ["main", String(c.id)],
            "the restore, then the new experience")
        // A stale ETag of the experience the restore removed names nothing now.
        #expect(throws: RegistryError.notFound("experience \(b.id)")) {
            try registry.update(String(b.id), with: ["subtitle": "Stale"], expectedVersion: 2)
        }
        #expect(try registry.experience(String(c.id)).defaultCard.subtitle == "Tap to unlock")
        // Every object the restore replaced has a new version (versionsRiseAcrossARestore).
        #expect(try registry.experience(String(a.id)).version == 2)
    }

    /// ETags name an object's version: after a restore, no version a client saw before it names
    /// other content (the restored object is above both).
    @Test func versionsRiseAcrossARestore() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let backup = temporaryDatabasePath()
        try registry.backup(to: backup)
        _ = try registry.update("1", with: ["title": "Changed"])  // version 2, seen by a client
        _ = try registry.restore(from: backup)
        let restored = try registry.experience("1")
        #expect(restored.version == 3 && restored.defaultCard.title == "Rent a bike")
        #expect(throws: RegistryError.versionMismatch(expected: 2, actual: 3)) {
            try registry.update("1", with: ["subtitle": "Stale"], expectedVersion: 2)
        }
        #expect(throws: RegistryError.versionMismatch(expected: 1, actual: 3)) {
            try registry.update("1", with: ["subtitle": "Stale"], expectedVersion: 1)
        }
    }

    @Test func aRestoreRefusesContentTheRegistryCannotRead() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        _ = try registry.register(try experienceJSON("https://shop.example/b"))
        _ = try registry.register(try experienceJSON("https://cafe.example/menu", clip: "FGHIJ67890.com.cafe.app.Clip"))
        let good = temporaryDatabasePath()
        try registry.backup(to: good)
        let candidates: [(name: String, path: String, says: [String])] = [
            (
                "a URL that is no URL",
                try alteredBackup(registry, "UPDATE advanced_experience SET url = 'ht!tp://??', host = '' WHERE id = 2"),
                ["experience 2: "]
            ),
            (
                "a URL not in canonical form",
                try alteredBackup(registry, "UPDATE advanced_experience SET url = 'https://SHOP.example:443/a' WHERE id = 1"),
                ["experience 1: url https://SHOP.example:443/a is not in canonical form (https://shop.example/a)"]
            ),
            (
                "a host that is not the URL's",
                try alteredBackup(registry, "UPDATE advanced_experience SET host = 'cafe.example' WHERE id = 1"),
                [
                    "experience 1: host cafe.example is not its URL's host shop.example",
                    "experience of ABCDE12345 on cafe.example: the team does not hold the host",
                ]
            ),
            (
                "an unknown category",
                try alteredBackup(registry, "UPDATE advanced_experience SET business_category = 'GAMBLING' WHERE id = 3"),
                ["experience 3: "]
            ),
            (
                "a team on a host it does not hold", try alteredBackup(registry, "DELETE FROM host_team WHERE host = 'cafe.example'"),
                ["association of FGHIJ67890 on cafe.example: the team does not hold the host", "experience of FGHIJ67890 on cafe.example"]
            ),
            (
                "a host not in normalized form",
                try alteredBackup(registry, "UPDATE domain_association SET host = 'Cafe.Example' WHERE host = 'cafe.example'"),
                ["domain association on Cafe.Example: the host is not in normalized form"]
            ),
            (
                "an app of a malformed team",
                try alteredBackup(
                    registry,
                    "UPDATE team SET id = 'fghij6789!' WHERE id = 'FGHIJ67890'; UPDATE app SET team_id = 'fghij6789!' WHERE team_id = 'FGHIJ67890'; UPDATE host_team SET team_id = 'fghij6789!' WHERE team_id = 'FGHIJ67890'"
                ),
                ["app com.cafe.app: "]
            ),
            (
                "a change record the registry's JSON parser refuses",
                try alteredBackup(registry, #"UPDATE change_record SET after = '{"a":1,"a":2}' WHERE id = 1"#),
                ["change record 1: after is not JSON"]
            ),
            // What the registry would refuse as input is refused from a backup too.
            (
                "a 100,000-character title",
                try alteredBackup(
                    registry, "UPDATE advanced_experience_localization SET title = printf('%.100000c', 'x') WHERE experience_id = 1"),
                ["experience 1: title: is 100000 characters"]
            ),
            (
                "a title with a bidi control and NUL",
                try alteredBackup(
                    registry,
                    "UPDATE advanced_experience_localization SET title = 'A' || char(0x202E) || char(0) || 'evil' WHERE experience_id = 1"),
                ["experience 1: title"]
            ),
            (
                "a place the registry does not know",
                try alteredBackup(registry, #"UPDATE advanced_experience SET place = '{"bogus":1}' WHERE id = 2"#),
                ["experience 2: place"]
            ),
            (
                "an app name of 9,999 characters",
                try alteredBackup(registry, "UPDATE app SET name = printf('%.9999c', 'n') WHERE bundle_id = 'com.cafe.app'"),
                ["app com.cafe.app: name"]
            ),
            (
                "a negative version", try alteredBackup(registry, "UPDATE advanced_experience SET version = -5 WHERE id = 3"),
                ["experience 3: version -5"]
            ),
            // The AASA invariant every write keeps holds for a restored database too.
            (
                "an AASA over 128 KB",
                try alteredBackup(
                    registry,
                    #"INSERT INTO applinks_details(host, app_bundle_id, position, components, updated_at) VALUES ('shop.example', 'com.example.bikes', 0, '[{"/":"' || printf('%.140000c', 'a') || '"}]', 'now')"#
                ),
                ["AASA of shop.example: ", "over Apple's limit of 131072 bytes"]
            ),
        ]
        let reader = try Registry(path: livePath)
        let before = try liveState(livePath)
        for candidate in candidates {
            do {
                _ = try registry.restore(from: candidate.path)
                Issue.record("\(candidate.name) was restored")
            } catch {
                #expect("\(error)".hasPrefix("\(candidate.path) has content this version cannot use"), "\(candidate.name): \(error)")
                for says in candidate.says { #expect("\(error)".contains(says), "\(candidate.name): \(error)") }
            }
            #expect(try liveState(livePath) == before, "\(candidate.name) changed the database")
            #expect(try leftovers(livePath) == [], "\(candidate.name) left files beside the database")
        }
        #expect(try reader.experiences().count == 3 && reader.verifyContent() == [])
        #expect(try registry.restore(from: good).migrated == [])
    }

    @Test func aBackupNeverTakesTheDatabasesOwnNames() throws {
        let livePath = temporaryDatabasePath()
        let registry = try Registry(path: livePath)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        let folder = (livePath as NSString).deletingLastPathComponent
        let link = folder + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        let before = try liveState(livePath)
        for (target, says) in [
            (livePath + "-journal", "the database's journal file"), (folder + "/./clips.db-journal", "the database's journal file"),
            (link + "/clips.db-journal", "the database's journal file"), (livePath + "-wal", "the database's wal file"),
            (livePath + "-shm", "the database's shm file"), (link + "/clips.db", "the database itself"),
        ] {
            #expect { try registry.backup(to: target) } throws: {
                "\($0)" == "\(target) is \(says) (SQLite's name for it); choose another name for the backup"
            }
            #expect(try liveState(livePath) == before && leftovers(livePath) == [], "\(target)")
        }
        #expect(!FileManager.default.fileExists(atPath: livePath + "-journal"))
        #expect(try Registry(path: livePath).experiences().count == 1)
    }
}
