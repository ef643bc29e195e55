import ClipCommands
import ArgParse
import ClipCore
import ClipStore
import ClipApp
import Foundation
import StrictJSON

/// Where `clipctl` reads and writes, injectable so that commands can run in-process in tests.
public struct CLIIO: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void
    /// At most `atMost` bytes of standard input, fewer only at its end (empty: the end).
    public var readStandardInput: @Sendable (_ atMost: Int) -> [UInt8]
    public var standardErrorIsTerminal: Bool
    public var standardOutputIsTerminal: Bool

    public init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        readStandardInput: @escaping @Sendable (_ atMost: Int) -> [UInt8],
        standardErrorIsTerminal: Bool = false, standardOutputIsTerminal: Bool = false
    ) {
        self.out = out
        self.err = err
        self.readStandardInput = readStandardInput
        self.standardErrorIsTerminal = standardErrorIsTerminal
        self.standardOutputIsTerminal = standardOutputIsTerminal
    }
}

/// Exit codes (docs/application-layer.md#clipctl; sysexits.h for 64 and 65).
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    /// Changes are pending (`--detailed-exitcode`, as `terraform plan`'s).
    public static let pending: Int32 = 2
    public static let usage: Int32 = 64
    public static let invalidInput: Int32 = 65
    public static let unavailable: Int32 = 69
}

/// A failure of one command: what to print and the exit code.
struct CommandFailure: Error {
    let code: Int32
    let message: String
    var fieldErrors: [FieldError] = []

    static func usage(_ message: String) -> CommandFailure { CommandFailure(code: ExitCode.usage, message: message) }
    static func invalid(_ field: String, _ rule: String, _ message: String) -> CommandFailure {
        CommandFailure(
            code: ExitCode.invalidInput, message: "invalid input", fieldErrors: [FieldError(field: field, rule: rule, message: message)])
    }

    init(code: Int32, message: String, fieldErrors: [FieldError] = []) {
        self.code = code
        self.message = message
        self.fieldErrors = fieldErrors
    }

    /// Any error a command ends with, as it is reported: an operation's (`Context.commandFailure`), the store's,
    /// or anything else as a failure (exit 1) saying what it is.
    init(reporting error: any Error) {
        switch Context.commandFailure(error) {
        case let failure as CommandFailure: self = failure
        case let error as RegistryError: self.init(error)
        case let other: self.init(code: ExitCode.failure, message: "\(other)")
        }
    }

    init(_ error: RegistryError) {
        switch error {
        case .invalid(let errors): self.init(code: ExitCode.invalidInput, message: "invalid input", fieldErrors: errors)
        case .invalidImport(let lines):
            self.init(
                code: error.isHostRefusal ? ExitCode.failure : ExitCode.invalidInput,
                message: RegistryError.importRefusal(lines),
                fieldErrors: lines.flatMap(\.fieldErrors))
        case .conflict(let message, _): self.init(code: ExitCode.invalidInput, message: message)
        case .notFound, .versionMismatch, .selectionMismatch, .busy, .interrupted, .storage, .unprocessable, .hostRefused, .readOnly:
            self.init(code: ExitCode.failure, message: error.description)
        }
    }

    /// An operation's failure in the application's words: not found and failures elsewhere are failures (1), what
    /// is wrong in the request is invalid input (65: "invalid input" above its field errors, else what it says), what
    /// is not available now exits 69, App Store Connect refusing the key given here is a usage error (64).
    init(_ error: OperationError) {
        switch error {
        case .notFound(let detail), .failedElsewhere(let detail), .notWritten(let detail):
            self.init(code: ExitCode.failure, message: detail)
        case .malformed(let detail, let errors): self.init(code: ExitCode.invalidInput, message: detail, fieldErrors: errors)
        case .invalid(let detail, let errors):
            self.init(code: ExitCode.invalidInput, message: errors.isEmpty ? detail : "invalid input", fieldErrors: errors)
        case .unsupportedMediaType(let detail): self.init(code: ExitCode.invalidInput, message: detail)
        case .tooManyAtOnce(let detail, _), .unavailable(let detail, _), .alreadyRunning(let detail), .unreachable(let detail):
            self.init(code: ExitCode.unavailable, message: detail)
        case .credentialsRefused(let detail): self.init(code: ExitCode.usage, message: detail)
        }
    }

    /// A command that printed its answer and is not a success: no (1), changes pending (2), would be refused (65).
    init(_ verdict: CommandVerdict) {
        switch verdict {
        case .negative(let message): self.init(code: ExitCode.failure, message: message)
        case .pending(let message): self.init(code: ExitCode.pending, message: message)
        case .wouldBeRefused(let message): self.init(code: ExitCode.invalidInput, message: message)
        }
    }
}

