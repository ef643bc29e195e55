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
