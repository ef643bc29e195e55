import Foundation
import Testing

/// The first day (issue: a token made in another folder went to a new ./clips.db, and the server
/// then answered every call 401): a command that creates a database says so with its path, a server
/// whose database has no admin token says once how to make one, and an app made without a name says
/// how to give it one (its default card shows it).
@Suite struct FirstDayProcessTests {
    @Test func aNewDatabaseIsNamedWhenCreatedAndAServerWithoutAnAdminTokenSaysHowToMakeOne() throws {
        let clipctl = try Clipctl()
        let first = try clipctl("--db", "elsewhere.db", "token", "create", "--admin", "--name", "ci")
        #expect(first.code == 0 && first.err.hasPrefix("created elsewhere.db\ntoken 1 (admin) created"), "\(first.err)")
        let second = try clipctl("--db", "elsewhere.db", "token", "list")
        #expect(second.code == 0 && !second.err.contains("created"), "\(second.err)")

        // A refused restore creates nothing (QA: it left an empty database behind).
        let refused = try clipctl("--db", "new.db", "restore", "nowhere.db")
        #expect(refused.code == 1 && !FileManager.default.fileExists(atPath: clipctl.file("new.db")), "\(refused.err)")
        let server = try ServeProcess(clipctl, database: "empty.db")
        _ = server.stop()
        let log = try String(contentsOfFile: clipctl.file("serve-stderr.log"), encoding: .utf8)
        #expect(
            log.contains("empty.db has no admin token; make one with: clipctl --db empty.db token create --admin --name NAME"), "\(log)")
        #expect(log.contains("created empty.db"), "serve says it made the database too: \(log)")
        let served = try ServeProcess(clipctl, database: "elsewhere.db")
        _ = served.stop()
        let quiet = try String(contentsOfFile: clipctl.file("serve-stderr.log"), encoding: .utf8)
        #expect(!quiet.contains("no admin token"), "\(quiet)")
    }

    @Test func anAppMadeWithoutANameSaysHowToNameIt() throws {
        let clipctl = try Clipctl()
        let r = try clipctl("register", "https://a.example/x", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S")
        #expect(r.out.contains("app com.a has no name, which its default card shows: clipctl app set com.a --team ABCDE12345 --name NAME"))
        #expect(try clipctl("app", "set", "com.a", "--team", "ABCDE12345", "--name", "A").code == 0)
        let again = try clipctl("register", "https://a.example/y", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S")
        #expect(!again.out.contains("has no name"), "\(again.out)")
    }
}

extension FirstDayProcessTests {
    /// The README's lines that take the quick start's demo away: afterwards no host is served.
    @Test func theQuickStartsDemoComesAwayWithTheReadmesTwoLines() throws {
        let clipctl = try Clipctl()
        let r = try clipctl(
            "register", "https://bikesrental.example/rent", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "Rent a bike",
            "--subtitle", "Unlock one in seconds", "--category", "BIKES")
        #expect(r.code == 0, "\(r.err)")
        #expect(try clipctl("remove", "1").code == 0)
        #expect(try clipctl("aasa", "bikesrental.example").code == 0, "the experience alone leaves the host associated")
        #expect(try clipctl("domain", "remove", "ABCDE12345.com.example.bikes.Clip", "bikesrental.example").code == 0)
        #expect(try clipctl("aasa", "bikesrental.example").code == 1)
    }
}
