public import ClipCore
import ClipStore
public import ClipWire
import Foundation
import StrictJSON

/// Webhook endpoints (docs/webhooks.md): `/v1/webhooks…` and `clipctl webhook …`. A team token sees
/// and manages its own team's endpoints only (another team's is not found, as every object of another
/// team) and subscribes to its own team's events only; an endpoint without a team receives every
/// team's events (docs/rules.md#tenancy). The secret is shown once, when the endpoint is added.
public enum WebhookAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var url = ""
        var events: WebhookEventPatterns?
        var team: TeamID?

        public init() {}
        static let url = InputField<Input>.text(
            "url", \.url, in: .body, "URL", help: "http or https URL to POST events to", required: true, positional: true)
        /// `events`, which the body needs as a list of patterns; the command's `--events LIST` separates them by commas.
        static let events: InputField<Input> = {
            let facts = FieldFacts(
                name: "events", place: .body, type: .text, placeholder: "LIST",
                help: "event types or families, such as experience.*,aasa.changed")
            return InputField(
                facts,
                read: { input, reader in
                    let fields = reader.fields
                    guard let list = fields.stringArray(facts.name, required: true) else { return }
                    input.events = fields.attempt { () throws(ValidationFailure) in
                        try WebhookEventPatterns(list.joined(separator: ","), field: facts.name)
                    }
                },
                write: { input, arguments in
                    input.events.map { arguments.setMember(facts.name, .array($0.patterns.map(JSONValue.string))) }
                })
        }()
        static let team = InputField<Input>.team(
            \.team, in: .body, help: "only this team's events (a team token's endpoints always are)", required: false)
        public static let fields: [InputField<Input>] = [url, events, team]
    }

    /// The endpoint added, with its secret; never kept by a cache.
    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<NewWebhook>
        public init(_ outcome: WriteOutcome<NewWebhook>) { self.outcome = outcome }

        /// RFC 9111 §5.2.2.5: no cache keeps the secret.
        public var headers: [(name: String, value: String)] {
            [("Location", "/v1/webhooks/\(outcome.value.endpoint.id)"), ("Cache-Control", "no-store")]
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let events = input.events else { throw RegistryError.invalid([]) }
        var team = input.team
        if let own = session.caller.team {
            guard team == nil || team == own else {
                throw CallerRefusal.forbidden("a team token can subscribe to its own team's events only")
            }
            team = own
        }
        let added = try session.registry.addWebhook(
            url: input.url, events: events, team: team, allowPrivateTargets: session.allowsPrivateTargets)
        return Output(
            WriteOutcome(NewWebhook(endpoint: added.value.endpoint, secret: added.value.secret), created: true, notes: added.notes))
    }

    /// `--allow-private-targets`: what a local run lets the endpoint's address be (a server decides for itself).
    static let allowPrivateTargets = FieldFacts(
        name: "allow-private-targets", place: .command, type: .flag, placeholder: "",
        help: "allow a loopback, private or link-local address (on a database only)")

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/webhooks", status: 201, body: .json(optional: false)),
        command: Command(
            ["webhook", "add"],
            CommandHelp(
                "add an endpoint and print its secret once",
                examples: [
                    CommandExample(
                        "clipctl webhook add https://hooks.bikesrental.example/clips --events 'experience.*,aasa.changed'",
                        "Send experience and AASA changes to an endpoint")
                ]),
            options: [allowPrivateTargets],
            // The patterns and the team are checked before anything is sent (exit 65), the patterns sent as a list.
            steps: CommandSteps(input: { line, arguments in
                var input = Input()
                input.url = line.parsed.positional(0) ?? ""
                let events = Input.events.facts, team = Input.team.facts
                guard let list = line.parsed.value(events.option) else { throw CommandUsageError("missing --\(events.option)") }
                input.events = try ClipFields.parsed { () throws(ValidationFailure) in try WebhookEventPatterns(list) }
                input.team = try line.parsed.value(team.option).map { text in
                    try ClipFields.parsed { () throws(ValidationFailure) in try TeamID(text, field: team.name) }
                }
                arguments = input.arguments
            }),
            json: .shape(\.written), server: ServerCall(localOptions: [allowPrivateTargets.option]),
            present: { output, _, printer in
                let (endpoint, secret) = (output.outcome.value.endpoint, output.outcome.value.secret)
                // The secret alone on standard output (SECRET=$(clipctl webhook add …)); the rest on standard error.
                printer.line(secret)
                let scope = endpoint.team.map { "team \($0.rawValue)" } ?? "every team"
                printer.err("webhook \(endpoint.id) (\(scope)) added for \(endpoint.events); ")
                printer.err("the secret above is shown only once\n")
                for note in output.outcome.notes { printer.err("  \(note.text)\n") }
            }))
}

