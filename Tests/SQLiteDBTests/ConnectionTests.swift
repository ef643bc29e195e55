import Foundation
import Testing
@testable import SQLiteDB

/// Each test gets its own database file in a fresh temporary directory.
func temporaryDatabasePath(_ name: String = "test.db") -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitedb-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}

struct ConnectionTests {
    @Test func opensInWALWithForeignKeysAndFullSync() throws {
        let db = try Connection(path: temporaryDatabasePath())
        #expect(try db.query("PRAGMA journal_mode").first?.values.first == .text("wal"))
        #expect(try db.query("PRAGMA foreign_keys").first?.values.first == .integer(1))
        #expect(try db.query("PRAGMA synchronous").first?.values.first == .integer(2))  // FULL
    }

    @Test func strictTablesRefuseWrongTypesWithExtendedCode() throws {
        let db = try Connection(path: temporaryDatabasePath())
        try db.execute("CREATE TABLE t (n INTEGER NOT NULL UNIQUE) STRICT")
        let datatype = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (?)", ["text"]) }
        #expect(datatype?.extendedCode == SQLiteError.ExtendedCode.constraintDatatype)
        try db.execute("INSERT INTO t VALUES (?)", [1])
        let unique = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (?)", [1]) }
        #expect(unique?.isUniqueViolation == true)
        #expect(unique?.sql == "INSERT INTO t VALUES (?)")
    }

    @Test func doubleQuotedStringLiteralsAreOff() throws {
        let db = try Connection(path: temporaryDatabasePath())
        try db.execute("CREATE TABLE t (a TEXT) STRICT")
        #expect(throws: SQLiteError.self) { try db.query("SELECT * FROM t WHERE a = \"oops\"") }
    }

    @Test func writeRollsBackOnErrorAndRethrows() throws {
        let db = try Connection(path: temporaryDatabasePath())
        try db.execute("CREATE TABLE t (a INTEGER) STRICT")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.write {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.query("SELECT count(*) AS n FROM t").first?.int("n") == 0)
        #expect(!db.isInsideTransaction)
        try db.write { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.query("SELECT a FROM t").map { try $0.int("a") } == [2])
    }

    @Test func refusesAFileThatIsNotADatabase() throws {
        let path = temporaryDatabasePath()
        try Data("this is not a database, just text that is long enough".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { try Connection(path: path) }
        #expect(error?.isNotADatabase == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("this is not a database"))
    }

    @Test func refusesAnUnopenablePath() {
        let error = #expect(throws: SQLiteError.self) { try Connection(path: "/nonexistent-dir-\(UUID().uuidString)/x.db") }
        #expect(error?.isAccessProblem == true)
    }

    @Test func refusesMoreThanOneStatementAndWrongParameterCount() throws {
        let db = try Connection(path: temporaryDatabasePath())
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1; SELECT 2") }
        #expect(throws: SQLiteError.self) { try db.query("SELECT ?", []) }
    }

    @Test func roundTripsValues() throws {
        let db = try Connection(path: temporaryDatabasePath())
        let row = try #require(
            try db.query(
                "SELECT ? AS a, ? AS b, ? AS c, ? AS d, ? AS e", [.integer(-7), .real(1.5), .text("é🎉"), .blob([0, 1, 255]), .null]
            ).first)
        #expect(row.values == [.integer(-7), .real(1.5), .text("é🎉"), .blob([0, 1, 255]), .null])
        #expect(throws: RowError.self) { try row.string("a") }
        #expect(throws: RowError.self) { try row.int("missing") }
    }

    @Test func aWriterWaitsForTheLockThenFailsBusy() throws {
        let path = temporaryDatabasePath()
        let a = try Connection(path: path)
        var options = Connection.Options()
        options.busyTimeoutMilliseconds = 100
        let b = try Connection(path: path, options: options)
        try a.execute("CREATE TABLE t (a INTEGER) STRICT")
        try a.execute("BEGIN IMMEDIATE")
        let error = #expect(throws: SQLiteError.self) { try b.write { try b.execute("INSERT INTO t VALUES (1)") } }
        #expect(error?.isBusy == true)
        try a.execute("COMMIT")
        try b.write { try b.execute("INSERT INTO t VALUES (1)") }
        // A write by one connection is visible to the other's next read.
        #expect(try a.query("SELECT count(*) AS n FROM t").first?.int("n") == 1)
    }
}

