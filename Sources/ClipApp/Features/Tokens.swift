public import ClipCore
import ClipStore
public import ClipWire
import Foundation
public import StrictJSON

/// The API tokens a caller may see: `GET /v1/tokens` and `clipctl token list`. An admin token (and
/// the database's owner) sees every token, a team token its own team's (docs/rules.md#tenancy).
public enum TokenList: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        public init() {}
        public static let fields: [InputField<Input>] = []
    }

    public typealias Output = Items<APIToken>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.tokens(team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/tokens"),
        command: Command(
            ["token", "list"],
            CommandHelp(
                "list tokens (never their secrets)",
                examples: [CommandExample("clipctl token list", "List the tokens, their scope and when each was last used")]),
            json: .shape { .array($0.items.map(\.json)) }, present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) {
        for t in output.items {
            let scope = (t.team.map { "team:\($0.rawValue)" } ?? "admin").padding(toLength: 15, withPad: " ", startingAt: 0)
            printer.line(
                "\(t.id)  \(scope)  \(t.revokedAt == nil ? "active " : "revoked")  \(t.name)  last used \(t.lastUsedAt ?? "never")")
        }
    }
}

/// `POST /v1/tokens` and `clipctl token create`: a token and its secret, shown this once (201, never
/// cached). A team token creates tokens for its own team only (docs/rules.md#tenancy); the secret is
/// in no change record and no log.
public enum TokenCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var admin = false
        var team: TeamID?
        var name = ""
        public init() {}
        public static let fields: [InputField<Input>] = [
            // The command's choice of scope; over the API, a body without `team` is an admin token's.
            .flag("admin", \.admin, in: .command, help: "manages everything"),
            .text("name", \.name, in: .body, "NAME", help: "what the token is for", required: true),
            .value(
                "team", \.team, in: .body, "TEAMID", help: "manages only this team's objects",
                parse: { (text, field) throws(ValidationFailure) in try TeamID(text, field: field) }, format: \.rawValue),
        ]
    }

    public struct Output: OperationOutput {
        public var outcome: WriteOutcome<(token: APIToken, secret: String)>

        public init(_ outcome: WriteOutcome<(token: APIToken, secret: String)>) { self.outcome = outcome }

        public var json: JSONValue {
            CatalogJSON.withNotes(TokenJSON.created(outcome.value.token, secret: outcome.value.secret), outcome.notes)
        }

        /// RFC 9111 §5.2.2.5: no cache keeps the secret.
        public var headers: [(name: String, value: String)] {
            [("Location", "/v1/tokens/\(outcome.value.token.id)"), ("Cache-Control", "no-store")]
        }

        public init(json: JSONValue) throws(WireError) {
            outcome = WriteOutcome(try TokenJSON.created(json: json), created: true, notes: CatalogJSON.notes(json: json))
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var team = input.team
        if let own = session.caller.team {
            guard team == nil || team == own else { throw CallerRefusal.forbidden("a team token can create tokens for its own team only") }
            team = own
        }
        return Output(try session.registry.createToken(name: input.name, team: team))
    }

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/tokens", status: 201, body: .json(optional: false)),
        command: Command(
            ["token", "create"],
            CommandHelp(
                "create a token and print its secret once",
                examples: [
                    CommandExample(
                        "clipctl token create --team ABCDE12345 --name 'bikes CI'", "Create a token that manages only one team's objects"),
                    CommandExample("clipctl token create --admin --name ops", "Create an administrator token"),
                ]),
            steps: CommandSteps(check: { words in
                guard words.flag("admin") != (words.value("team") != nil) else {
                    throw CommandUsageError("give exactly one of --admin or --team TEAMID")
                }
            }),
            json: .shape {
                writtenJSON(TokenJSON.created($0.outcome.value.token, secret: $0.outcome.value.secret), notes: $0.outcome.notes)
            },
            present: { output, _, printer in
                let (token, secret) = output.outcome.value
                // The secret alone on standard output (TOKEN=$(clipctl token create …)); the rest on standard error.
                printer.line(secret)
                // What was created, not what was asked: a team token's --admin makes a token of its own team.
                let scope = token.team.map { "team \($0.rawValue)" } ?? "admin"
                printer.err("token \(token.id) (\(scope)) created; the secret above is shown only once\n")
                for note in output.outcome.notes { printer.err("  \(note.text)\n") }
            }))
}

/// `DELETE /v1/tokens/{id}` (204) and `clipctl token revoke ID`, which prints the token as revoked
/// (read back through `GET /v1/tokens`). Another team's token is not found (docs/rules.md#tenancy).
public enum TokenRevoke: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var id = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.text("id", \.id, in: .path, "ID", help: "the token id")]
    }

    public typealias Output = APIToken

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let id = Int64(input.id) else { throw RegistryError.notFound("token \(input.id)") }
        let token = try session.registry.token(id: id)
        if let own = session.caller.team, token.team != own { throw RegistryError.notFound("token \(id)") }
        return try session.registry.revokeToken(id: id).value
    }

    public static let binding: Binding = Binding(
        Self.self, Route("DELETE", "/v1/tokens/{id}", status: 204, body: .none(.ignored)),
        command: Command(
            ["token", "revoke"], CommandHelp("revoke a token", examples: [CommandExample("clipctl token revoke 3", "Revoke token 3")]),
            steps: CommandSteps(
                check: { words in
                    guard Int64(words.positional(0) ?? "") != nil else { throw CommandUsageError("a token id is a number") }
                },
                // The route answers 204: the token as revoked is read back after it.
                answer: { _, arguments, run in
                    _ = try run(TokenRevoke.binding, arguments)
                    let revoked = try TokenList.Output(json: run(TokenList.binding, Arguments()).json).items
                    guard let token = revoked.first(where: { $0.id == Int64(arguments["id"] ?? "") }) else {
                        throw RegistryError.notFound("token \(arguments["id"] ?? "")")
                    }
                    return OperationAnswer(json: token.json, status: 200)
                }),
            present: { token, _, printer in printer.line("revoked token \(token.id) (\(token.name))") }))
}
