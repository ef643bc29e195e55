public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// An app in a host's webcredentials (password autofill, docs/apple-formats.md): `PUT
/// /v1/domains/{host}/webcredentials/{bundleId}` (201 when it added it, 200 when it was there, RFC 9110 §9.3.4) and
/// `clipctl applinks webcredentials add HOST --app BUNDLE`; `remove` runs `WebcredentialsRemove`'s route. Another
/// team's app is not found; a host held by another team is refused by the store (docs/rules.md#tenancy).
public enum WebcredentialsAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host = ""
        var bundle = ""
        public init() {}
        /// `add|remove`: which route the command sends (`WebcredentialsRemove`'s for `remove`).
        static let verbs = ["add", "remove"]
        static let verb = FieldFacts(
            name: "verb", place: .command, type: .choice(verbs), placeholder: "add|remove", help: "what to do", required: true,
            positional: true)
        public static let fields: [InputField<Input>] = [
            .command(verb), .host(\.host, help: "the host"),
            .app(\.bundle, option: ApplinksCommands.app, help: "the full app"),
        ]
    }

    public typealias Output = WebcredentialsChange

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let app = try AppFields.visibleApp(input.bundle, in: session).bundleID
        let added = try session.registry.addWebcredentials(host: input.host, app: app)
        let entry = WebcredentialsEntry(host: try Registry.normalizeHost(input.host), app: app.rawValue)
        return Output(WriteOutcome(entry, created: added.created, notes: added.notes))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/webcredentials/{bundleId}", body: .none(.ignoredIfJSON)),
        command: Command(
            ["applinks", "webcredentials"],
            CommandHelp(
                "add or remove an app in a host's webcredentials",
                examples: [
                    CommandExample(
                        "clipctl applinks webcredentials add bikesrental.example --app com.example.bikes",
                        "Let the app fill in passwords saved for the host")
                ]),
            steps: CommandSteps(
                check: { words in
                    try ApplinksCommands.checkApp(words)
                    guard Input.verbs.contains(words.positional(0) ?? "") else {
                        throw CommandUsageError("applinks webcredentials takes add or remove")
                    }
                },
                route: { words in words.positional(0) == "remove" ? WebcredentialsRemove.binding : nil }),
            json: .shape { writtenJSON($0.removed ? CommandJSON.saved : $0.outcome.value.json, notes: $0.outcome.notes) },
            present: { output, words, printer in
                // Adding what is there already changes nothing, and says so.
                printer.line(
                    !output.removed && !output.outcome.created && output.outcome.notes.isEmpty
                        ? "nothing to change" : "webcredentials of \(words.positional(1) ?? "") updated")
                printer.notes(output.outcome.notes)
            }))
}

/// `DELETE /v1/domains/{host}/webcredentials/{bundleId}` (204) and `clipctl applinks webcredentials remove HOST --app BUNDLE`.
public enum WebcredentialsRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebcredentialsAdd.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let app = try AppFields.visibleApp(input.bundle, in: session).bundleID
        try session.registry.removeWebcredentials(host: input.host, app: app)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/domains/{host}/webcredentials/{bundleId}", status: 204, body: .none(.ignored)))
}

/// A webcredentials entry added (`host`, `app`, with the write's notes; 201 when it was not there) or, as the
/// webcredentials command reads `WebcredentialsRemove`'s answer, removed (204, no content).
public struct WebcredentialsChange: WriteAnswer {
    public var outcome: WriteOutcome<WebcredentialsEntry>
    /// The entry was removed (204, no content).
    public var removed = false

    public init(_ outcome: WriteOutcome<WebcredentialsEntry>) { self.outcome = outcome }

    public var status: Int? { outcome.created ? 201 : 200 }

    public init(answer: OperationAnswer) throws(WireError) {
        guard answer.status != 204 else {
            self.init(WriteOutcome(WebcredentialsEntry(host: "", app: "")))
            removed = true
            return
        }
        try self.init(json: answer.json, status: answer.status)
    }
}
