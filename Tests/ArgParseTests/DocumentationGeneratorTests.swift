import Foundation
import Testing

@testable import ArgParse

/// The man page and completion scripts, read back by the programs that use them: groff renders the
/// page, bash, zsh and fish parse the scripts and bash and fish complete from them.
struct DocumentationGeneratorTests {
    /// Help texts a renderer or shell would misread if written as they are: a leading `.` or `'` (a roff
    /// control line), backslashes, quotes of every kind, `$(…)` and backquotes, a line break, a tab, a
    /// control character, non-ASCII text and a zero-width space.
    static let hostile = "'quoted' \"double\" \\back $(touch /tmp/pwned) `id` ;|&<> *?[ ] a:b\nsecond\tline\u{7} ≤ é 🚲 zero\u{200B}width"
    static let root = CommandSpec(
        "tool", summary: ".starts with a dot", discussion: "'starts with a quote\nsecond paragraph \\fB not bold",
        subcommands: [
            CommandSpec(
                "get", summary: hostile, positionals: [PositionalSpec("ID", help: hostile)],
                options: [
                    .option("format", short: "f", value: "F", help: hostile), .flag("explain", help: "-leading minus"),
                    .option("tag", value: "T", help: "tag", repeatable: true),
                ]),
            CommandSpec(
                "group", summary: "group",
                subcommands: [
                    CommandSpec("add", summary: "add", positionals: [PositionalSpec("X", help: "x")], options: [.flag("force", help: "f")]),
                    CommandSpec("get", summary: "a name reused deeper", options: [.option("depth", value: "N", help: "n")]),
                ]),
        ])
    static let globals: [OptionSpec] = [.option("db", value: "PATH", help: "db"), .flag("json", help: "json")]

    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments` and `input` on standard input; standard output and error, and the exit status.
    static func run(_ executable: String, _ arguments: [String], input: String = "") throws -> (out: String, err: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["HOME"] = FileManager.default.temporaryDirectory.path
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self), process.terminationStatus)
    }

    static func written(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appending(path: "argparse-doc-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func escapingKeepsRoffControlCharactersAsText() {
        #expect(ManPage.escape(".TH x") == "\\&.TH x")
        #expect(ManPage.escape("'br") == "\\&'br")
        #expect(ManPage.escape("a\\fBb") == "a\\efBb")
        #expect(ManPage.escape("--db") == "\\-\\-db")
        #expect(ManPage.escape("≤🚲") == "\\[u2264]\\[u1F6B2]")
        #expect(ManPage.escape("a\nb\u{7}") == "a b")
        let page = ManPage.roff(root: Self.root, globals: Self.globals, date: "", source: "")
        #expect(page.unicodeScalars.allSatisfy { $0.isASCII })
    }

    /// groff renders every command, option and help text as written, and warns about nothing.
    @Test(.enabled(if: tool("groff") != nil)) func groffRendersEveryCommandAndOptionAsWritten() throws {
        let page = ManPage.roff(root: Self.root, globals: Self.globals, date: "2026-01-02", source: "tool 1.0")
        let rendered = try Self.run(Self.tool("groff")!, ["-man", "-Tutf8", "-ww", "-P-cbou", "-rLL=400n"], input: page)
        #expect(rendered.status == 0)
        #expect(rendered.err == "", "groff warnings")
        let text = rendered.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let hostileAsRendered = Self.hostile.replacing("\n", with: " ").replacing("\t", with: " ").replacing("\u{7}", with: "")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(hostileAsRendered))
        for expected in [
            ".starts with a dot", "'starts with a quote", "second paragraph \\fB not bold", "tool group add X [options]", "tool group get",
            "-f, --format F", "--explain -leading minus", "--tag T tag (repeatable)", "--db PATH", "--json", "--force", "--depth N",
            "tool get ID [options]",
        ] {
            #expect(text.contains(expected), "\(expected)")
        }
        #expect(!text.contains(".TH") && !text.contains(".SH"))
    }

    @Test(arguments: ShellCompletion.Shell.allCases) func everyScriptParses(shell: ShellCompletion.Shell) throws {
        guard let executable = Self.tool(shell.rawValue) else { return }  // zsh and fish are optional here
        let path = try Self.written(ShellCompletion.script(for: shell, root: Self.root, globals: Self.globals))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let checked = try Self.run(executable, ["-n", path])
        #expect(checked.status == 0, "\(checked.err)")
    }

    /// bash offers a command's subcommands and options after the words typed, files after an option
    /// taking a value, and knows `get` at the top from `group get`.
    @Test(.enabled(if: tool("bash") != nil)) func bashCompletesEachCommandsWords() throws {
        let path = try Self.written(ShellCompletion.script(for: .bash, root: Self.root, globals: Self.globals))
        defer { try? FileManager.default.removeItem(atPath: path) }
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let script = """
                source '\(path)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tool; printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try Self.run(Self.tool("bash")!, ["-c", script])
            #expect(result.status == 0, "\(result.err)")
            return result.out.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["tool", ""]) == ["--db", "--json", "get", "group"])
        #expect(try complete(["tool", "--db", "group", ""]) == ["--db", "--json", "get", "group"], "group is the database file here")
        #expect(try complete(["tool", "--db", "/dev/nul"]) == ["/dev/null"], "a file name")
        #expect(try complete(["tool", "group", "get", "--depth", "/dev/nul"]) == ["/dev/null"], "a file name")
        #expect(try complete(["tool", "group", ""]) == ["--db", "--json", "add", "get"])
        #expect(try complete(["tool", "group", "get", "--"]) == ["--db", "--depth", "--json"])
        #expect(try complete(["tool", "get", "--format", "x", "--"]) == ["--db", "--explain", "--format", "--json", "--tag"])
        #expect(try complete(["tool", "get", "-f", "csv", "--e"]) == ["--explain"])
        #expect(try complete(["tool", "nosuch", ""]) == ["--db", "--json", "get", "group"])
    }

    @Test(.enabled(if: tool("fish") != nil)) func fishCompletesEachCommandsWords() throws {
        let path = try Self.written(ShellCompletion.script(for: .fish, root: Self.root, globals: Self.globals))
        defer { try? FileManager.default.removeItem(atPath: path) }
        func complete(_ line: String) throws -> [String] {
            let result = try Self.run(Self.tool("fish")!, ["--no-config", "-c", "source '\(path)'; complete -C '\(line)'"])
            #expect(result.status == 0, "\(result.err)")
            return result.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
        }
        #expect(try complete("tool ") == ["get", "group"])
        #expect(try complete("tool group ") == ["add", "get"])
        #expect(try complete("tool group get --") == ["--db", "--depth", "--help", "--json"].filter { $0 != "--help" })
        #expect(try complete("tool get --ex") == ["--explain"])
    }
}