struct MigratorTests {
    let migrations = [
        Migrator.Migration(name: "0002_b", sql: "ALTER TABLE a ADD COLUMN y TEXT"),
        Migrator.Migration(name: "0001_a", sql: "CREATE TABLE a (x INTEGER) STRICT; CREATE INDEX a_x ON a(x);"),
    ]

    @Test func appliesInOrderOnceAndRecordsEach() throws {
        let db = try Connection(path: temporaryDatabasePath())
        let migrator = Migrator(migrations: migrations)
        #expect(try migrator.migrate(db) == ["0001_a", "0002_b"])
        #expect(try migrator.migrate(db) == [])
        #expect(try migrator.isUpToDate(db))
        try db.execute("INSERT INTO a(x, y) VALUES (1, 'ok')")
    }

    @Test func aFailingMigrationLeavesNothingOfItself() throws {
        let db = try Connection(path: temporaryDatabasePath())
        let broken = Migrator(
            migrations: migrations + [Migrator.Migration(name: "0003_c", sql: "CREATE TABLE c (x INTEGER); CREATE TABLE oops (")])
        #expect(throws: SQLiteError.self) { try broken.migrate(db) }
        #expect(try Migrator(migrations: migrations).appliedNames(db) == ["0001_a", "0002_b"])
        #expect(try db.query("SELECT name FROM sqlite_master WHERE name = 'c'").isEmpty)
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let db = try Connection(path: temporaryDatabasePath())
        try Migrator(migrations: migrations).migrate(db)
        let older = Migrator(migrations: [migrations[1]])
        #expect(throws: Migrator.MigratorError.unknownMigrations(["0002_b"])) { try older.migrate(db) }
    }

    @Test func verifyAcceptsAPrefixOfTheHistoryWithItsExactSchemaOnly() throws {
        let migrator = Migrator(migrations: migrations)
        let older = try Connection(path: temporaryDatabasePath())
        try Migrator(migrations: [migrations[1]]).migrate(older)
        #expect(try migrator.verify(older) == 1)
        try older.execute("ALTER TABLE a ADD COLUMN z TEXT")
        #expect { try migrator.verify(older) } throws: { "\($0)".contains("unexpected column a.z") }

        let gap = try Connection(path: temporaryDatabasePath())
        try migrator.migrate(gap)
        try gap.execute("DELETE FROM schema_migrations WHERE name = '0001_a'")
        #expect { try migrator.verify(gap) } throws: { "\($0)".contains("0001_a not recorded, though 0002_b is") }
        let foreign = try Connection(path: temporaryDatabasePath())
        try foreign.executeScript("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('init');")
        #expect(throws: Migrator.MigratorError.foreignHistory(["init"])) { try migrator.verify(foreign) }
    }

    @Test func anUpToDateReadOnlyDatabaseOpensAndAnOutOfDateOneIsRefused() throws {
        let path = temporaryDatabasePath()
        try Migrator(migrations: [migrations[1]]).migrate(try Connection(path: path))
        var options = Connection.Options()
        options.readOnly = true
        let readOnly = try Connection(path: path, options: options)
        #expect(readOnly.isReadOnly)
        #expect(try Migrator(migrations: [migrations[1]]).migrate(readOnly) == [])
        #expect(throws: Migrator.MigratorError.readOnly(pending: ["0002_b"])) { try Migrator(migrations: migrations).migrate(readOnly) }
    }
}

struct ReplaceContentsTests {
    @Test func holdsTheWriteLockBeforeWritingAndOthersSeeOldThenNew() throws {
        let path = temporaryDatabasePath()
        let live = try Connection(path: path)
        try live.executeScript("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        let sourcePath = temporaryDatabasePath()
        let source = try Connection(path: sourcePath)
        try source.executeScript("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (2);")
        var options = Connection.Options()
        options.busyTimeoutMilliseconds = 0
        let other = try Connection(path: path, options: options)
        var seen: [SQLValue]?
        try live.replaceContents(with: source) { () throws -> Void in
            // Another writer is locked out, and a reader still sees the content being replaced.
            #expect { try other.execute("BEGIN IMMEDIATE") } throws: { ($0 as? SQLiteError)?.isBusy == true }
            seen = try other.query("SELECT x FROM t").first?.values
        }
        #expect(seen == [.integer(1)])
        #expect(try other.query("SELECT x FROM t").first?.values == [.integer(2)])

        struct Stop: Error {}
        #expect(throws: Stop.self) { try live.replaceContents(with: try Connection(path: temporaryDatabasePath())) { throw Stop() } }
        #expect(try other.query("SELECT x FROM t").first?.values == [.integer(2)], "nothing written when beforeWriting throws")
    }
}
