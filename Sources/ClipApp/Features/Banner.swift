import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// The Smart App Banner tag of a page: `clipctl banner URL [--app-argument URL] [--clip CLIP]`, sent as
/// `GET /v1/banner`. The API keeps that route's own handler (`ClipAPI.banner`: the tag as HTML when
/// `Accept` prefers it, cached by `Accept`), so this binding does not serve it (`servesRoute: false`).
public enum Banner: Operation {
    public static let callers = CallerRule.open

    public struct Input: OperationInput {
        public var arguments: Arguments
        var url: String
        var appArgument: String?
        var clip: String?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            url = reader.string("url", required: true) ?? ""
            appArgument = reader.string("appArgument")
            clip = reader.string("clip")
        }
    }

    public struct Output: OperationOutput {
        public var banner: PageBanner
        public var json: JSONValue { CatalogJSON.banner(banner) }
        public init(_ banner: PageBanner) { self.banner = banner }
        public init(json: JSONValue) throws(WireError) { banner = try CatalogJSON.banner(json: json) }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.banner(pageURL: input.url, appArgument: input.appArgument, clip: input.clip))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/banner",
        command: CommandSpec(
            "banner", summary: "print the Smart App Banner tag for a page", positionals: [PositionalSpec("URL", help: "the page URL")],
            options: [
                .option("app-argument", value: "URL", help: "URL handed to the full app"),
                .option("clip", value: "CLIP", help: "the clip, when several are associated with the host"),
            ],
            examples: [
                Example(
                    "clipctl banner https://bikesrental.example/rent --app-argument https://bikesrental.example/rent",
                    "Print the Smart App Banner meta tag for a page")
            ]),
        commandJSON: { CatalogJSON.banner($0.banner) }, servesRoute: false,
        commandInput: { line, arguments in
            arguments.append("url", line.parsed.positionals.first)
            arguments.append("appArgument", line.parsed.value("app-argument"))
            arguments.append("clip", line.parsed.value("clip"))
        },
        present: { output, _, printer in
            printer.line(output.banner.banner.metaTag)
            for note in output.banner.notes { printer.err("note: \(note)\n") }
        })
}
