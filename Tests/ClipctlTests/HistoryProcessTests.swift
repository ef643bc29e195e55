import Foundation
import StrictJSON
import TestSupport
import Testing

/// `clipctl history` on a database and over `--server`: the operation declared once in the
/// application layer gives the same records both ways (docs/application-layer.md#operations-and-bindings).
@Suite(.serialized) struct HistoryProcessTests {
    /// The records' actions and changed members, leaving out times and actors (which differ by where they ran)
    /// and each record's before → after lines.
    static func shape(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { line in
            line.components(separatedBy: "  ").dropFirst(3).joined(separator: " ")
        }
    }

    @Test func theSameHistoryLocallyAndOverTheAPI() throws {
        let local = try Clipctl()
        var remote = try Clipctl()
        let admin = try remote("--db", "served.db", "token", "create", "--admin", "--name", "admin").out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try remote("--db", "served.db", "token", "create", "--team", "ZYXWV98765", "--name", "other").out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = admin
        var outputs: [[String]] = []
        var texts: [String] = []
        for c in [local, remote] {
            let url = "https://bikes.example/rent"
            #expect(
                try c("register", url, "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "Bikes", "--subtitle", "Rent").code == 0)
            #expect(try c("update", url, "--title", "E-bikes", "--subtitle", "Rent one").code == 0)
            #expect(try c("deactivate", url).code == 0)
            let byURL = try c("history", url)
            guard case .integer(let id)? = try JSONParser.parse(Array(try c("show", url, "--json").out.utf8))["id"] else {
                Issue.record("show --json gave no id")
                return
            }
            let byID = try c("history", String(id))
            #expect(byURL.code == 0 && byURL.out == byID.out && byURL.err.isEmpty, "\(byURL.err)")
            outputs.append(Self.shape(byURL.out))
            texts.append(byURL.out)
            // A page, and where the rest begins.
            let page = try c("history", String(id), "--limit", "2", "--json")
            let json = try JSONParser.parse(Array(page.out.utf8))
            #expect(json["items"]?.arrayValue?.count == 2 && json["nextSince"] != .null)
            #expect(try c("remove", url).code == 0)
            #expect(Self.shape(try c("history", String(id)).out).last == "remove")
            // Bad arguments: every one named, exit 65; an unknown experience: exit 1.
            let bad = try c("history", String(id), "--limit", "0", "--since", "x")
            #expect(bad.code == 65 && bad.err.contains("limit:") && bad.err.contains("since:"), "\(bad.err)")
            #expect(try c("history", "987654").code == 1)
        }
        #expect(
            outputs[0] == outputs[1]
                && outputs[0] == ["create version 1", "update version 2 title, subtitle", "deactivate version 3 status"], "\(outputs)")
        // Each changed field before → after, and who: the token by its name (the database's user locally).
        for text in texts {
            let lines = text.split(separator: "\n").map(String.init)
            #expect(
                lines.filter { $0.hasPrefix(" ") } == [
                    #"    title: "Bikes" → "E-bikes""#, #"    subtitle: "Rent" → "Rent one""#, #"    status: "ACTIVE" → "DEACTIVATED""#,
                ], "\(text)")
        }
        #expect(texts[0].split(separator: "\n").first?.components(separatedBy: "  ")[2].hasPrefix("clipctl:") == true, "\(texts[0])")
        #expect(texts[1].split(separator: "\n").first?.components(separatedBy: "  ")[2] == "token admin", "\(texts[1])")
        #expect(!texts[1].contains("token:"), "\(texts[1])")
        // The scheme of --server in any case (RFC 3986 §3.1), and where the rest of a page begins, as a command.
        var shouting = remote
        shouting.environment["CLIP_SERVER"] = "HTTP://127.0.0.1:\(server.port)"
        let paged = try shouting("history", "1", "--limit", "1")
        #expect(paged.code == 0 && paged.out.split(separator: "\n").count == 1, "\(paged.err)")
        #expect(
            paged.err.hasPrefix("more records follow: clipctl history 1 --since ") && paged.err.hasSuffix(" --limit 1\n"), "\(paged.err)")
        // Another team's token learns nothing of the experience.
        var stranger = remote
        stranger.environment["CLIP_TOKEN"] = other
        let refused = try stranger("history", "1")
        #expect(refused.code == 1 && refused.err.contains("not found"), "\(refused.err)")
        #expect(server.stop() == 0)
    }
}
