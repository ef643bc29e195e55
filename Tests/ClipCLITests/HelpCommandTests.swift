@testable import ArgParse
import ClipCommands
import Foundation
import Testing

@testable import ClipCLI

/// The help that ships with clipctl (docs/cli.md): an example for every command, each parsed by the real
/// parser; `clipctl help …` as `… --help`; the manual page from `clipctl help --man`, clean under groff and
/// mandoc; completion scripts from `clipctl completion SHELL` that bash loads and completes from.
struct HelpCommandTests {
    static let clipctl = GeneratedDocumentationTests.clipctl
    static let runnable = ClipCLI.root.allCommands().filter(\.spec.isRunnable)

    @Test func everyRunnableCommandHasAnExample() {
        #expect(Self.runnable.count > 60)
        let missing = Self.runnable.filter(\.spec.examples.isEmpty).map { $0.path.joined(separator: " ") }
        #expect(missing == [], "commands without an example")
    }

    /// Each example is a command line a shell passes to clipctl as words that parse to its own command, so
    /// an example cannot name an option, a command or an argument count the grammar does not have.
    @Test func everyExampleParsesToItsOwnCommand() throws {
        for (path, spec) in ClipCLI.root.allCommands() {
            for example in spec.examples {
                let words = try #require(example.words, "\(example.commandLine): not plain shell words")
                #expect(words.first == "clipctl", "\(example.commandLine)")
                let parsed = try ArgumentParser.parse(Array(words.dropFirst()), root: ClipCLI.root, globals: Commands.globals)
                #expect(parsed.path == path, "\(example.commandLine)")
                #expect(!example.explanation.isEmpty && !example.explanation.contains("\n"), "\(example.commandLine)")
            }
        }
    }

