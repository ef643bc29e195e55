import Foundation
import Testing

/// The install lines `clipctl completion SHELL --help` gives work as written: run in that shell, as a
/// user whose home is empty, with the built clipctl on PATH, they leave the shell completing clipctl.
struct CompletionInstallProcessTests {
    static func shell(_ name: String) -> String? {
        ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The indented lines of the help's discussion (the paragraph after the usage line): the commands to type.
    static func installLines(_ clipctl: Clipctl, _ shell: String) throws -> String {
        let help = try clipctl("completion", shell, "--help")
        #expect(help.code == 0)
        let paragraphs = help.out.split(separator: "\n\n")
        #expect(paragraphs.count > 2 && paragraphs[1].hasPrefix("USAGE: clipctl completion \(shell)"))
        let lines = paragraphs[2].split(separator: "\n").filter { $0.hasPrefix("    ") }.map { $0.dropFirst(4) }
        #expect(!lines.isEmpty)
        return lines.joined(separator: "\n")
    }

    /// Runs `script` in `shell` with HOME the test's folder and clipctl first on PATH.
    static func run(_ clipctl: Clipctl, _ shell: String, _ arguments: [String]) throws -> (code: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.shell(shell)))
        process.arguments = arguments
        var environment = clipctl.environment
        environment["PATH"] = Clipctl.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        process.currentDirectoryURL = clipctl.directory
        let output = try ProcessRunner.run(process, timeoutSeconds: 60)
        return (output.code, String(decoding: output.out, as: UTF8.self), String(decoding: output.err, as: UTF8.self))
    }

    @Test(.enabled(if: shell("bash") != nil)) func bashInstallLinesRegisterTheCompletion() throws {
        let clipctl = try Clipctl()
        let lines = try Self.installLines(clipctl, "bash")
        let probe = "complete -p clipctl; COMP_WORDS=(clipctl dom); COMP_CWORD=1; _clipctl; echo \"${COMPREPLY[*]}\""
        let result = try Self.run(clipctl, "bash", ["--norc", "--noprofile", "-c", lines + "\n" + probe])
        #expect(result.code == 0 && result.err == "", "\(result.err)")
        #expect(result.out == "complete -o default -F _clipctl clipctl\ndomain\n")
        let saved = try String(contentsOfFile: clipctl.file(".local/share/bash-completion/completions/clipctl"), encoding: .utf8)
        #expect(saved == (try clipctl("completion", "bash")).out)
    }

    @Test(.enabled(if: shell("zsh") != nil)) func zshInstallLinesRegisterTheCompletion() throws {
        let clipctl = try Clipctl()
        let lines = try Self.installLines(clipctl, "zsh")
        let result = try Self.run(clipctl, "zsh", ["-f", "-c", lines + "\nprint -r -- ${_comps[clipctl]}"])
        #expect(result.code == 0 && result.err == "", "\(result.err)")
        #expect(result.out == "_clipctl\n", "compinit found _clipctl for clipctl")
    }

    /// Not `--no-config`: fish 3.6 then leaves `fish_complete_path` empty (the home is empty anyway).
    @Test(.enabled(if: shell("fish") != nil)) func fishInstallLinesMakeFishComplete() throws {
        let clipctl = try Clipctl()
        let lines = try Self.installLines(clipctl, "fish")
        let result = try Self.run(clipctl, "fish", ["-c", lines + "\ncomplete -C 'clipctl dom'"])
        #expect(result.code == 0 && result.err == "", "\(result.err)")
        #expect(result.out.hasPrefix("domain\t"), "\(result.out)")
    }
}
