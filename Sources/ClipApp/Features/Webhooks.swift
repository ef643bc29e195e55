import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
import Foundation
public import StrictJSON

/// Webhook endpoints (docs/webhooks.md): `/v1/webhooks…` and `clipctl webhook …`. A team token sees
/// and manages its own team's endpoints only (another team's is not found, as every object of another
/// team) and subscribes to its own team's events only; an endpoint without a team receives every
/// team's events (docs/rules.md#tenancy). The secret is shown once, when the endpoint is added.
public enum WebhookAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var url: String?
        var events: WebhookEventPatterns?
        var team: TeamID?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let fields = reader.fields
            url = fields.string("url", required: true)
            if let list = fields.stringArray("events", required: true) {
                events = fields.attempt { () throws(ValidationFailure) in
                    try WebhookEventPatterns(list.joined(separator: ","), field: "events")
                }
            }
            if let t = fields.string("team") { team = fields.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
        }
    }

    public struct Output: OperationOutput {
        public var outcome: WriteOutcome<(endpoint: WebhookEndpoint, secret: String)>
        public init(_ outcome: WriteOutcome<(endpoint: WebhookEndpoint, secret: String)>) { self.outcome = outcome }

        public var json: JSONValue {
            CatalogJSON.withNotes(WebhookJSON.created(outcome.value.endpoint, secret: outcome.value.secret), outcome.notes)
        }

        /// RFC 9111 §5.2.2.5: no cache keeps the secret.
        public var headers: [(name: String, value: String)] {
            [("Location", "/v1/webhooks/\(outcome.value.endpoint.id)"), ("Cache-Control", "no-store")]
        }

        public init(json: JSONValue) throws(WireError) {
            outcome = WriteOutcome(try WebhookJSON.created(json: json), created: true, notes: CatalogJSON.notes(json: json))
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let url = input.url, let events = input.events else { throw RegistryError.invalid([]) }
        var team = input.team
        if let own = session.caller.team {
            guard team == nil || team == own else {
                throw CallerRefusal.forbidden("a team token can subscribe to its own team's events only")
            }
            team = own
        }
        return Output(
            try session.registry.addWebhook(url: url, events: events, team: team, allowPrivateTargets: session.allowsPrivateTargets))
    }

    public static let binding: Binding = Binding(
        Self.self, "POST", "/v1/webhooks", status: 201,
        command: CommandSpec(
            "add", summary: "add an endpoint and print its secret once",
            positionals: [PositionalSpec("URL", help: "http or https URL to POST events to")],
            options: [
                .option("events", value: "LIST", help: "event types or families, such as experience.*,aasa.changed"),
                .option("team", value: "TEAMID", help: "only this team's events (a team token's endpoints always are)"),
                .flag("allow-private-targets", help: "allow a loopback, private or link-local address (on a database only)"),
            ],
            examples: [
                Example(
                    "clipctl webhook add https://hooks.bikesrental.example/clips --events 'experience.*,aasa.changed'",
                    "Send experience and AASA changes to an endpoint")
            ]),
        under: ["webhook"],
        commandJSON: {
            writtenJSON(WebhookJSON.created($0.outcome.value.endpoint, secret: $0.outcome.value.secret), notes: $0.outcome.notes)
        },
        localOptions: ["allow-private-targets"], takesBody: true,
        commandInput: { line, arguments in
            let events = try line.required("events")
            var body: [(key: String, value: JSONValue)] = [("url", .string(line.parsed.positionals.first ?? ""))]
            do throws(ValidationFailure) {
                body.append(("events", .array(try WebhookEventPatterns(events).patterns.map(JSONValue.string))))
                if let team = line.parsed.value("team") { body.append(("team", .string(try TeamID(team, field: "team").rawValue))) }
            } catch { throw RegistryError.invalid(error.errors) }
            arguments.body = .object(body)
        },
        present: { output, _, printer in
            let (endpoint, secret) = output.outcome.value
            // The secret alone on standard output (SECRET=$(clipctl webhook add …)); the rest on standard error.
            printer.line(secret)
            let scope = endpoint.team.map { "team \($0.rawValue)" } ?? "every team"
            printer.err("webhook \(endpoint.id) (\(scope)) added for \(endpoint.events); ")
            printer.err("the secret above is shown only once\n")
            for note in output.outcome.notes { printer.err("  \(note.text)\n") }
        })
}

