import ArgParse
import ClipCommands
import Foundation
import Synchronization
import Testing

@testable import ClipCLI

/// clipctl's man page and completions come from `ClipCLI.root`: every command and option of the
/// grammar is in each, and the maintenance words answer only when alone.
struct GeneratedDocumentationTests {
    static func clipctl(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
        final class Text: Sendable { let value = Mutex("") }
        let out = Text()
        let err = Text()
        let io = CLIIO(
            out: { text in out.value.withLock { $0 += text } }, err: { text in err.value.withLock { $0 += text } },
            readStandardInput: { _ in [] })
        let code = ClipCLI.run(arguments, environment: [:], io: io)
        return (code, out.value.withLock { $0 }, err.value.withLock { $0 })
    }

    static func everyCommand(_ command: CommandSpec = ClipCLI.root, _ path: [String] = []) -> [(path: [String], spec: CommandSpec)] {
        [(path, command)] + command.subcommands.flatMap { everyCommand($0, path + [$0.name]) }
    }

    @Test func theManPageNamesEveryCommandAndOption() {
        let page = Self.clipctl(["--generate-man", "2026-01-02"])
        #expect(page.code == 0)
        #expect(page.out.hasPrefix(".TH \"CLIPCTL\" 1 \"2026-01-02\" \"clipctl \(BuildInfo.version.replacing("-", with: "\\-"))\""))
        let commands = Self.everyCommand()
        #expect(commands.count > 50)
        for (path, spec) in commands.dropFirst() {
            #expect(page.out.contains(".SS \"\(path.joined(separator: " ").replacing("-", with: "\\-"))\"\n"), "\(path)")
            for option in spec.options {
                #expect(page.out.contains("\\fB\\-\\-\(option.name.replacing("-", with: "\\-"))\\fR"), "\(path) \(option.name)")
            }
        }
        for option in Commands.globals { #expect(page.out.contains("\\fB\\-\\-\(option.name.replacing("-", with: "\\-"))\\fR")) }
    }

    @Test(arguments: ShellCompletion.Shell.allCases) func eachCompletionNamesEveryCommandAndOption(shell: ShellCompletion.Shell) {
        let script = Self.clipctl(["--generate-completion", shell.rawValue])
        #expect(script.code == 0)
        for (path, spec) in Self.everyCommand().dropFirst() {
            #expect(script.out.contains("' \(path.joined(separator: " "))'"), "\(path)")
            for option in spec.options { #expect(script.out.contains(shell == .fish ? "-l '\(option.name)'" : "--\(option.name)")) }
        }
    }

    @Test func maintenanceWordsAnswerOnlyAlone() {
        let version = Self.clipctl(["--version"])
        #expect(version.code == 0)
        #expect(version.out == "clipctl \(BuildInfo.version) (commit \(BuildInfo.commit))\n")
        #expect(Self.clipctl(["--generate-completion", "powershell"]).code == 64)
        #expect(Self.clipctl(["--generate-completion", ""]).code == 64)
        #expect(Self.clipctl(["--generate-completion"]).code == 64)
        #expect(Self.clipctl(["--version", "list"]).code == 64, "not a global option")
        #expect(Self.clipctl(["list", "--version"]).code == 64)
        #expect(Self.clipctl(["--generate-man", "a", "b"]).code == 64)
    }
}
