import Foundation
import Testing

/// The experience commands run in-process on a database: `list` reads every page of its route (the
/// route answers at most 1000 a page), and an experience is named by id or by its URL in any spelling.
struct ExperienceCommandTests {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("experience-commands-\(UUID().uuidString)").path

    func clipctl(_ arguments: String...) -> (code: Int32, out: String, err: String) {
        GeneratedDocumentationTests.clipctl(["--db", dir + "/clips.db"] + arguments)
    }

    /// Found by hostile QA: locally `--no-category` was ignored beside `--category`, remotely the body named it twice.
    @Test func aValueAndItsClearingInOneUpdateIsAUsageError() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(
            clipctl(
                "register", "https://bikes.example/rent", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S"
            )
            .code == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/clips.db"))
        for (set, clear) in [
            (["--category", "FOOD_AND_DRINK"], "--no-category"),
            (["--place", #"{"displayPoint":{"coordinates":{"latitude":1,"longitude":2}}}"#], "--no-place"),
            (["--powered-by"], "--not-powered-by"),
        ] {
            let refused = GeneratedDocumentationTests.clipctl(["--db", dir + "/clips.db", "update", "1"] + set + [clear])
            #expect(refused.code == 64 && refused.err.contains("contradict each other"), "\(refused)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/clips.db")) == before)
    }

    @Test func listReadsEveryPageAndAURLInAnySpellingNamesItsExperience() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let lines = (0..<1001).map {
            #"{"url":"https://bikes.example/rent/\#(String(format: "%04d", $0))","clip":"ABCDE12345.com.example.bikes.Clip","title":"Rent","subtitle":"Now"}"#
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/all.ndjson"))
        #expect(clipctl("import", dir + "/all.ndjson").code == 0)
        let listed = clipctl("list")
        #expect(listed.code == 0 && listed.out.split(separator: "\n").count == 1001)
        #expect(listed.out.split(separator: "\n").last?.contains("https://bikes.example/rent/1000") == true)
        let shown = clipctl("show", "HTTPS://Bikes.Example:443/rent/1000")
        #expect(shown.code == 0 && shown.out.hasPrefix("experience 1001 (version 1)\n"))
        #expect(
            clipctl("deactivate", "https://bikes.example/rent/0000").out.hasPrefix(
                "experience 1 is DEACTIVATED: https://bikes.example/rent/0000\n")
        )
        #expect(clipctl("list", "--status", "deactivated").out.split(separator: "\n").count == 1)
        #expect(clipctl("remove", "https://bikes.example/rent/0500").out == "removed experience 501: https://bikes.example/rent/0500\n")
        let gone = clipctl("show", "https://bikes.example/rent/0500")
        #expect(gone.code == 1 && gone.err == "clipctl: not found: experience with URL https://bikes.example/rent/0500\n")
        let invisible = clipctl("show", "1\u{200B}")
        #expect(invisible.code == 65, "an id with an invisible character is no id, and no URL")
    }
}