/// `GET /v1/webhooks` and `clipctl webhook list`: the endpoints the caller may see, never their secrets.
public enum WebhookList: Operation {
    public static let callers = CallerRule.token
    public typealias Input = NoInput
    public typealias Output = Items<WebhookEndpoint>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.webhooks(team: session.caller.team))
    }

    public static let binding: Binding = Binding(
        Self.self, Route("GET", "/v1/webhooks"),
        command: Command(
            ["webhook", "list"],
            CommandHelp(
                "list endpoints (never their secrets)",
                examples: [CommandExample("clipctl webhook list", "List the endpoints and their state")]),
            json: .shape { .array($0.items.map(\.json)) },
            present: { output, _, printer in
                for e in output.items {
                    let scope = (e.team.map { "team:\($0.rawValue)" } ?? "admin").padding(toLength: 15, withPad: " ", startingAt: 0)
                    printer.line(
                        "\(e.id)  \(scope)  \(e.state.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(e.url)  \(e.events)")
                    if let failure = e.failure { printer.line("    failing since \(e.failingSince ?? "?"): \(failure)") }
                }
            }))

    /// The endpoint the command's `ID` names among those the caller sees, read by `run`; nil when none.
    static func listed(_ words: CommandWords, _ run: OperationRunner) throws -> WebhookEndpoint? {
        let id = WebhookFields.commandID(words)
        return try Output(json: try run(binding, Arguments()).json).items.first { $0.id == id }
    }
}

/// `DELETE /v1/webhooks/{id}` (204) and `clipctl webhook remove ID`: what the endpoint had not received is never sent.
public enum WebhookRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path
    public typealias Output = WebhookEndpoint

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        return try session.registry.removeWebhook(id: endpoint.id).value
    }

    public static let binding: Binding = Binding(
        Self.self, Route("DELETE", "/v1/webhooks/{id}", status: 204, body: .none(.ignored)),
        command: Command(
            ["webhook", "remove"],
            CommandHelp(
                "remove an endpoint; what it had not received is never sent",
                examples: [CommandExample("clipctl webhook remove 2", "Remove endpoint 2")]),
            steps: CommandSteps(
                check: WebhookFields.checkID,
                answer: { words, arguments, run in
                    // The route answers 204: the endpoint is read first (another team's is not found).
                    guard let endpoint = try WebhookList.listed(words, run) else {
                        throw RegistryError.notFound("webhook \(WebhookFields.commandID(words))")
                    }
                    _ = try run(binding, arguments)
                    return OperationAnswer(json: endpoint.json, status: 200)
                }),
            present: { endpoint, _, printer in printer.line("removed webhook \(endpoint.id) (\(endpoint.url))") }))
}

/// `POST /v1/webhooks/{id}/test` (202) and `clipctl webhook test ID`: a `webhook.test` event queued
/// after what the endpoint still has to receive; a failing endpoint is made active again.
public enum WebhookTest: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path
    public typealias Output = WebhookTestEvent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        let tested = try session.registry.testWebhook(id: endpoint.id).value
        return Output(endpoint: tested.endpoint, messageID: tested.messageID)
    }

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/webhooks/{id}/test", status: 202, body: .none(.ignored)),
        command: Command(
            ["webhook", "test"],
            CommandHelp(
                "queue a webhook.test event for the endpoint and enable it if failing",
                examples: [CommandExample("clipctl webhook test 2", "Send endpoint 2 a webhook.test event")]),
            steps: CommandSteps(check: WebhookFields.checkID),
            present: { output, _, printer in
                let e = output.endpoint
                printer.line("queued webhook.test \(output.messageID) for webhook \(e.id) (\(e.url)); clipctl serve sends it")
            }))
}

/// `POST /v1/webhooks/{id}/enable` and `clipctl webhook enable ID`: a failing endpoint active again,
/// its waiting deliveries due at once.
public enum WebhookEnable: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path
    public typealias Output = WebhookEndpoint

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        return try session.registry.enableWebhook(id: endpoint.id).value
    }

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/webhooks/{id}/enable", body: .none(.ignored)),
        command: Command(
            ["webhook", "enable"],
            CommandHelp(
                "make a failing endpoint active again; its waiting events are sent",
                examples: [CommandExample("clipctl webhook enable 2", "Resume delivering to endpoint 2 after fixing it")]),
            steps: CommandSteps(check: WebhookFields.checkID),
            present: { endpoint, _, printer in printer.line("webhook \(endpoint.id) is \(endpoint.state.rawValue)") }))
}

