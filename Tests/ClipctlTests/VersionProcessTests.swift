import Foundation
import Testing

/// `clipctl --version` says the version in VERSION and the commit of the checkout it was built from.
struct VersionProcessTests {
    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func versionIsTheVersionFileAndTheCheckedOutCommit() throws {
        let clipctl = try Clipctl()
        let result = try clipctl("--version")
        #expect(result.code == 0)
        let versionFile = try String(contentsOf: Self.packageDirectory.appending(path: "VERSION"), encoding: .utf8)
        let version = versionFile.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!version.isEmpty)
        // git's own answer where there is a checkout and a git; else the build could not know the commit.
        var commit = "unknown"
        if FileManager.default.fileExists(atPath: Self.packageDirectory.appending(path: ".git").path),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/git")
        {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            git.arguments = ["-C", Self.packageDirectory.path, "rev-parse", "HEAD"]
            let output = try ProcessRunner.run(git)
            if output.code == 0 { commit = String(decoding: output.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        #expect(result.out == "clipctl \(version) (commit \(commit))\n")
        #expect(result.err == "")
    }
}
