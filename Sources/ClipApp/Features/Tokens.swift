import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
import Foundation
public import StrictJSON

/// The API tokens a caller may see: `GET /v1/tokens` and `clipctl token list`. An admin token (and
/// the database's owner) sees every token, a team token its own team's (docs/rules.md#tenancy).
public enum TokenList: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public init() {}
        public init(reading reader: inout ArgumentReader) {}
        public var arguments: Arguments { Arguments() }
    }

    public struct Output: OperationOutput {
        public var tokens: [APIToken]

        public var json: JSONValue { ListJSON.items(tokens.map(TokenJSON.token)) }

        public init(tokens: [APIToken]) { self.tokens = tokens }

        public init(json: JSONValue) throws(WireError) {
            tokens = try ListJSON.items(json: json).map { (v) throws(WireError) in try TokenJSON.token(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(tokens: try session.registry.tokens(team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/tokens",
        command: CommandSpec(
            "list", summary: "list tokens (never their secrets)",
            examples: [Example("clipctl token list", "List the tokens, their scope and when each was last used")]), under: ["token"],
        commandJSON: { .array($0.tokens.map(TokenJSON.token)) }, present: present)

    static func present(_ output: Output, _ parsed: ParsedCommand, _ printer: Printer) {
        for t in output.tokens {
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

    public struct Input: OperationInput {
        public var arguments: Arguments
        var name: String?
        var team: TeamID?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let fields = reader.fields
            name = fields.string("name", required: true)
            if let t = fields.string("team") { team = fields.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
        }
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
        guard let name = input.name else { throw RegistryError.invalid([]) }
        var team = input.team
        if let own = session.caller.team {
            guard team == nil || team == own else { throw CallerRefusal.forbidden("a team token can create tokens for its own team only") }
            team = own
        }
        return Output(try session.registry.createToken(name: name, team: team))
    }

    public static let binding: Binding = Binding(
        Self.self, "POST", "/v1/tokens", status: 201,
        command: CommandSpec(
            "create", summary: "create a token and print its secret once",
            options: [
                .flag("admin", help: "manages everything"),
                .option("team", value: "TEAMID", help: "manages only this team's objects"),
                .option("name", value: "NAME", help: "what the token is for (required)"),
            ],
            examples: [
                Example("clipctl token create --team ABCDE12345 --name 'bikes CI'", "Create a token that manages only one team's objects"),
                Example("clipctl token create --admin --name ops", "Create an administrator token"),
            ]),
        under: ["token"],
        commandJSON: { writtenJSON(TokenJSON.created($0.outcome.value.token, secret: $0.outcome.value.secret), notes: $0.outcome.notes) },
        takesBody: true,
        commandInput: { line, arguments in
            let parsed = line.parsed
            let team = parsed.value("team")
            guard parsed.flag("admin") != (team != nil) else { throw CommandUsageError("give exactly one of --admin or --team TEAMID") }
            var body: [(key: String, value: JSONValue)] = [("name", .string(try line.required("name")))]
            if let team {
                do throws(ValidationFailure) { _ = try TeamID(team, field: "team") } catch { throw RegistryError.invalid(error.errors) }
                body.append(("team", .string(team)))
            }
            arguments.body = .object(body)
        },
        present: { output, _, printer in
            let (token, secret) = output.outcome.value
            // The secret alone on standard output (TOKEN=$(clipctl token create …)); the rest on standard error.
            printer.line(secret)
            // What was created, not what was asked: a team token's --admin makes a token of its own team.
            let scope = token.team.map { "team \($0.rawValue)" } ?? "admin"
            printer.err("token \(token.id) (\(scope)) created; the secret above is shown only once\n")
            for note in output.outcome.notes { printer.err("  \(note.text)\n") }
        })
}

/// `DELETE /v1/tokens/{id}` (204) and `clipctl token revoke ID`, which prints the token as revoked
/// (read back through `GET /v1/tokens`). Another team's token is not found (docs/rules.md#tenancy).
public enum TokenRevoke: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var id: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            id = reader.string("id") ?? ""
        }
    }

    public struct Output: OperationOutput {
        public var token: APIToken
        public init(token: APIToken) { self.token = token }
        public var json: JSONValue { TokenJSON.token(token) }
        public init(json: JSONValue) throws(WireError) { token = try TokenJSON.token(json: json) }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let id = Int64(input.id) else { throw RegistryError.notFound("token \(input.id)") }
        let token = try session.registry.token(id: id)
        if let own = session.caller.team, token.team != own { throw RegistryError.notFound("token \(id)") }
        return Output(token: try session.registry.revokeToken(id: id).value)
    }

    public static let binding: Binding = Binding(
        Self.self, "DELETE", "/v1/tokens/{id}", status: 204,
        command: CommandSpec(
            "revoke", summary: "revoke a token", positionals: [PositionalSpec("ID", help: "the token id")],
            examples: [Example("clipctl token revoke 3", "Revoke token 3")]),
        under: ["token"],
        unreadBody: .ignored,
        commandInput: { line, arguments in
            guard let id = Int64(line.parsed.positionals.first ?? "") else { throw CommandUsageError("a token id is a number") }
            arguments.append("id", String(id))
        },
        commandAnswer: { _, arguments, run in
            // The route answers 204: the token as revoked is read back after it.
            _ = try run(TokenRevoke.binding, arguments)
            let id = Int64(arguments["id"] ?? "")
            guard let token = try TokenList.Output(json: run(TokenList.binding, Arguments()).json).tokens.first(where: { $0.id == id })
            else {
                throw RegistryError.notFound("token \(arguments["id"] ?? "")")
            }
            return OperationAnswer(json: TokenJSON.token(token), status: 200)
        },
        present: { output, _, printer in printer.line("revoked token \(output.token.id) (\(output.token.name))") })
}