/// `GET /v1/webhooks` and `clipctl webhook list`: the endpoints the caller may see, never their secrets.
public enum WebhookList: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public init(reading reader: inout ArgumentReader) {}
        public var arguments: Arguments { Arguments() }
    }

    public struct Output: OperationOutput {
        public var endpoints: [WebhookEndpoint]
        public init(endpoints: [WebhookEndpoint]) { self.endpoints = endpoints }
        public var json: JSONValue { ListJSON.items(endpoints.map(WebhookJSON.endpoint)) }
        public init(json: JSONValue) throws(WireError) {
            endpoints = try ListJSON.items(json: json).map { (v) throws(WireError) in try WebhookJSON.endpoint(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(endpoints: try session.registry.webhooks(team: session.caller.team))
    }

    public static let binding: Binding = Binding(
        Self.self, "GET", "/v1/webhooks",
        command: CommandSpec(
            "list", summary: "list endpoints (never their secrets)",
            examples: [Example("clipctl webhook list", "List the endpoints and their state")]),
        under: ["webhook"], commandJSON: { .array($0.endpoints.map(WebhookJSON.endpoint)) },
        present: { output, _, printer in
            for e in output.endpoints {
                let scope = (e.team.map { "team:\($0.rawValue)" } ?? "admin").padding(toLength: 15, withPad: " ", startingAt: 0)
                printer.line(
                    "\(e.id)  \(scope)  \(e.state.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(e.url)  \(e.events)")
                if let failure = e.failure { printer.line("    failing since \(e.failingSince ?? "?"): \(failure)") }
            }
        })

    /// The endpoint `id` among those the caller sees (another team's is not found).
    static func listed(_ id: String, _ run: OperationRunner) throws -> WebhookEndpoint {
        let endpoints = try Output(json: try run(binding, Arguments()).json).endpoints
        guard let endpoint = endpoints.first(where: { String($0.id) == id }) else { throw RegistryError.notFound("webhook \(id)") }
        return endpoint
    }
}

/// `DELETE /v1/webhooks/{id}` (204) and `clipctl webhook remove ID`: what the endpoint had not received is never sent.
public enum WebhookRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path
    public typealias Output = WebhookFields.Endpoint

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        return Output(endpoint: try session.registry.removeWebhook(id: endpoint.id).value)
    }

    public static let binding: Binding = Binding(
        Self.self, "DELETE", "/v1/webhooks/{id}", status: 204,
        command: CommandSpec(
            "remove", summary: "remove an endpoint; what it had not received is never sent",
            positionals: [PositionalSpec("ID", help: "the webhook id")],
            examples: [Example("clipctl webhook remove 2", "Remove endpoint 2")]),
        under: ["webhook"], unreadBody: .ignored, commandInput: WebhookFields.commandID,
        commandAnswer: { _, arguments, run in
            // The route answers 204: the endpoint is read first (another team's is not found).
            let endpoint = try WebhookList.listed(arguments["id"] ?? "", run)
            _ = try run(binding, arguments)
            return OperationAnswer(json: WebhookJSON.endpoint(endpoint), status: 200)
        },
        present: { output, _, printer in printer.line("removed webhook \(output.endpoint.id) (\(output.endpoint.url))") })
}

/// `POST /v1/webhooks/{id}/test` (202) and `clipctl webhook test ID`: a `webhook.test` event queued
/// after what the endpoint still has to receive; a failing endpoint is made active again.
public enum WebhookTest: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path

    public struct Output: OperationOutput {
        public var endpoint: WebhookEndpoint
        public var messageID: String
        public var json: JSONValue { WebhookJSON.tested(endpoint, messageID: messageID) }
        public init(endpoint: WebhookEndpoint, messageID: String) {
            self.endpoint = endpoint
            self.messageID = messageID
        }
        public init(json: JSONValue) throws(WireError) { (endpoint, messageID) = try WebhookJSON.tested(json: json) }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        let tested = try session.registry.testWebhook(id: endpoint.id).value
        return Output(endpoint: tested.endpoint, messageID: tested.messageID)
    }

    public static let binding: Binding = Binding(
        Self.self, "POST", "/v1/webhooks/{id}/test", status: 202,
        command: CommandSpec(
            "test", summary: "queue a webhook.test event for the endpoint and enable it if failing",
            positionals: [PositionalSpec("ID", help: "the webhook id")],
            examples: [Example("clipctl webhook test 2", "Send endpoint 2 a webhook.test event")]),
        under: ["webhook"], unreadBody: .ignored, commandInput: WebhookFields.commandID,
        present: { output, _, printer in
            let e = output.endpoint
            printer.line("queued webhook.test \(output.messageID) for webhook \(e.id) (\(e.url)); clipctl serve sends it")
        })
}

/// `POST /v1/webhooks/{id}/enable` and `clipctl webhook enable ID`: a failing endpoint active again,
/// its waiting deliveries due at once.
public enum WebhookEnable: Operation {
    public static let callers = CallerRule.token
    public typealias Input = WebhookFields.Path
    public typealias Output = WebhookFields.Endpoint

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        return Output(endpoint: try session.registry.enableWebhook(id: endpoint.id).value)
    }

    public static let binding: Binding = Binding(
        Self.self, "POST", "/v1/webhooks/{id}/enable",
        command: CommandSpec(
            "enable", summary: "make a failing endpoint active again; its waiting events are sent",
            positionals: [PositionalSpec("ID", help: "the webhook id")],
            examples: [Example("clipctl webhook enable 2", "Resume delivering to endpoint 2 after fixing it")]),
        under: ["webhook"], unreadBody: .ignored, commandInput: WebhookFields.commandID,
        present: { output, _, printer in printer.line("webhook \(output.endpoint.id) is \(output.endpoint.state.rawValue)") })
}