public enum ClipCLI {
    /// Runs `clipctl` with `arguments` (without the program name). Returns the exit code. `serve`: what
    /// `clipctl serve` runs (the executable passes `ClipServer.serve`; nil in builds without the server).
    public static func run(_ arguments: [String], environment: [String: String], io: CLIIO, serve: ServeEntry? = nil) -> Int32 {
        if let code = maintenance(arguments, io: io) { return code }
        let parsed: ParsedCommand
        do {
            parsed = try ArgumentParser.parse(arguments, root: ClipCLI.root, globals: Commands.globals)
            if let document = documentation[parsed.path] {
                io.out(try document(parsed))
                return ExitCode.ok
            }
        } catch {
            let help = HelpFormatter.help(for: error.path, root: ClipCLI.root, globals: Commands.globals)
            if case .helpRequested = error {
                io.out(help)
                return ExitCode.ok
            }
            let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
            let name = (["clipctl"] + error.path).joined(separator: " ")
            // The arguments did not parse, so `--json` is looked for among them as written
            // (before a `--` that ends the options): a usage error is then JSON like any other.
            if arguments.prefix(while: { $0 != "--" }).contains("--json") {
                report(CommandFailure.usage("\(error.description) (see '\(name) --help')"), json: true, io: io)
            } else {
                io.err("clipctl: \(error.description)\n\(usage)\nSee '\(name) --help'.\n")
            }
            return ExitCode.usage
        }
        let json = parsed.flag("json")
        do {
            let context = Context(parsed: parsed, environment: environment, io: io, serveEntry: serve)
            try context.dispatch()
            return ExitCode.ok
        } catch {
            let failure = CommandFailure(reporting: error)
            report(failure, json: json, io: io)
            return failure.code
        }
    }

    /// The words outside the command tree, each alone on the command line: `--version`, and for packaging
    /// (scripts/release) `--generate-man [DATE]` (the clipctl(1) page) and `--generate-completion bash|zsh|fish`,
    /// what `clipctl help --man` and `clipctl completion SHELL` print. nil for anything else.
    static func maintenance(_ arguments: [String], io: CLIIO) -> Int32? {
        switch arguments.first {
        case "--version" where arguments.count == 1:
            io.out("clipctl \(BuildInfo.version) (commit \(BuildInfo.commit))\n")
            return ExitCode.ok
        case "--generate-man" where arguments.count <= 2:
            io.out(manPage(date: arguments.count == 2 ? arguments[1] : nil))
            return ExitCode.ok
        case "--generate-completion" where arguments.count == 2:
            guard let shell = ShellCompletion.Shell(rawValue: arguments[1]) else {
                io.err("clipctl: --generate-completion takes bash, zsh or fish\n")
                return ExitCode.usage
            }
            io.out(ShellCompletion.script(for: shell, root: ClipCLI.root, globals: Commands.globals))
            return ExitCode.ok
        default:
            return nil
        }
    }

    /// The commands that print clipctl's own documentation (`Commands.help`, `Commands.completion`), each
    /// generated from `ClipCLI.root`: what each prints for its parsed command line.
    static let documentation: [[String]: @Sendable (ParsedCommand) throws(ArgParseError) -> String] = {
        var commands: [[String]: @Sendable (ParsedCommand) throws(ArgParseError) -> String] = [["help"]: help]
        for shell in ShellCompletion.Shell.allCases {
            commands[["completion", shell.rawValue]] = { _ in
                ShellCompletion.script(for: shell, root: ClipCLI.root, globals: Commands.globals)
            }
        }
        return commands
    }()

    /// `clipctl help [COMMAND [SUBCOMMAND]]`: the help `COMMAND SUBCOMMAND --help` prints, or with `--man`
    /// the manual page; a word that names no command is a usage error, as it is before `--help`.
    static func help(_ parsed: ParsedCommand) throws(ArgParseError) -> String {
        if parsed.flag("man") {
            if let word = parsed.positionals.first { throw .unexpectedArgument(word, path: parsed.path) }
            return manPage(date: nil)
        }
        var path: [String] = []
        for (index, word) in parsed.positionals.enumerated() {
            let command = ArgumentParser.command(at: path, in: ClipCLI.root)
            guard command.subcommands.contains(where: { $0.name == word }) else {
                // The last word may be a verb its command takes as first argument (`applinks webcredentials add`,
                // from `add|remove`): the help of that command, as `COMMAND … VERB --help` prints.
                if index == parsed.positionals.count - 1, Self.verbs(of: command).contains(word) { break }
                throw .unknownCommand(word, path: path)
            }
            path.append(word)
        }
        return HelpFormatter.help(for: path, root: ClipCLI.root, globals: Commands.globals)
    }

    /// The words a command takes as its first argument when that argument is a choice of verbs, spelt in
    /// lower case (`add|remove`), unlike a placeholder (`ID|URL`).
    static func verbs(of command: CommandSpec) -> [String] {
        guard command.subcommands.isEmpty, let first = command.positionals.first else { return [] }
        let choices = first.name.split(separator: "|").map(String.init)
        return choices.count > 1 && choices.allSatisfy { $0 == $0.lowercased() } ? choices : []
    }

    /// The clipctl(1) page. `date` goes in its `.TH` line: scripts/release gives the release commit's; without
    /// one the page is dated the day it is printed (UTC, ISO 8601), as argument-parser's generate-manual dates
    /// its pages, since man(7) readers expect a date there (mandoc warns when it is missing).
    static func manPage(date: String?) -> String {
        let today = Date.now.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
        return ManPage.roff(
            root: ClipCLI.root, globals: Commands.globals, date: date ?? today, source: "clipctl \(BuildInfo.version)",
            manual: "Clip Registry")
    }

    static func report(_ failure: CommandFailure, json: Bool, io: CLIIO) {
        Printer(out: io.out, err: io.err).failure(failure.message, exitCode: failure.code, errors: failure.fieldErrors, json: json)
    }
}
