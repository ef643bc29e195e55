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
}
