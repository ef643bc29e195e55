import ArgParse
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// One `clipctl` invocation: the parsed command, the environment and where to print.
final class Context {
    let parsed: ParsedCommand
    let environment: [String: String]
    let io: CLIIO
    var json: Bool { parsed.flag("json") }
    private var openedRegistry: Registry?

    init(parsed: ParsedCommand, environment: [String: String], io: CLIIO) {
        self.parsed = parsed
        self.environment = environment
        self.io = io
    }

    /// Design §4.1: `--db PATH`, env `CLIP_DB`, default `./clips.db`.
    var databasePath: String { parsed.value("db") ?? environment["CLIP_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "clips.db" }

    /// `--server URL` or env `CLIP_SERVER`: commands go to that server's API instead. An explicit
    /// `--db` wins over `CLIP_SERVER` (an option over the environment); `--server` with `--db` is a usage error.
    var remoteServer: String? {
        if let server = parsed.value("server") { return server }
        guard parsed.value("db") == nil else { return nil }
        return environment["CLIP_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The local database, or the server named by `--server` (design §4.1: the same commands, the same output).
    func backend() throws -> any Backend {
        if let server = remoteServer {
            if parsed.value("db") != nil { throw CommandFailure.usage("--db and --server exclude each other") }
            var timeout = 30.0
            if let text = environment["CLIP_TIMEOUT"], !text.isEmpty {
                guard let seconds = Double(text), seconds > 0 else { throw CommandFailure.usage("CLIP_TIMEOUT takes a number of seconds") }
                timeout = seconds
            }
            return try RemoteBackend(server: server, token: parsed.value("token") ?? environment["CLIP_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }, timeoutSeconds: timeout)
        }
        return LocalBackend(registry: try registry())
    }

    func registry() throws -> Registry {
        if let openedRegistry { return openedRegistry }
        let registry = try Registry(path: databasePath, actor: "clipctl:\(environment["USER"] ?? "local")")
        openedRegistry = registry
        return registry
    }

    func dispatch() throws {
        switch parsed.path {
        case ["register"]: try register()
        case ["list"]: try list()
        case ["show"]: try show()
        case ["update"]: try update()
        case ["deactivate"]: try setStatus(.deactivated)
        case ["activate"]: try setStatus(.active)
        case ["remove"]: try remove()
        case ["resolve"]: try resolve()
        case ["aasa"]: try aasa()
        case ["aasa", "check"]: try aasaCheck()
        case ["aasa", "lint"]: try aasaLint()
        case ["banner"]: try banner()
        case ["import"]: try importFile()
        case ["export"]: try export()
        case ["app", "set"]: try appSet()
        case ["app", "list"]: try appList()
        case ["app", "show"]: try appShow()
        case ["clip", "add"]: try clipAdd()
        case ["clip", "list"]: try clipList()
        case ["clip", "show"]: try clipShow()
        case ["clip", "remove"]: try clipRemove()
        case ["domain", "add"]: try domainAdd()
        case ["domain", "remove"]: try domainRemove()
        case ["domain", "list"]: try domainList()
        case ["domain", "claim"]: try domainAssign(.claim)
        case ["domain", "share"]: try domainAssign(.share)
        case ["domain", "unshare"]: try domainAssign(.unshare)
        case ["domain", "owners"]: try domainOwners()
        case ["default", "set"]: try defaultSet()
        case ["default", "show"]: try defaultShow()
        case ["default", "remove"]: try defaultRemove()
        case ["applinks", "set"]: try applinksSet()
        case ["applinks", "remove"]: try applinksRemove()
        case ["applinks", "settings"]: try applinksSettings()
        case ["applinks", "webcredentials"]: try webcredentials()
        case ["applinks", "generate"]: try applinksGenerate()
        case ["changes"]: try changes()
        case ["doctor"]: try doctor()
        case ["publish"]: try publish()
        case ["serve"]: try serve()
        case ["backup"]: try backup()
        case ["restore"]: try restore()
        case ["token", "create"]: try tokenCreate()
        case ["token", "list"]: try tokenList()
        case ["token", "revoke"]: try tokenRevoke()
        default: throw CommandFailure.usage("unknown command \(parsed.path.joined(separator: " "))")
        }
    }

    // MARK: Output helpers

    func print(_ line: String = "") { io.out(line + "\n") }

    func printJSON(_ value: JSONValue) { io.out(JSONWriter.string(value, pretty: true) + "\n") }

    /// At most this many notes or warnings are printed one per line; the rest are counted.
    static let listedAtMost = 20

    func warn(_ warnings: [FieldError]) {
        for w in warnings.prefix(Self.listedAtMost) { io.err("warning: \(w.description)\n") }
        if warnings.count > Self.listedAtMost { io.err("warning: … and \(warnings.count - Self.listedAtMost) more warnings\n") }
    }

    /// A JSON scalar as text ("" for null or absent).
    func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: ""
        case .string(let s)?: s
        case let v?: JSONWriter.string(v)
        }
    }

    func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    func printNotes(_ notes: [WriteNote]) { printNotes(notes.map(\.text)) }

    func printNotes(_ notes: [String]) {
        for n in notes.prefix(Self.listedAtMost) { print("  \(n)") }
        if notes.count > Self.listedAtMost { print("  … and \(notes.count - Self.listedAtMost) more") }
    }

    // MARK: Input helpers

    func requiredValue(_ name: String) throws -> String {
        guard let value = parsed.value(name) else { throw CommandFailure.usage("missing --\(name)") }
        return value
    }

    func readFile(_ path: String, option: String) throws -> [UInt8] {
        if path == "-" { return io.readStandardInput() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(code: ExitCode.failure, message: "cannot read \(option) file \(path): no such file or not readable")
        }
        return [UInt8](data)
    }

    /// A JSON option given inline or as `@FILE`.
    func jsonOption(_ name: String) throws -> JSONValue? {
        guard let raw = parsed.value(name) else { return nil }
        let bytes = raw.hasPrefix("@") ? try readFile(String(raw.dropFirst()), option: "--\(name)") : Array(raw.utf8)
        do { return try JSONParser.parse(bytes) } catch {
            throw CommandFailure.invalid(name, "json", "malformed JSON: \(error.description)")
        }
    }

    func text(_ bytes: [UInt8], what: String) throws -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure.invalid(what, "encoding", "is not valid UTF-8")
        }
        return s
    }
}
