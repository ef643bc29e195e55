import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import TestSupport
import Testing
@testable import ClipStore

/// The read model saved beside the database and read back at the next start: used only when it is
/// exactly what this build wrote for this database, caught up by the change records after it, and
/// never a way to change the database or another file.
@Suite(.serialized) struct SavedReadModelTests {
    static let clip = "ABCDE12345.com.shop.app.Clip"

    /// A registry with experiences (one with a localization and a place), a removal, a default
    /// experience and an applinks rule.
    static func registry() throws -> (path: String, registry: Registry) {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        for i in 0..<40 {
            _ = try registry.register(try experienceJSON("https://shop.example/store/\(i)", clip: clip))
        }
        _ = try registry.register(
            try experienceJSON(
                "https://shop.example/menu?table=1", clip: clip,
                extra:
                    #","localizations":{"FR":{"title":"Carte","subtitle":"Ici"}},"place":{"names":["Café"],"displayPoint":{"coordinates":{"latitude":1.5,"longitude":2}}}"#
            ))
        _ = try registry.remove("https://shop.example/store/3")
        _ = try registry.setDefaultExperience(clip: try AppID(clip), action: .view, localizations: ["en-US": "Hi"])
        return (path, registry)
    }

    static let probes = [
        "https://shop.example/store/1/x", "https://shop.example/store/3", "https://shop.example/menu?table=1&utm=qr",
        "https://shop.example/nothing", "https://new.example/a", "https://shop.example/store/39",
    ]

    /// What a read model built from the rows answers now.
    static func answers(_ index: LiveIndex) throws -> [String] {
        try probes.map { try index.resolve($0, preferences: [.FR], at: .earliest).json(explain: false) }.map { JSONWriter.string($0) }
            + ["shop.example", "new.example"].map { host in (try index.aasa(host: host)?.etag) ?? "none" }
    }

    static func fresh(_ path: String) throws -> [String] { try answers(LiveIndex(path: path, checkIntervalNanoseconds: 0)) }

    @Test func savedAtAStopAndReadBackWithTheSameAnswers() throws {
        let (path, _) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        let first = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        #expect(first.start == .built(ignoring: nil))
        #expect(try first.save(to: file))
        #expect(try first.save(to: file) == false, "nothing changed: not written again")
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let before = try snapshot(path)
        let second = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        #expect(second.start == .saved(replayed: 0))
        #expect(second.count == first.count)
        #expect(try Self.answers(second) == Self.fresh(path))
        #expect(try second.save(to: file) == false)
        #expect(try snapshot(path) == before, "reading and saving the read model never writes the database")
    }

    /// Writes made while no server ran (the CLI) are replayed from the change records.
    @Test func changesAfterTheSaveAreReplayed() throws {
        let (path, registry) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        try LiveIndex(path: path, checkIntervalNanoseconds: 0).save(to: file)
        _ = try registry.register(try experienceJSON("https://new.example/a", clip: Self.clip))
        _ = try registry.update("https://shop.example/store/1", with: try JSONParser.parse(#"{"title":"Renamed"}"#))
        _ = try registry.remove("https://shop.example/store/39")
        _ = try registry.setStatus("https://shop.example/store/2", .deactivated)
        _ = try registry.setDefaultExperience(clip: try AppID(Self.clip), action: .open, localizations: ["fr": "Salut"])
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        guard case .saved(let replayed) = index.start else {
            Issue.record("not read from the saved read model: \(index.start)")
            return
        }
        #expect(replayed >= 5)
        #expect(try Self.answers(index) == Self.fresh(path))
        #expect(try index.resolve("https://new.example/a", preferences: [], at: .earliest).json(explain: false) != nil)
        // Saved again with what it caught up.
        #expect(try index.save(to: file))
        #expect(try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file).start == .saved(replayed: 0))
    }

    /// Another database's read model (or this one's before a restore) is not continued: built from the rows.
    @Test func anotherDatabasesOrARestoredOnesIsNotUsed() throws {
        let (path, registry) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        let backup = path + ".backup"
        try registry.backup(to: backup)
        _ = try registry.register(try experienceJSON("https://new.example/a", clip: Self.clip))
        try LiveIndex(path: path, checkIntervalNanoseconds: 0).save(to: file)
        _ = try registry.restore(from: backup)
        let restored = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        guard case .built(let why?) = restored.start else {
            Issue.record("used after a restore: \(restored.start)")
            return
        }
        #expect(why.contains("does not continue"))
        #expect(try Self.answers(restored) == Self.fresh(path))

        // A file copied beside another database whose history differs.
        let (other, _) = try Self.registry()
        try FileManager.default.copyItem(atPath: file, toPath: SavedReadModel.path(besideDatabase: other))
        let elsewhere = try LiveIndex(path: other, checkIntervalNanoseconds: 0, savedReadModel: SavedReadModel.path(besideDatabase: other))
        #expect(elsewhere.start != .saved(replayed: 0))
        #expect(try Self.answers(elsewhere) == Self.fresh(other))
    }

    /// A migration can change rows without change records: a read model saved under other migrations is not read.
    @Test func aReadModelOfOtherMigrationsIsNotUsed() throws {
        let (path, _) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        try LiveIndex(path: path, checkIntervalNanoseconds: 0).save(to: file)
        let state = try LiveIndex.State(registry: Registry(path: path), checkIntervalNanoseconds: 0)
        #expect(try SavedReadModel.load(file, migrations: state.migrations()) != nil)
        #expect(throws: SavedReadModel.Problem("the database's migrations changed since")) {
            try SavedReadModel.load(file, migrations: state.migrations() ^ 1)
        }
    }

    /// Every single flipped byte, a cut anywhere, an empty file: refused (the checksum, the header,
    /// the image's own checks), the index built from the rows with the right answers.
    @Test func aDamagedFileIsNotUsed() throws {
        let (path, _) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        try LiveIndex(path: path, checkIntervalNanoseconds: 0).save(to: file)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let expected = try Self.fresh(path)
        var g = SplitMix64(state: 3)
        var damages: [(String, [UInt8])] = [("empty", []), ("the header only", Array(good.prefix(112)))]
        for position in Array(0..<112) + (0..<150).map({ _ in 112 + g.next(good.count - 112) }) {
            var damaged = good
            damaged[position] ^= UInt8(1 << g.next(8))
            damages.append(("byte \(position) flipped", damaged))
        }
        for cut in [1, 8, 9, 500, good.count / 2] { damages.append(("\(cut) bytes cut", Array(good.dropLast(cut)))) }
        for (what, bytes) in damages {
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o600)
            let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
            guard case .built(let why?) = index.start else {
                Issue.record("\(what): used (\(index.start))")
                continue
            }
            #expect(why.hasPrefix(file), "\(what)")
            #expect(try Self.answers(index) == expected, "\(what)")
        }
    }

