import ClipStore
public import ClipWire
import StrictJSON

/// A host's AASA file as the registry generates it, as JSON: `GET /v1/domains/{host}/aasa` (public, like the file
/// itself; docs/http-api.md). The file served at `/.well-known/apple-app-site-association` stays a hot route
/// (ClipAPI/HotRoutes.swift); `clipctl aasa HOST` prints the file's bytes through this route with `--server`.
public enum HostAASA: Operation {
    public static let callers = CallerRule.open

    public struct Input: DeclaredInput {
        var host = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.host(\.host, help: "the host, such as shop.example")]
    }

    public typealias Output = JSONDocument

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(json: try JSONParser.parse(try session.registry.aasa(host: input.host)))
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/domains/{host}/aasa"))
}

/// A host's AASA file, its bytes exactly as generated: `clipctl aasa HOST`, sent as `GET
/// /v1/domains/{host}/aasa`, which `HostAASA` serves (its JSON is these bytes: `served: false`).
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
        Self.self, Route("GET", "/v1/domains/{host}/aasa", served: false),
        command: Command(
            ["aasa"],
            CommandHelp(
                "print the apple-app-site-association file of a host",
                examples: [CommandExample("clipctl aasa bikesrental.example", "Print the apple-app-site-association file the host serves")]),
            json: .presented,
            present: { output, _, printer in
                // Exactly the bytes a server would send; a newline only for a person at a terminal.
                printer.out(String(decoding: output.content.bytes, as: UTF8.self) + (printer.outIsTerminal ? "\n" : ""))
            }))
}
