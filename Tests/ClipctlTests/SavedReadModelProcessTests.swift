import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing

/// `clipctl serve` saves its read model at a graceful stop and the next start reads it, catching up
/// with what the CLI wrote in between and while it ran (docs/architecture.md#the-read-model).
@Suite(.serialized) struct SavedReadModelProcessTests {
    static func resolve(_ server: ServeProcess, _ url: String) throws -> String {
        try DoctorPublishTests.curl(port: server.port, host: "127.0.0.1", path: "/v1/resolve?url=\(url)").body
    }

    @Test func aRestartReadsTheSavedReadModelAndCatchesUpWithTheCLI() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let database = clipctl.file("clips.db"), saved = clipctl.file("clips.db-read-model")
        let register = { (url: String) throws in
            let r = try clipctl(
                "--db", database, "register", url, "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S")
            #expect(r.code == 0, "\(r.err)")
        }

        var server = try ServeProcess(clipctl, database: database)
        #expect(try Self.resolve(server, "https://bikesrental.example/rent/7").contains(#""url":"https://bikesrental.example/rent""#))
        #expect(server.stop() == 0)
        var log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("read model: 5 experiences built from the database"), "\(log)")
        #expect(log.contains("saved the read model (5 experiences) to \(saved)"), "\(log)")
        var info = stat()
        #expect(stat(saved, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // Written by the CLI while no server runs: replayed from the change records at the next start.
        try register("https://bikesrental.example/rent/downtown")
        server = try ServeProcess(clipctl, database: database)
        #expect(
            try Self.resolve(server, "https://bikesrental.example/rent/downtown/9").contains(
                #""url":"https://bikesrental.example/rent/downtown""#))
        // Written while it runs: seen now, and in what it saves.
        try register("https://bikesrental.example/rent/uptown")
        #expect(
            try Self.resolve(server, "https://bikesrental.example/rent/uptown").contains(
                #""url":"https://bikesrental.example/rent/uptown""#))
        #expect(server.stop() == 0)
        log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("read model: 6 experiences from the saved read model, 1 changes replayed"), "\(log)")
        #expect(log.contains("saved the read model (7 experiences)"), "\(log)")

        server = try ServeProcess(clipctl, database: database)
        #expect(
            try Self.resolve(server, "https://bikesrental.example/rent/uptown").contains(
                #""url":"https://bikesrental.example/rent/uptown""#))
        #expect(server.stop() == 0)
        log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("read model: 7 experiences from the saved read model, 0 changes replayed"), "\(log)")
        #expect(!log.contains("saved the read model"), "nothing changed: not written again\n\(log)")

        // --no-saved-read-model: built from the rows, the file neither read nor written.
        let before = try Data(contentsOf: URL(fileURLWithPath: saved))
        try register("https://bikesrental.example/rent/east")
        server = try ServeProcess(clipctl, database: database, arguments: ["--no-saved-read-model"])
        #expect(
            try Self.resolve(server, "https://bikesrental.example/rent/east").contains(#""url":"https://bikesrental.example/rent/east""#))
        #expect(server.stop() == 0)
        log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("read model: 8 experiences built from the database"), "\(log)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: saved)) == before)
    }

    /// A restore while the server is stopped: the saved read model no longer fits and is not used.
    @Test func aRestoreWhileStoppedIsNotHiddenByTheSavedReadModel() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let database = clipctl.file("clips.db")
        #expect(try clipctl("--db", database, "backup", clipctl.file("before.db")).code == 0)
        #expect(try clipctl("--db", database, "remove", "https://melamela.example/order").code == 0)
        var server = try ServeProcess(clipctl, database: database)
        #expect(try !Self.resolve(server, "https://melamela.example/order").contains(#""url":"https://melamela.example/order""#))
        #expect(server.stop() == 0)
        let restored = try clipctl("--db", database, "restore", clipctl.file("before.db"))
        #expect(restored.code == 0, "\(restored.err)")
        server = try ServeProcess(clipctl, database: database)
        #expect(try Self.resolve(server, "https://melamela.example/order").contains(#""url":"https://melamela.example/order""#))
        #expect(server.stop() == 0)
        let log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("built from the database") && log.contains("does not continue it"), "\(log)")
    }
}
