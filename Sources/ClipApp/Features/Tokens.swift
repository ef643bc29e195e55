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