/// `GET /v1/webhooks/{id}/deliveries` and `clipctl webhook deliveries ID`: the latest deliveries,
/// newest first, and why they failed; the command says first when the endpoint is failing.
public enum WebhookDeliveries: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var id: String
        var limit: String?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            id = reader.string("id") ?? ""
            limit = reader.string("limit")
        }
    }

    public struct Output: OperationOutput {
        public var deliveries: [WebhookDelivery]
        /// The endpoint as the command read it beside the route's answer, for its failure; nil in the route's answer.
        public var endpoint: WebhookEndpoint?

        public init(deliveries: [WebhookDelivery], endpoint: WebhookEndpoint? = nil) {
            self.deliveries = deliveries
            self.endpoint = endpoint
        }

        public var json: JSONValue {
            let items = ListJSON.items(deliveries.map(WebhookJSON.delivery))
            guard let endpoint, case .object(var members) = items else { return items }
            members.append((key: "webhook", value: WebhookJSON.endpoint(endpoint)))
            return .object(members)
        }

        public init(json: JSONValue) throws(WireError) {
            endpoint = try json["webhook"].map { (v) throws(WireError) in try WebhookJSON.endpoint(json: v) }
            // The route's answer does not repeat the endpoint's id.
            let id = endpoint?.id ?? 0
            deliveries = try ListJSON.items(json: json).map { (v) throws(WireError) in try WebhookJSON.delivery(json: v, endpoint: id) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let endpoint = try WebhookFields.visible(input.id, in: session)
        let limit = try PageLimit.read(input.limit, fallback: 100)
        return Output(deliveries: try session.registry.webhookDeliveries(id: endpoint.id, limit: limit))
    }

    public static let binding: Binding = Binding(
        Self.self, "GET", "/v1/webhooks/{id}/deliveries",
        command: CommandSpec(
            "deliveries", summary: "an endpoint's latest deliveries and why they failed",
            positionals: [PositionalSpec("ID", help: "the webhook id")],
            options: [.option("limit", value: "N", help: "at most N, newest first (default 20)")],
            examples: [Example("clipctl webhook deliveries 2 --limit 5", "Show endpoint 2's last five deliveries and why any failed")]),
        under: ["webhook"], commandJSON: { .array($0.deliveries.map(WebhookJSON.delivery)) },
        commandInput: { line, arguments in
            try WebhookFields.commandID(line, &arguments)
            var limit = 20
            if let text = line.parsed.value("limit") {
                guard let n = PageLimit.value(text) else { throw CommandUsageError("--limit takes a number from 1 to 1000") }
                limit = n
            }
            arguments.append("limit", String(limit))
        },
        commandAnswer: { parsed, arguments, run in
            let answer = try run(binding, arguments)
            guard !parsed.flag("json") else { return answer }
            // The text form says first whether the endpoint is failing, from the endpoints the caller sees.
            let id = arguments["id"] ?? ""
            let endpoint = try WebhookList.Output(json: try run(WebhookList.binding, Arguments()).json).endpoints.first {
                String($0.id) == id
            }
            return OperationAnswer(json: Output(deliveries: try Output(json: answer.json).deliveries, endpoint: endpoint).json, status: 200)
        },
        present: { output, _, printer in
            if let endpoint = output.endpoint, let failure = endpoint.failure {
                printer.line("webhook \(endpoint.id) is failing since \(endpoint.failingSince ?? "?"): \(failure)")
            }
            for d in output.deliveries {
                let state = d.deliveredAt.map { "delivered \($0)" } ?? "pending, \(d.attempts) attempts"
                let last = d.lastError ?? d.lastStatus.map { "HTTP \($0)" } ?? ""
                printer.line("\(d.eventID)  \(d.messageID)  \(d.type)  \(state)\(last.isEmpty ? "" : "  last: \(last)")")
            }
        })
}

/// What the webhook operations share: the endpoint of the path, the command's id, an endpoint as answered.
public enum WebhookFields {
    /// The endpoint a path names, read from its `{id}`.
    public struct Path: OperationInput {
        public var arguments: Arguments
        var id: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            id = reader.string("id") ?? ""
        }
    }

    /// An endpoint as the route answers it (or, for a 204, as the command prints it).
    public struct Endpoint: OperationOutput {
        public var endpoint: WebhookEndpoint
        public init(endpoint: WebhookEndpoint) { self.endpoint = endpoint }
        public var json: JSONValue { WebhookJSON.endpoint(endpoint) }
        public init(json: JSONValue) throws(WireError) { endpoint = try WebhookJSON.endpoint(json: json) }
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
    @Sendable static func commandID(_ line: CommandLine, _ arguments: inout Arguments) throws {
        guard let id = Int64(line.parsed.positionals.first ?? ""), id > 0 else {
            throw CommandUsageError("a webhook id is a positive number")
        }
        arguments.append("id", String(id))
    }
}