    @Test func helpCommandPrintsWhatHelpOptionPrints() {
        for (path, _) in ClipCLI.root.allCommands() {
            let asked = Self.clipctl(["help"] + path)
            let option = Self.clipctl(path + ["--help"])
            #expect(asked.code == 0 && option.code == 0, "\(path)")
            #expect(asked.out == option.out, "\(path)")
            #expect(asked.err == "", "\(path)")
        }
        let root = Self.clipctl(["help"]).out
        #expect(root.hasPrefix("clipctl: the Clip Registry command-line tool\n"))
        for word in ["help", "completion", "register", "history"] { #expect(root.contains("\n  \(word) "), "\(word)") }
    }

    @Test func helpShowsExamplesUnderTheirHeading() {
        let help = Self.clipctl(["help", "domain", "add"]).out
        #expect(
            help.hasSuffix(
                """
                EXAMPLES:
                  # List the clip in go.bikesrental.example's AASA
                  clipctl domain add ABCDE12345.com.example.bikes.Clip go.bikesrental.example

                """))
        let history = Self.clipctl(["history", "--help"]).out
        #expect(
            history.contains("\nEXAMPLES:\n  # Every change made to an experience, oldest first\n  clipctl history "),
            "an operation's command")
    }

    /// A word that names no command is refused as the parser refuses it, with the usage of the command above it.
    /// A verb a command takes as its first argument names that command's help (found by hostile QA:
    /// `help applinks webcredentials add` was a usage error while `… add --help` printed the help).
    @Test func helpOfAVerbArgumentIsItsCommandsHelp() {
        for verb in ["add", "remove"] {
            let asked = Self.clipctl(["help", "applinks", "webcredentials", verb])
            let option = Self.clipctl(["applinks", "webcredentials", verb, "--help"])
            #expect(asked.code == 0 && asked.err == "", "\(verb): \(asked.err)")
            #expect(asked.out == option.out && asked.out.contains("USAGE: clipctl applinks webcredentials add|remove HOST"), "\(verb)")
        }
        #expect(Self.clipctl(["help", "applinks", "webcredentials", "nosuch"]).code == 64)
        #expect(Self.clipctl(["help", "applinks", "webcredentials", "add", "x"]).code == 64)
        #expect(Self.clipctl(["help", "applinks", "webcredentials", "ADD"]).code == 64, "verbs are case-sensitive")
        #expect(Self.clipctl(["help", "applinks", "generate", "on"]).code == 64, "on|off is not the first argument")
    }

    @Test func helpOfNoSuchCommandIsAUsageError() {
        let unknown = Self.clipctl(["help", "nosuch"])
        #expect(unknown.code == 64)
        #expect(unknown.out == "")
        #expect(unknown.err.hasPrefix("clipctl: unknown command 'nosuch'\nUSAGE: clipctl <command> [options]\n"))
        let deeper = Self.clipctl(["help", "domain", "nosuch"])
        #expect(deeper.code == 64)
        #expect(deeper.err.hasPrefix("clipctl: unknown command 'nosuch'\nUSAGE: clipctl domain <command> [options]\n"))
        #expect(Self.clipctl(["help", "list", "x"]).code == 64, "list has no subcommands")
        #expect(Self.clipctl(["help", "domain", "add", "x"]).code == 64)
        #expect(Self.clipctl(["help", "--man", "list"]).code == 64)
        #expect(Self.clipctl(["help", "Domain"]).code == 64, "commands are case-sensitive")
        #expect(Self.clipctl(["help", "domain\u{200B}"]).code == 64, "an invisible character is part of the word")
        let json = Self.clipctl(["help", "nosuch", "--json"])
        #expect(json.code == 64)
        #expect(json.err.hasPrefix("{"), "a usage error under --json is JSON")
    }

    @Test func helpManIsThePackagedPageWithEveryExample() throws {
        let page = Self.clipctl(["help", "--man"])
        #expect(page.code == 0)
        let lines = page.out.split(separator: "\n", maxSplits: 1)
        let packaged = Self.clipctl(["--generate-man", "2026-01-02"]).out.split(separator: "\n", maxSplits: 1)
        #expect(lines.last == packaged.last, "the page --generate-man writes for the Debian package, but for its date")
        let dated = try #require(lines.first)
        #expect(dated.wholeMatch(of: /\.TH "CLIPCTL" 1 "20\d\d-\d\d-\d\d" "clipctl .*" "Clip Registry"/) != nil, "\(dated)")
        #expect(page.out.contains("\n.SH EXAMPLES\n"))
        for (_, spec) in ClipCLI.root.allCommands() {
            for example in spec.examples { #expect(page.out.contains("\n.EX\n\(ManPage.escape(example.commandLine))\n.EE\n")) }
        }
    }

    /// groff (with every warning) and mandoc's linter (warnings and worse) read the page without complaint.
    @Test(.enabled(if: Tool.path("groff") != nil)) func groffRendersTheManPageWithoutWarnings() throws {
        let page = Self.clipctl(["help", "--man"]).out
        let rendered = try Tool.run("groff", ["-man", "-Tutf8", "-ww", "-P-cbou", "-rLL=200n"], input: page)
        #expect(rendered.status == 0)
        #expect(rendered.err == "", "groff warnings")
        let text = rendered.out
        #expect(text.contains("EXAMPLES"))
        #expect(text.contains("clipctl applinks set bikesrental.example --app com.example.bikes --components '[{\"/\":\"/rent/*\"}]'"))
        #expect(text.contains("clipctl register https://bikesrental.example/rent/paris"), "a line longer than the page is not broken")
    }

    @Test(.enabled(if: Tool.path("mandoc") != nil)) func mandocFindsNothingToWarnAbout() throws {
        for date in ["", "2026-01-02"] {
            let page = Self.clipctl(date.isEmpty ? ["help", "--man"] : ["--generate-man", date]).out
            let lint = try Tool.run("mandoc", ["-Tlint", "-W", "warning"], input: page)
            #expect(lint.out + lint.err == "", "date '\(date)'")
            #expect(lint.status == 0, "date '\(date)'")
        }
    }

    @Test(arguments: ShellCompletion.Shell.allCases) func completionPrintsTheScriptAndSaysHowToInstallIt(shell: ShellCompletion.Shell) {
        let script = Self.clipctl(["completion", shell.rawValue])
        #expect(script.code == 0)
        #expect(script.out == Self.clipctl(["--generate-completion", shell.rawValue]).out, "what the Debian package installs")
        let help = Self.clipctl(["completion", shell.rawValue, "--help"]).out
        #expect(help.contains("clipctl completion \(shell.rawValue)"))
        let install: [String] =
            switch shell {
            case .bash: ["    source <(clipctl completion bash)\n", "> ~/.local/share/bash-completion/completions/clipctl\n"]
            case .zsh: ["    clipctl completion zsh > ~/.zfunc/_clipctl\n", "    fpath=(~/.zfunc $fpath)\n"]
            case .fish: ["    clipctl completion fish > ~/.config/fish/completions/clipctl.fish\n"]
            }
        for line in install { #expect(help.contains(line), "\(line)") }
        #expect(Self.clipctl(["completion"]).code == 64)
        #expect(Self.clipctl(["completion", "powershell"]).code == 64)
    }

    /// The printed bash script, sourced as the help says, registers clipctl's completion and completes
    /// a subcommand, an option and an operation's command.
    @Test(.enabled(if: Tool.path("bash") != nil)) func bashLoadsTheScriptAndCompletesASubcommand() throws {
        let script = Self.clipctl(["completion", "bash"]).out
        let file = FileManager.default.temporaryDirectory.appending(path: "clipctl-completion-\(UUID().uuidString).bash")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func run(_ commands: String) throws -> String {
            let result = try Tool.run("bash", ["--norc", "--noprofile", "-c", "source '\(file.path)' && " + commands])
            #expect(result.status == 0 && result.err == "", "\(result.err)")
            return result.out
        }
        #expect(try run("complete -p clipctl") == "complete -o default -F _clipctl clipctl\n")
        func complete(_ words: String, _ current: Int) throws -> [String] {
            try run("COMP_WORDS=(\(words)); COMP_CWORD=\(current); _clipctl; printf '%s\\n' \"${COMPREPLY[@]}\"")
                .split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete("clipctl dom", 1) == ["domain"])
        #expect(
            try complete("clipctl domain ''", 2) == [
                "--db", "--help", "--json", "--server", "--token", "-h", "add", "claim", "list", "owners", "remove", "share", "unshare",
            ])
        #expect(try complete("clipctl completion ''", 2).filter { !$0.hasPrefix("-") } == ["bash", "fish", "zsh"])
        #expect(try complete("clipctl token l", 2) == ["list"], "an operation's command")
        #expect(try complete("clipctl help --m", 2) == ["--man"])
        #expect(try run("compgen -W \"$(complete -p clipctl)\" -- -o") == "-o\n")
    }
}

/// A program from the Debian packages scripts/setup installs, run with input on standard input.
enum Tool {
    static func path(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Standard input and error are files, so a long page in and many warnings out cannot fill a pipe both ends wait on.
    static func run(_ name: String, _ arguments: [String], input: String = "") throws -> (out: String, err: String, status: Int32) {
        let directory = FileManager.default.temporaryDirectory.appending(path: "clipctl-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appending(path: "in"), errorFile = directory.appending(path: "err")
        try Data(input.utf8).write(to: inputFile)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path(name)))
        process.arguments = arguments
        process.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": directory.path]
        let stdout = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let err = try Data(contentsOf: errorFile)
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self), process.terminationStatus)
    }
}
