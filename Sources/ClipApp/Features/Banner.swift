public import AppleFormats
import ArgParse
import ClipCore
import ClipStore
import Foundation
public import ClipWire
public import StrictJSON

/// The Smart App Banner tag of a page: `clipctl banner URL [--app-argument URL] [--clip CLIP]`, sent as
/// `GET /v1/banner`. The API serves that route as `ServedBanner` (the tag as HTML when `Accept` prefers
/// it, cached by `Accept`), so this binding does not (`servesRoute: false`); it reads the route's JSON.
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

/// The banner as the API serves it at `GET /v1/banner?url=&appArgument=&clip=`: the tag alone as HTML when the
/// request's `Accept` ranks text/html above application/json, else the JSON `clipctl banner` reads (`Banner`);
/// shared caches keep it by `Accept`. A missing or empty `url` is 400, as for resolve.
public enum ServedBanner: Operation {
    public static let callers = CallerRule.open

    public struct Input: OperationInput {
        public var arguments: Arguments
        var url: String?
        var appArgument: String?
        var clip: String?
        var prefersHTML: Bool
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            url = reader.string("url")
            appArgument = reader.string("appArgument")
            clip = reader.string("clip")
            prefersHTML = ServedBanner.prefersHTML(reader.arguments.accept)
        }
    }

    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) { self.content = content }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let url = input.url, !url.isEmpty else {
            throw OperationError.malformed(
                "give the page URL as ?url=", errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let banner = try session.registry.banner(pageURL: url, appArgument: input.appArgument, clip: input.clip)
        let content =
            input.prefersHTML
            ? OperationContent(bytes: Array((banner.banner.metaTag + "\n").utf8), type: "text/html; charset=utf-8")
            : OperationContent(bytes: JSONWriter.bytes(CatalogJSON.banner(banner)), type: "application/json")
        return Output(content: content, status: 200, headers: [])
    }

    /// True when `Accept` ranks text/html above application/json (RFC 9110 §12.5.1, q-values).
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var html = -1.0, json = -1.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch parts.first {
            case "text/html": html = max(html, q)
            case "application/json": json = max(json, q)
            default: break
            }
        }
        return html > 0 && html > json
    }

    /// The route reads no body and ignores one, as it always has.
    public static let binding = Binding(Self.self, "GET", "/v1/banner", unreadBody: .ignored, caching: .shared(vary: ["Accept"]))
}