    /// A file of the same name that is not one this program saved: not read, and not replaced.
    @Test func someoneElsesFileIsNeitherReadNorReplaced() throws {
        let (path, _) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        let theirs = Array("my notes, not a read model\n".utf8)
        try Data(theirs).write(to: URL(fileURLWithPath: file))
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        #expect(index.start == .built(ignoring: "\(file): it is not a saved read model"))
        #expect(throws: SavedReadModel.Problem.self) { try index.save(to: file) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == theirs)

        // A symbolic link (to a real read model): neither followed when reading nor replaced when saving.
        try FileManager.default.removeItem(atPath: file)
        let real = path + ".real"
        try index.save(to: real)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: real)
        let linked = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file)
        #expect(linked.start == .built(ignoring: "\(file): it is a symbolic link"))
        #expect(throws: SavedReadModel.Problem.self) { try linked.save(to: file) }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == real)

        // A FIFO (opening one for reading would wait for a writer forever) and a directory: not regular files.
        try FileManager.default.removeItem(atPath: file)
        #expect(mkfifo(file, 0o600) == 0)
        #expect(
            try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file).start
                == .built(ignoring: "\(file): it is not a regular file"))
        #expect(throws: SavedReadModel.Problem.self) { try index.save(to: file) }
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        #expect(
            try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file).start
                == .built(ignoring: "\(file): it is not a regular file"))
        #expect(throws: SavedReadModel.Problem.self) { try index.save(to: file) }

        // One that others may write is not trusted.
        try FileManager.default.removeItem(atPath: file)
        try index.save(to: file)
        chmod(file, 0o666)
        #expect(
            try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file).start
                == .built(ignoring: "\(file): it is not owned by this user, or others may write it"))
        // Nor one another user owns (only root can make one here).
        if geteuid() == 0 {
            chmod(file, 0o600)
            chown(file, 65534, 65534)
            #expect(
                try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: file).start
                    == .built(ignoring: "\(file): it is not owned by this user, or others may write it"))
            #expect(throws: SavedReadModel.Problem.self) { try index.save(to: file) }
        }
    }

    /// A save cut off by a kill leaves `FILE.saving-PID`: the next save removes it when that process
    /// is gone and the file is one it began; anything else of a similar name stays.
    @Test func leftoversOfAKilledSaveAreRemovedAndNothingElse() throws {
        let (path, _) = try Self.registry()
        let file = SavedReadModel.path(besideDatabase: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        // A process that has exited: its pid is free (unless reused at once, which the test would then only not cover).
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let deadPID = gone.processIdentifier
        let leftover = "\(file).saving-\(deadPID)"
        try Data(SavedReadModel.magic + [1, 2, 3]).write(to: URL(fileURLWithPath: leftover))
        let emptyLeftover = "\(file).saving-\(deadPID + 100_000)"
        try Data().write(to: URL(fileURLWithPath: emptyLeftover))
        let notOurs = "\(file).saving-\(deadPID + 200_000)"
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: notOurs))
        let running = "\(file).saving-\(getppid())"
        try Data(SavedReadModel.magic).write(to: URL(fileURLWithPath: running))
        let oddName = "\(file).saving-0\(deadPID)"
        try Data(SavedReadModel.magic).write(to: URL(fileURLWithPath: oddName))
        #expect(try index.save(to: file))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: SavedReadModel.directory(of: path)))
        let base = (file as NSString).lastPathComponent
        #expect(!names.contains((leftover as NSString).lastPathComponent))
        #expect(!names.contains((emptyLeftover as NSString).lastPathComponent))
        #expect(names.contains((notOurs as NSString).lastPathComponent))
        #expect(names.contains((running as NSString).lastPathComponent), "a running process's file stays")
        #expect(names.contains((oddName as NSString).lastPathComponent))
        #expect(names.contains(base))
        #expect(!names.contains("\(base).saving-\(getpid())"), "its own temporary file renamed")
    }

    /// Where the file cannot be written (its folder is a file): an error, nothing else changes.
    @Test func aSaveThatCannotWriteSaysSoAndChangesNothing() throws {
        let (path, _) = try Self.registry()
        let blocker = SavedReadModel.directory(of: path) + "/blocker"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let before = try snapshot(path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        #expect(throws: SavedReadModel.Problem.self) { try index.save(to: blocker + "/read-model") }
        #expect(try snapshot(path) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: blocker)) == Data("x".utf8))
    }
}
