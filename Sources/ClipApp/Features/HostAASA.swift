import ArgParse
import ClipStore
public import StrictJSON

/// A host's AASA file as the registry generates it, as JSON: `GET /v1/domains/{host}/aasa` (public, like the file
/// itself; docs/http-api.md). The file served at `/.well-known/apple-app-site-association` stays a hot route
/// (ClipAPI/HotRoutes.swift); `clipctl aasa HOST` prints the file's bytes through this route with `--server`.
public enum HostAASA: Operation {
    public static let callers = CallerRule.open

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
        }
    }

    public struct Output: OperationOutput {
        public var document: JSONValue
        public var json: JSONValue { document }
        public init(json: JSONValue) { document = json }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(json: try JSONParser.parse(try session.registry.aasa(host: input.host)))
    }

    public static let binding = Binding(Self.self, "GET", "/v1/domains/{host}/aasa")
}

/// A host's AASA file, its bytes exactly as generated: `clipctl aasa HOST`, sent as `GET
/// /v1/domains/{host}/aasa`, which `HostAASA` serves (its JSON is these bytes: `servesRoute: false`).
/// `aasa check` and `aasa lint` read a host's file through it too.
public enum HostAASAFile: Operation {
    public static let callers = CallerRule.open
    public typealias Input = HostAASA.Input

    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) { self.content = content }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(
            content: OperationContent(bytes: try session.registry.aasa(host: input.host), type: "application/json"), status: 200,
            headers: [])
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/domains/{host}/aasa",
        command: CommandSpec(
            "aasa", summary: "print the apple-app-site-association file of a host",
            positionals: [PositionalSpec("HOST", help: "the host, such as shop.example")],
            examples: [Example("clipctl aasa bikesrental.example", "Print the apple-app-site-association file the host serves")]),
        servesRoute: false, presentsJSON: true,
        present: { output, _, printer in
            // Exactly the bytes a server would send; a newline only for a person at a terminal.
            printer.out(String(decoding: output.content.bytes, as: UTF8.self) + (printer.outIsTerminal ? "\n" : ""))
        })
}