/// `GET /v1/webhooks/{id}/deliveries` and `clipctl webhook deliveries ID`: the latest deliveries,
/// newest first, and why they failed; the command says first when the endpoint is failing.
public enum WebhookDeliveries: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var id = ""
        var limit: String?
        public init() {}
        /// A command's page: the latest 20.
        static let limit = InputField<Input>.limit(\.limit, help: "at most N, newest first", commandDefault: 20)
        public static let fields: [InputField<Input>] = [WebhookFields.id(\.id), limit]
    }

    public typealias Output = WebhookDeliveryList

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        let limit = try PageLimit.read(input.limit, fallback: 100)
        return Output(deliveries: try session.registry.webhookDeliveries(id: endpoint.id, limit: limit))
    }

    public static let binding: Binding = Binding(
        Self.self, Route("GET", "/v1/webhooks/{id}/deliveries"),
        command: Command(
            ["webhook", "deliveries"],
            CommandHelp(
                "an endpoint's latest deliveries and why they failed",
                examples: [
                    CommandExample("clipctl webhook deliveries 2 --limit 5", "Show endpoint 2's last five deliveries and why any failed")
                ]),
            steps: CommandSteps(
                check: { words in
                    try WebhookFields.checkID(words)
                    guard let text = words.value(Input.limit.facts.option) else { return }
                    guard PageLimit.value(text) != nil else {
                        throw CommandUsageError(
                            "--\(Input.limit.facts.option) takes a number from \(PageLimit.range.lowerBound) to \(PageLimit.range.upperBound)"
                        )
                    }
                },
                answer: { words, arguments, run in
                    var arguments = arguments
                    if arguments[Input.limit.facts.name] == nil { arguments.append(Input.limit.facts.name, Input.limit.facts.defaultValue) }
                    let answer = try run(binding, arguments)
                    guard !words.flag("json") else { return answer }
                    // The text form says first whether the endpoint is failing, from the endpoints the caller sees.
                    let endpoint = try WebhookList.listed(words, run)
                    return OperationAnswer(
                        json: Output(deliveries: try Output(json: answer.json).deliveries, endpoint: endpoint).json, status: 200)
                }),
            json: .shape { .array($0.deliveries.map(WebhookJSON.delivery)) },
            present: { output, _, printer in
                if let endpoint = output.endpoint, let failure = endpoint.failure {
                    printer.line("webhook \(endpoint.id) is failing since \(endpoint.failingSince ?? "?"): \(failure)")
                }
                for d in output.deliveries {
                    let state = d.deliveredAt.map { "delivered \($0)" } ?? "pending, \(d.attempts) attempts"
                    let last = d.lastError ?? d.lastStatus.map { "HTTP \($0)" } ?? ""
                    printer.line("\(d.eventID)  \(d.messageID)  \(d.type)  \(state)\(last.isEmpty ? "" : "  last: \(last)")")
                }
            }))
}

/// What the webhook operations share: the endpoint of the path and the command's id.
public enum WebhookFields {
    /// The endpoint a path names, read from its `{id}`.
    public struct Path: DeclaredInput {
        var id = ""
        public init() {}
        public static let fields: [InputField<Path>] = [WebhookFields.id(\.id)]
    }

    /// The route's `{id}`, the command's `ID`.
    static func id<Input>(_ key: any WritableKeyPath<Input, String> & Sendable) -> InputField<Input> {
        .text("id", key, in: .path, "ID", help: "the webhook id", required: true)
    }

    /// The endpoint of the path, when the caller may see it: another team's, one that does not exist
    /// and an id that is not a positive number get the same answer (docs/rules.md#tenancy).
    static func visible(_ text: String, in session: Session) throws -> WebhookEndpoint {
        guard let id = Int64(text), id > 0 else { throw RegistryError.notFound("webhook \(text.prefix(40))") }
        let endpoint: WebhookEndpoint
        do { endpoint = try session.registry.webhook(id: id) } catch RegistryError.notFound {
            throw RegistryError.notFound("webhook \(id)")
        }
        if let own = session.caller.team, endpoint.team != own { throw RegistryError.notFound("webhook \(id)") }
        return endpoint
    }

    /// The command's `ID`: a positive number (exit 64 otherwise).
    @Sendable static func checkID(_ words: CommandWords) throws {
        guard commandID(words) > 0 else { throw CommandUsageError("a webhook id is a positive number") }
    }

    /// The number the command's `ID` is, 0 when it is none.
    static func commandID(_ words: CommandWords) -> Int64 { Int64(words.positional(0) ?? "") ?? 0 }
}
