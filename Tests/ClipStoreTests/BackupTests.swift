import ClipCore
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
        #expect(try registry.restore(from: backupPath) == [])
        #expect(try export(reader) == snapshotExport)
        #expect(try Connection(path: path).query("PRAGMA journal_mode").first?.values.first == .text("wal"))
        #expect(try registry.changes(since: 0, limit: 10_000).last?["action"] == "restore")
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
}
