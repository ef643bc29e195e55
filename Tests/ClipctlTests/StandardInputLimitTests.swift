import Foundation
import Testing

/// Standard input is read up to what the value it carries may hold (found by hostile QA: `--image -`, `@-` and
/// `import -` read it without end): beyond, the command says so, exits 65 and writes nothing.
struct StandardInputLimitTests {
    static let tenMiB = 10 * 1024 * 1024

    static func databaseBytes(_ clipctl: Clipctl) -> [Data?] {
        ["", "-wal"].map { FileManager.default.contents(atPath: clipctl.file("clips.db" + $0)) }
    }

    @Test func moreThanAValueMayHoldIsRefusedAndNothingWritten() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let state = try clipctl.state()
        let bytes = Self.databaseBytes(clipctl)
        let register = ["register", "https://bikesrental.example/new", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T"]
        let tooMuch = String(repeating: "A", count: Self.tenMiB + 1)
        let cases: [(arguments: [String], stdin: String, says: String)] = [
            (register + ["--subtitle", "S", "--image", "-"], tooMuch, "standard input for --image holds more than 10485760 bytes"),
            (register + ["--place", "@-"], tooMuch, "standard input for --place holds more than 10485760 bytes"),
            // A line with no end: longer than a line carrying the largest image can be.
            (["import", "-"], String(repeating: "A", count: 15 * 1024 * 1024), "is longer than 15029592 bytes on standard input"),
        ]
        for (arguments, stdin, says) in cases {
            let r = try clipctl.run(arguments, stdin: stdin, timeoutSeconds: 120)
            #expect(r.code == 65 && r.err.contains(says) && r.out.isEmpty, "\(arguments.first!): \(r.code) \(r.err.prefix(300))")
            #expect(Self.databaseBytes(clipctl) == bytes, "\(arguments.first!) changed the database")
        }
        #expect(try clipctl.state() == state)
        // Up to the limit, standard input is read as before: an import of many lines streams through.
        let lines = (1...3).map {
            #"{"url":"https://bikesrental.example/in\#($0)","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"S"}"#
        }
        let imported = try clipctl.run(["import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(imported.code == 0 && imported.out.hasPrefix("imported 3 experiences"), "\(imported.err)")
    }

    /// Standard input is one stream: two values that both name it are a usage error (found by hostile QA:
    /// `--image - --place @-` gave the image's bytes to --place), before anything is read or written.
    @Test func twoValuesCannotBothBeStandardInput() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let bytes = Self.databaseBytes(clipctl)
        let r = try clipctl.run(["update", "1", "--image", "-", "--place", "@-"], stdin: "{}")
        #expect(r.code == 64 && r.err.contains("both read standard input; give one of them a file"), "\(r.code) \(r.err)")
        #expect(Self.databaseBytes(clipctl) == bytes)
    }

    /// `import -` sent to a server goes in one request body: standard input is read up to what one takes
    /// by default, not without end (found by hostile QA: `yes | clipctl --server … import -` grew without bound).
    @Test func anImportSentToAServerReadsStandardInputUpToABody() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let token = try clipctl.run(["token", "create", "--admin", "--name", "t"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let state = try clipctl.state()
        let line = #"{"url":"https://bikesrental.example/x","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"S"}"#
        let stdin = String(repeating: line + "\n", count: Self.tenMiB / line.utf8.count + 2)
        let r = try clipctl.run(
            ["--server", "http://127.0.0.1:\(server.port)", "--token", token, "import", "-"], stdin: stdin, timeoutSeconds: 120)
        #expect(r.code == 65 && r.err.contains("holds more than 10485760 bytes, the most one request to a server"), "\(r.code) \(r.err)")
        #expect(try clipctl.state() == state)
    }
}
