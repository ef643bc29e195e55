import ArgParse
import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON

/// One `clipctl` invocation: the parsed command, the environment and where to print.
final class Context {
    let parsed: ParsedCommand
    let environment: [String: String]
    let io: CLIIO
    /// What `serve` runs (`ClipCLI.run`'s `serve`).
    let serveEntry: ServeEntry?
    var json: Bool { parsed.flag("json") }
    private var openedRegistry: Registry?
    /// The option whose value standard input was: it is read once, so a second is a usage error.
    private var standardInputTakenBy: String?

    /// The command line's words as the application layer reads them.
    var words: CommandWords {
        CommandWords(path: parsed.path, positionals: parsed.positionals, values: parsed.values, flags: parsed.flags)
    }

    init(parsed: ParsedCommand, environment: [String: String], io: CLIIO, serveEntry: ServeEntry? = nil) {
        self.parsed = parsed
        self.environment = environment
        self.io = io
        self.serveEntry = serveEntry
    }

    /// `--db PATH`, env `CLIP_DB`, default `./clips.db` (docs/application-layer.md#clipctl).
    var databasePath: String { parsed.value("db") ?? environment["CLIP_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "clips.db" }

    /// `--server URL` or env `CLIP_SERVER`: commands go to that server's API instead. An explicit
    /// `--db` wins over `CLIP_SERVER` (an option over the environment); `--server` with `--db` is a usage error.
    var remoteServer: String? {
        if let server = parsed.value("server") { return server }
        guard parsed.value("db") == nil else { return nil }
        return environment["CLIP_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The server named by `--server` (docs/application-layer.md#clipctl: the same commands, the same output); nil
    /// on the local database.
    func server() throws -> RemoteServer? {
        guard let server = remoteServer else { return nil }
        if parsed.value("db") != nil { throw CommandFailure.usage("--db and --server exclude each other") }
        var timeout = 30.0
        if let text = environment["CLIP_TIMEOUT"], !text.isEmpty {
            guard let seconds = Double(text), seconds > 0 else { throw CommandFailure.usage("CLIP_TIMEOUT takes a number of seconds") }
            timeout = seconds
        }
        return try RemoteServer(
            server: server, token: parsed.value("token") ?? environment["CLIP_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            timeoutSeconds: timeout)
    }

    func registry() throws -> Registry {
        if let openedRegistry { return openedRegistry }
        let existed = FileManager.default.fileExists(atPath: databasePath)
        let registry = try Registry(path: databasePath, actor: "clipctl:\(environment["USER"] ?? "local")")
        // Said, so that a command run from the wrong folder does not quietly start a second database (QA).
        if !existed { io.err("created \(databasePath)\n") }
        openedRegistry = registry
        return registry
    }

    /// The handler of every command path clipctl runs: the runnable commands of `Commands.root`
    /// (a test checks that the keys are exactly those).
    static let handlers: [[String]: @Sendable (Context) throws -> Void] = [
        ["aasa", "check"]: { try $0.aasaCheck() },
        ["aasa", "lint"]: { try $0.aasaLint() },
        ["doctor"]: { try $0.doctor() },
        ["publish"]: { try $0.publish() },
        ["serve"]: { try $0.serve() },
        ["backup"]: { try $0.backup() },
        ["restore"]: { try $0.restore() },
    ]

    func dispatch() throws {
        if let binding = ClipCLI.binding(for: parsed.path) { return try perform(binding) }
        guard let handler = Self.handlers[parsed.path] else {
            throw CommandFailure.usage("unknown command \(parsed.path.joined(separator: " "))")
        }
        try handler(self)
    }

    // MARK: Output helpers

    /// Where an operation's command prints (`Binding.present`, `DoctorCommand`, `PublishCommand`).
    var printer: Printer {
        Printer(out: io.out, err: io.err, outIsTerminal: io.standardOutputIsTerminal, errIsTerminal: io.standardErrorIsTerminal)
    }

    // MARK: Input helpers

    func requiredValue(_ name: String) throws -> String {
        guard let value = parsed.value(name) else { throw CommandFailure.usage("missing --\(name)") }
        return value
    }

    /// The bytes of the file `path` an option names, or standard input for `-`. Only a regular file is
    /// read (`RegularFile`: a FIFO or a device is refused before it is opened for reading).
    func readFile(_ path: String, option: String) throws -> [UInt8] {
        if path == "-" { return try readStandardInput(for: option) }
        do { return try RegularFile.read(path, what: "\(option) file") } catch {
            throw Self.unreadable(error)
        }
    }

    /// The most standard input read for one value: `--image`, the largest header image (`HeaderImage.maxBytes`);
    /// anything else (a JSON `@-`, an AASA file), what the API takes in one request body by default
    /// (docs/http-api.md#limits: 10 MiB, `--max-body-bytes`). A file names its size; a stream does not, so
    /// it is read up to the limit and refused beyond it rather than held whole.
    static func standardInputLimit(for option: String) -> Int { option == "--image" ? HeaderImage.maxBytes : 10 * 1024 * 1024 }

    /// Standard input, whole, up to its limit (exit 65 beyond it, before anything is written).
    func readStandardInput(for option: String) throws -> [UInt8] {
        try takeStandardInput(for: option)
        let limit = Self.standardInputLimit(for: option)
        let bytes = io.readStandardInput(limit + 1)
        guard bytes.count <= limit else {
            throw CommandFailure(
                code: ExitCode.invalidInput,
                message: "standard input for \(option) holds more than \(limit) bytes, the most it may (nothing was written)")
        }
        return bytes
    }

    /// A file read as it goes, a chunk at a time (`Registry.importChunkBytes`), or standard input for `-`:
    /// its size (0 for standard input) and its next chunk. Only a regular file is opened.
    func openFile(_ path: String, what: String) throws -> (size: Int, next: () throws -> ArraySlice<UInt8>?) {
        let chunkBytes = Registry.importChunkBytes
        if path == "-" {
            try takeStandardInput(for: what)
            let io = self.io
            // Sent to a server in one request body: read up to what one takes by default
            // (docs/http-api.md#limits), as `@-` is, rather than without end.
            let limit = try server() == nil ? nil : Self.standardInputLimit(for: what)
            var total = 0
            return (
                0,
                { () -> ArraySlice<UInt8>? in
                    let bytes = io.readStandardInput(chunkBytes)
                    total += bytes.count
                    if let limit, total > limit {
                        throw CommandFailure(
                            code: ExitCode.invalidInput,
                            message: "standard input for the \(what) holds more than \(limit) bytes, the most one request to a server "
                                + "takes by default (nothing was written); give a file, which a server started with a larger --max-body-bytes takes"
                        )
                    }
                    return bytes.isEmpty ? nil : bytes[...]
                }
            )
        }
        let file: RegularFile
        do { file = try RegularFile(path, what: what) } catch { throw Self.unreadable(error) }
        return (
            file.size,
            { () -> ArraySlice<UInt8>? in
                let data = try file.read(upTo: chunkBytes)
                return data.isEmpty ? nil : data[...]
            }
        )
    }

    /// Standard input is one stream: two values cannot both be it (`--image - --place @-`).
    private func takeStandardInput(for option: String) throws {
        if let first = standardInputTakenBy {
            throw CommandFailure.usage("\(first) and \(option) both read standard input; give one of them a file")
        }
        standardInputTakenBy = option
    }

    /// A user-named input file that is not read, exit 1; a stream goes to standard input as `-`.
    static func unreadable(_ refusal: RegularFile.Refusal) -> CommandFailure {
        CommandFailure(
            code: ExitCode.failure,
            message: refusal.description + (refusal.isNotRegular ? " (to read a stream, give - and pipe it to standard input)" : ""))
    }
}
