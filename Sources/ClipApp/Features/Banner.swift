public import AppleFormats
import ClipCore
import ClipStore
import Foundation
import ClipWire
import StrictJSON

/// The Smart App Banner tag of a page: `clipctl banner URL [--app-argument URL] [--clip CLIP]`, sent as
/// `GET /v1/banner`. The API serves that route as `ServedBanner` (the tag as HTML when `Accept` prefers
/// it, cached by `Accept`), so this binding does not (`servesRoute: false`); it reads the route's JSON.
public enum Banner: Operation {
    public static let callers = CallerRule.open

    /// The page, and what the tag names beside it: the route's query, the command's positional and options.
    public struct Input: DeclaredInput {
        var url: String?
        var appArgument: String?
        var clip: String?
        var at: Instant?
        /// `Accept` ranks text/html above application/json (`ServedBanner`).
        var prefersHTML = false

        public init() {}

        static let url = InputField<Input>.positional("url", \.url, "URL", help: "the page URL")
        public static let fields: [InputField<Input>] = [
            url,
            .optional(
                FieldFacts(
                    name: "appArgument", place: .query, type: .text, placeholder: "URL", help: "URL handed to the full app",
                    option: "app-argument"), \.appArgument),
            .text("clip", \.clip, "CLIP", help: "the clip, when several are associated with the host"), .moment(\.at),
        ]

        public mutating func check(_ reader: inout ArgumentReader) { prefersHTML = ServedBanner.prefersHTML(reader.arguments.accept) }
    }

    public typealias Output = PageBanner

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.banner(pageURL: input.url ?? "", appArgument: input.appArgument, clip: input.clip, at: input.at)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/banner", served: false),
        command: Command(
            ["banner"],
            CommandHelp(
                "print the Smart App Banner tag for a page",
                examples: [
                    CommandExample(
                        "clipctl banner https://bikesrental.example/rent --app-argument https://bikesrental.example/rent",
                        "Print the Smart App Banner meta tag for a page")
                ]),
            present: { banner, _, printer in
                printer.line(banner.banner.metaTag)
                for note in banner.notes { printer.err("note: \(note)\n") }
            }))
}

/// The banner as the API serves it at `GET /v1/banner?url=&appArgument=&clip=`: the tag alone as HTML when the
/// request's `Accept` ranks text/html above application/json, else the JSON `clipctl banner` reads (`Banner`);
/// shared caches keep it by `Accept`. A missing or empty `url` is 400, as for resolve.
public enum ServedBanner: Operation {
    public static let callers = CallerRule.open

    public typealias Input = Banner.Input

    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) { self.content = content }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let url = input.url, !url.isEmpty else {
            throw OperationError.malformed(
                "give the page URL as ?\(Input.url.facts.name)=",
                errors: [FieldError(field: Input.url.facts.name, rule: "required", message: "is required")])
        }
        let banner = try session.registry.banner(pageURL: url, appArgument: input.appArgument, clip: input.clip, at: input.at)
        let content =
            input.prefersHTML
            ? OperationContent(bytes: Array((banner.banner.metaTag + "\n").utf8), type: "text/html; charset=utf-8")
            : OperationContent(bytes: JSONWriter.bytes(banner.json), type: "application/json")
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
    public static let binding = Binding(Self.self, Route("GET", "/v1/banner", body: .none(.ignored), caching: .shared(vary: ["Accept"])))
}
