import Foundation
import StrictJSON
import TestSupport
import Testing

/// A header image's hash is public (resolve shows it), so naming it proves nothing: another
/// team cannot put team A's image on its cards by hash, and cannot learn whether an image is
/// stored (docs/rules.md#header-images). Bringing the bytes is what lets a team use an image.
@Suite(.serialized) struct ImageTenancyTests {
    func imageRows(_ clipctl: Clipctl) throws -> String {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [
            "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM header_image').fetchone()[0])",
            clipctl.file("clips.db"),
        ]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        python.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    @Test func anotherTeamCannotUseAnImageByItsHash() throws {
        var clipctl = try Clipctl()
        try Data(TestImages.png(width: 1800, height: 1200, grey: 7)).write(to: URL(fileURLWithPath: clipctl.file("a.png")))
        let a = try clipctl(
            "register", "https://a.example/", "--clip", "ABCDE12345.com.a.app.Clip", "--title", "A", "--subtitle", "Mine", "--image",
            "a.png", "--json")
        let sha = try #require(try JSONParser.parse(Array(a.out.utf8))["headerImage"]?.stringValue)
        #expect(
            try clipctl("register", "https://b.example/", "--clip", "FGHIJ67890.com.b.app.Clip", "--title", "B", "--subtitle", "Theirs")
                .code == 0)
        let teamB = try clipctl("token", "create", "--team", "FGHIJ67890", "--name", "b").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        // The hash is public.
        #expect(try clipctl("resolve", "https://a.example/", "--json").out.contains(sha))
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        clipctl.environment["CLIP_TOKEN"] = teamB
        let before = try clipctl.state()
        let unknown = String(repeating: "0", count: 64)
        func importNaming(_ hash: String) throws -> Clipctl.Result {
            try clipctl.run(
                ["import", "-", "--json"],
                stdin:
                    #"{"url":"https://b.example/x","clip":"FGHIJ67890.com.b.app.Clip","title":"B","subtitle":"S","headerImage":"\#(hash)"}"#
                    + "\n")
        }
        let stolen = try importNaming(sha), missing = try importNaming(unknown)
        #expect(stolen.code == 65 && stolen.err.contains("headerImage.missing"), "\(stolen.err)")
        // The same answer as for an image that is not stored: no oracle.
        #expect(stolen.err.replacingOccurrences(of: sha, with: unknown) == missing.err)
        #expect(try clipctl.state() == before)
        // Team A names its own image by hash, locally, without the file.
        clipctl.environment["CLIP_SERVER"] = nil
        #expect(
            try clipctl.run(
                ["import", "-"],
                stdin:
                    #"{"url":"https://a.example/again","clip":"ABCDE12345.com.a.app.Clip","title":"A","subtitle":"S","headerImage":"\#(sha)"}"#
                    + "\n"
            ).code == 0)
    }

    @Test func aRefusedRegistrationStoresNoImage() throws {
        let clipctl = try Clipctl()
        try Data(TestImages.png(width: 1800, height: 1200, grey: 9)).write(to: URL(fileURLWithPath: clipctl.file("b.png")))
        #expect(
            try clipctl("register", "https://a.example/", "--clip", "ABCDE12345.com.a.app.Clip", "--title", "A", "--subtitle", "Mine").code
                == 0)
        let refused = try clipctl(
            "register", "https://a.example/b", "--clip", "FGHIJ67890.com.b.app.Clip", "--title", "B", "--subtitle", "S", "--image", "b.png")
        #expect(refused.code == 1)
        #expect(try imageRows(clipctl) == "0")
    }

    @Test func aLanguageNamedTwiceIsAUsageError() throws {
        let clipctl = try Clipctl()
        #expect(
            try clipctl("register", "https://a.example/", "--clip", "ABCDE12345.com.a.app.Clip", "--title", "A", "--subtitle", "S").code
                == 0)
        #expect(try clipctl("update", "1", "--localization", "FR=Un|Deux", "--remove-localization", "fr").code == 64)
        #expect(try clipctl("update", "1", "--localization", "FR=a|b", "--localization", "FR=c|d").code == 64)
        #expect(try clipctl("show", "1", "--json").out.contains("\"FR\"") == false)
    }
}
