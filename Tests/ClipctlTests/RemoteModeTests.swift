import Foundation
import StrictJSON
import Testing

/// `clipctl serve` as a process, and `clipctl --server` against it: the same commands give the
/// same output and exit codes as on a local database (design §4.1).
final class ServeProcess {
    let process = Process()
    let port: Int
    let clipctl: Clipctl

    init(_ clipctl: Clipctl, database: String) throws {
        self.clipctl = clipctl
        process.executableURL = Clipctl.binary
        process.arguments = ["--db", database, "serve", "--listen", "127.0.0.1:0", "--quiet"]
        process.currentDirectoryURL = clipctl.directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens: "serving DB on http://127.0.0.1:PORT".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Clipctl.CLIError(message: "serve printed \(text)")
        }
        self.port = port
    }

    /// SIGTERM: a graceful stop, exit 0.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}

@Suite(.serialized) struct RemoteModeTests {
    @Test func theSameCommandsGiveTheSameOutputOverTheAPI() throws {
        let local = try Clipctl()
        try local.registerExampleBusinesses()

        var remote = try Clipctl()
        let token = try remote("--db", "served.db", "token", "create", "--admin", "--name", "test").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = token
        try remote.registerExampleBusinesses()

        let commands: [[String]] = [
            ["list"], ["list", "--json"], ["list", "--host", "brighteggcafe.example"],
            ["resolve", "https://brighteggcafe.example/store/cupertino/menu", "--language", "fr", "--explain"],
            ["resolve", "https://brighteggcafe.example/stores", "--explain"],
            ["resolve", "https://melamela.example/order?x=1", "--json"],
            ["resolve", "http://melamela.example/order"],
            ["aasa", "brighteggcafe.example"], ["banner", "https://melamela.example/order", "--app-argument", "https://melamela.example/o?a=1,2"],
            ["export"], ["export", "--format", "csv"], ["clip", "list"], ["domain", "list"],
            ["show", "https://BrightEggCafe.example/store/"], ["show", "99"], ["deactivate", "https://melamela.example/order"], ["list"],
            ["register", "http://x.example", "--clip", "nope", "--title", "", "--subtitle", "s"],
            ["register", "https://melamela.example/reservation/", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "T", "--subtitle", "S"],
            ["update", "1", "--title", String(repeating: "x", count: 31)],
            ["remove", "2"], ["list", "--json"],
            ["import", "-"],
            // One language changes one language; no-op writes make no version (issue #10).
            ["update", "3", "--localization", "DE=Bright Egg|Unser Flaggschiff"], ["show", "3", "--json"],
            ["update", "3", "--remove-localization", "FR"], ["show", "3"],
            ["update", "3", "--localization", "EN=Bright Egg|Flagship"],
            ["deactivate", "4"], ["activate", "4"], ["activate", "4"], ["update", "4", "--title", "Order"], ["show", "4", "--json"],
        ]
        let importInput = "{\"url\":\"https://new.example/a\",\"clip\":\"ABCDE12345.com.example.bikes.Clip\",\"title\":\"A\"}\n"
        for args in commands {
            let a = try local.run(args, stdin: args == ["import", "-"] ? importInput : nil)
            let b = try remote.run(args, stdin: args == ["import", "-"] ? importInput : nil)
            #expect(a.code == b.code, "\(args): exit \(a.code) locally, \(b.code) remotely: \(b.err)")
            #expect(Self.withoutTimes(a.out) == Self.withoutTimes(b.out), "\(args)")
            #expect(a.err == b.err, "\(args)")
        }
        // The same change records, action for action, with or without a server between.
        func history(_ c: Clipctl) throws -> [String] {
            let records = try JSONParser.parse(Array(try c.run(["changes", "--json", "--limit", "1000"]).out.utf8)).arrayValue ?? []
            return records.compactMap { r in
                r["entity"] == "token" ? nil : "\(r["action"]?.stringValue ?? "") \(r["entity"]?.stringValue ?? "") \(r["entityId"]?.stringValue ?? "")"
            }
        }
        #expect(try history(local) == history(remote))
        let recent = try history(local).suffix(4)
        #expect(recent == ["remove experience 2", "update experience 3", "update experience 3", "activate experience 4"], "\(recent)")
        #expect(server.stop() == 0, "SIGTERM stops the server gracefully")
    }

    /// Timestamps differ between two databases; everything else must not.
    static func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("edAt\"") || line.hasPrefix("  created:") || line.hasPrefix("  updated:") ? "" : String(line)
        }.joined(separator: "\n")
    }

    @Test func anUnreachableServerExits69AndBadTokensExit1() throws {
        var clipctl = try Clipctl()
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:1"
        let down = try clipctl("list")
        #expect(down.code == 69 && down.err.contains("cannot reach the server"))
        let server = try ServeProcess(clipctl, database: clipctl.file("s.db"))
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        clipctl.environment["CLIP_TOKEN"] = "clip_1_" + String(repeating: "a", count: 64)
        let denied = try clipctl("list")
        #expect(denied.code == 1 && denied.err.contains("check --token"))
        #expect(try clipctl("resolve", "https://a.example/").code == 1, "public routes need no token")
        #expect(try clipctl("--server", "ftp://x", "list").code == 64)
        _ = server.stop()
    }
}
