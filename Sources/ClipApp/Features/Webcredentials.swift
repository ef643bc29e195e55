import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// An app in a host's webcredentials (password autofill, docs/apple-formats.md): `PUT
/// /v1/domains/{host}/webcredentials/{bundleId}` (201 when it added it, 200 when it was there, RFC 9110 §9.3.4) and
/// `clipctl applinks webcredentials add HOST --app BUNDLE`; `remove` runs `WebcredentialsRemove`'s route. Another
/// team's app is not found; a host held by another team is refused by the store (docs/rules.md#tenancy).
public enum WebcredentialsAdd: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebcredentialsChange.Input

    public static func run(_ input: Input, in session: Session) throws -> WebcredentialsChange {
        let app = try AppFields.visibleApp(input.bundle, in: session).bundleID
        let added = try session.registry.addWebcredentials(host: input.host, app: app)
        return WebcredentialsChange(host: try Registry.normalizeHost(input.host), app: app, added)
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/webcredentials/{bundleId}",
        command: CommandSpec(
            "webcredentials", summary: "add or remove an app in a host's webcredentials",
            positionals: [PositionalSpec("add|remove", help: "what to do"), PositionalSpec("HOST", help: "the host")],
            options: [.option("app", value: "BUNDLE", help: "the full app (required)")],
            examples: [
                Example(
                    "clipctl applinks webcredentials add bikesrental.example --app com.example.bikes",
                    "Let the app fill in passwords saved for the host")
            ]),
        under: ["applinks"], commandJSON: WebcredentialsChange.commandJSON,
        unreadBody: .ignoredIfJSON,
        commandInput: { line, arguments in
            let app = try ApplinksCommands.app(line)
            let verb = line.parsed.positionals.first
            guard verb == "add" || verb == "remove" else { throw CommandUsageError("applinks webcredentials takes add or remove") }
            arguments.append("host", line.parsed.positionals.count > 1 ? line.parsed.positionals[1] : nil)
            arguments.append("bundleId", app)
        },
        commandRoute: { parsed in parsed.positionals.first == "remove" ? WebcredentialsRemove.binding : nil },
        present: { output, parsed, printer in
            // Adding what is there already changes nothing, and says so.
            let host = parsed.positionals.count > 1 ? parsed.positionals[1] : ""
            printer.line(
                !output.removed && !output.created && output.notes.isEmpty ? "nothing to change" : "webcredentials of \(host) updated")
            printer.notes(output.notes)
        })
}

/// `DELETE /v1/domains/{host}/webcredentials/{bundleId}` (204) and `clipctl applinks webcredentials remove HOST --app BUNDLE`.
public enum WebcredentialsRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebcredentialsChange.Input

    public static func run(_ input: Input, in session: Session) throws -> WebcredentialsChange {
        let app = try AppFields.visibleApp(input.bundle, in: session).bundleID
        try session.registry.removeWebcredentials(host: input.host, app: app)
        return WebcredentialsChange()
    }

    public static let binding = Binding(
        Self.self, "DELETE", "/v1/domains/{host}/webcredentials/{bundleId}", status: 204, unreadBody: .ignored)
}

/// A webcredentials entry added (`host`, `app`, with the write's notes) or removed (204, no content), as the
/// webcredentials command reads either answer.
public struct WebcredentialsChange: OperationOutput {
    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var bundle: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            bundle = reader.string("bundleId") ?? ""
        }
    }

    public var entry: JSONValue
    public var created: Bool
    public var notes: [WriteNote]
    /// The entry was removed (204, no content).
    public var removed = false

    init(host: String, app: BundleID, _ outcome: WriteOutcome<Void>) {
        (entry, created, notes) = (CatalogJSON.webcredentials(host: host, app: app), outcome.created, outcome.notes)
    }
    /// A removal.
    init() { (entry, created, notes, removed) = (.null, false, [], true) }

    public var json: JSONValue { removed ? .null : CatalogJSON.withNotes(entry, notes) }
    public var status: Int? { removed ? 204 : created ? 201 : 200 }
    public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
    public init(json: JSONValue, status: Int) throws(WireError) {
        guard status != 204 else {
            (entry, created, notes, removed) = (.null, false, [], true)
            return
        }
        guard case .object(let members) = json else { throw WireError("webcredentials: not an object") }
        (entry, created, notes) = (.object(members.filter { $0.key != "notes" }), status == 201, CatalogJSON.notes(json: json))
    }

    /// `--json`: the entry added with its notes; a removal says `saved`, as clipctl always printed it.
    static func commandJSON(_ change: WebcredentialsChange) -> JSONValue {
        writtenJSON(change.removed ? CommandJSON.saved : change.entry, notes: change.notes)
    }
}
