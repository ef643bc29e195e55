import Foundation
import StrictJSON
import Testing

/// A database in a folder nobody may write: every read command works, a write says the
/// database is read-only (exit 1), and `clipctl serve` is ready, answers writes 503 and says
/// why at start-up. Root ignores permissions, so as root the folder is made read-only by a
/// read-only bind mount in a private mount namespace (`unshare -m`) around each command; as
/// another user, by its permissions. Skipped, with the reason, only when neither is possible.
@Suite(.serialized) struct ReadOnlyDatabaseTests {
    /// How a command is run against the read-only folder, or nil when it cannot be made read-only.
    static let mechanism: Mechanism? = Mechanism.probe()

    enum Mechanism {
        case permissions
        case readOnlyBindMount

        static func probe() -> Mechanism? {
            if getuid() != 0 { return .permissions }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return nil }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ro-probe-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // Works only if the mount is read-only even for root: the touch must fail.
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            probe.arguments = [
                "-m", "--propagation", "private", "/bin/sh", "-c", Self.mountScript + " && ! touch \"$1/x\" 2>/dev/null", "sh", folder,
            ]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { return nil }
            probe.waitUntilExit()
            return probe.terminationStatus == 0 ? .readOnlyBindMount : nil
        }

        static let mountScript = #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1""#

        /// A process running clipctl with `arguments` in `clipctl`'s folder, made read-only.
        func process(_ clipctl: Clipctl, _ arguments: [String]) -> Process {
            let process = Process()
            process.environment = clipctl.environment
            process.currentDirectoryURL = clipctl.directory
            switch self {
            case .permissions:
                process.executableURL = Clipctl.binary
                process.arguments = arguments
            case .readOnlyBindMount:
                process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
                process.arguments =
                    [
                        "-m", "--propagation", "private", "/bin/sh", "-c", Self.mountScript + #" && shift && cd "$0" && exec "$@""#,
                        clipctl.directory.path, clipctl.directory.path, Clipctl.binary.path,
                    ] + arguments
            }
            return process
        }

        func makeReadOnly(_ clipctl: Clipctl) {
            if self == .permissions {
                chmod(clipctl.file("clips.db"), 0o444)
                chmod(clipctl.directory.path, 0o555)
            }
        }

        func makeWritable(_ clipctl: Clipctl) {
            chmod(clipctl.directory.path, 0o755)
            chmod(clipctl.file("clips.db"), 0o644)
        }
    }

    func run(_ mechanism: Mechanism, _ clipctl: Clipctl, _ arguments: [String]) throws -> Clipctl.Result {
        Clipctl.Result(try ProcessRunner.run(mechanism.process(clipctl, arguments)))
    }

    @Test(
        .enabled(
            if: ReadOnlyDatabaseTests.mechanism != nil,
            "no way to make a folder read-only here: running as root without a usable `unshare -m` and bind mounts"))
    func readsWorkAndWritesSayTheDatabaseIsReadOnly() throws {
        let mechanism = try #require(Self.mechanism)
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let token = try clipctl("token", "create", "--admin", "--name", "ro").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try [
            "list", "show 1", "resolve https://bikesrental.example/rent?id=1", "aasa bikesrental.example",
            "banner https://bikesrental.example/rent", "export", "doctor", "changes", "clip list", "token list",
        ].map { line in
            (line, try clipctl.run(line.split(separator: " ").map(String.init)))
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db")))
        #expect(!FileManager.default.fileExists(atPath: clipctl.file("clips.db-wal")), "no -wal left: the connection closed cleanly")
        mechanism.makeReadOnly(clipctl)
        defer { mechanism.makeWritable(clipctl) }

        for (line, writable) in expected {
            let readOnly = try run(mechanism, clipctl, line.split(separator: " ").map(String.init))
            #expect(readOnly.code == writable.code && readOnly.out == writable.out, "\(line): \(readOnly.err)")
        }
        for write in [
            ["remove", "1"],
            ["register", "https://new.example/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S"],
        ] {
            let refused = try run(mechanism, clipctl, write)
            #expect(refused.code == 1 && refused.err.hasPrefix("clipctl: the database clips.db is read-only"), "\(write): \(refused.err)")
        }

        // The server: ready, reads answered, writes 503, and a log line at start-up says why.
        let server = mechanism.process(clipctl, ["serve", "--listen", "127.0.0.1:0"])
        let out = Pipe(), err = Pipe()
        server.standardOutput = out
        server.standardError = err
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let line = out.firstLine()
        let port = try #require(
            line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, "serve printed \(line)")
        #expect(try Self.curl(port, "GET", "/readyz").status == 200)
        let resolved = try Self.curl(port, "GET", "/v1/resolve?url=https%3A%2F%2Fbikesrental.example%2Frent")
        #expect(resolved.status == 200 && resolved.body.contains("Rent a bike"))
        let removed = try Self.curl(port, "DELETE", "/v1/experiences/1", token: token)
        #expect(removed.status == 503 && removed.body.contains("read-only"), "\(removed.body)")
        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains(#""level":"warn","msg":"the database clips.db is read-only: serving reads; writes answer 503""#), "\(log)")

        mechanism.makeWritable(clipctl)
        #expect(try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db"))) == bytes, "the database file is byte-identical")
    }

    static func curl(_ port: Int, _ method: String, _ path: String, token: String? = nil) throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "-X", method, "-w", "\n%{http_code}", "--max-time", "5"] + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
            + ["http://127.0.0.1:\(port)\(path)"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (status, String(text.split(separator: "\n").dropLast().joined(separator: "\n")))
    }
}
