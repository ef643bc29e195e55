import CardPreview
import ClipCore
import ClipStore
public import ClipWire
import FileFormats
import Foundation
public import StrictJSON

/// The App Clip card preview page of an invocation URL as one self-contained HTML file: `clipctl
/// preview URL [--language L] [-o FILE]`, sent as `GET /preview`. The API serves that route as
/// `ServedPreviewPage` (its images served by hash, its security and caching fields), so this binding
/// does not; on a database the page is made with its images inlined, and with
/// `--server` each image the server's page loads is read (`HeaderImageFile`) and inlined, and its code
/// links made absolute on the server (`StandalonePage`), so the file opens anywhere.
public enum PreviewPage: Operation {
    public static let callers = CallerRule.open

    /// The invocation URL and the card's language; the request's `Accept-Language` when none is given (`ServedPreviewPage`).
    public struct Input: DeclaredInput {
        var url: String?
        var language: String?
        var acceptLanguage: String?
        var at: Instant?

        public init() {}

        static let url = InputField<Input>.positional("url", \.url, "URL", help: "the invocation URL")
        public static let fields: [InputField<Input>] = [
            url, .text("language", \.language, "LANG", help: "card language (EN, fr-CA, …)"), .moment(\.at),
        ]

        public mutating func check(_ reader: inout ArgumentReader) { acceptLanguage = reader.arguments.acceptLanguage }
    }

    /// The page: 200 when a card shows, 404 when none does, 422 when the URL is not an invocation URL.
    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public var status: Int?
        /// Why no card shows.
        public var reason: String?
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) {
            self.content = content
            self.status = status
            reason = status == 200 ? nil : "the server answered \(status)"
        }
        /// The reason travels beside the page on a database (a server's page says it in the page only).
        public var json: JSONValue { reason.map { ["reason": .string($0)] } ?? .null }
        public init(answer: OperationAnswer) throws(WireError) {
            guard let content = answer.content else { throw WireError("the answer has no page") }
            self.init(content: content, status: answer.status, headers: answer.headers)
            if let known = answer.json["reason"]?.stringValue { reason = known }
        }
        public var showsCard: Bool { status == 200 }
        /// The page is the answer whether a card shows or not.
        public static func isOutput(_ answer: OperationAnswer) -> Bool {
            [200, 404, 422].contains(answer.status) && answer.content?.type.hasPrefix("text/html") == true
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let source = try CardPreviewSource.input(
            registry: session.registry, url: input.url ?? "", language: input.language, acceptLanguage: nil, images: .inline,
            codesOrigin: nil, at: input.at)
        let page = CardPreviewPage.render(source)
        let status = page.kind != .noMatch ? 200 : source.urlIsValid ? 404 : 422
        var output = Output(
            content: OperationContent(bytes: Array(page.html.utf8), type: "text/html; charset=utf-8"), status: status, headers: [])
        output.reason = status == 200 ? nil : source.resolution.reason
        return output
    }

    /// The page alone, as the command reads it before it inlines the images.
    static let page = Binding(Self.self, Route("GET", "/preview", served: false))

    /// `-o FILE`: where the command writes the page.
    static let output = FieldFacts.outputFile

    public static let binding = Binding(
        Self.self, Route("GET", "/preview", served: false),
        command: Command(
            ["preview"],
            CommandHelp(
                "write the App Clip card preview page of an invocation URL",
                discussion:
                    "One self-contained HTML file (no script; images inlined): the card the URL gets, its QR code, NFC NDEF bytes, the resolve explanation and the Smart App Banner tag. With --server, the server's page with its images inlined. The file is replaced whole, never written through a symbolic link. Exits 1 when the URL gets no card (the page says why).",
                examples: [
                    CommandExample(
                        "clipctl preview https://bikesrental.example/rent -o card.html",
                        "Write the card, QR code and banner tag a URL gets to one HTML page")
                ]),
            options: [output],
            steps: CommandSteps(answer: { _, arguments, run in
                var html = arguments
                html.accept = "text/html"
                return try standalone(try run(page, html), run)
            }),
            json: .presented, present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) throws {
        let html = output.content.bytes
        if let path = words.value(Self.output.option) {
            do throws(DurableFiles.Failure) { try DurableFiles.replaceWhole(path, with: html) } catch {
                throw OperationError.notWritten(error.description)
            }
        } else {
            printer.out(String(decoding: html, as: UTF8.self))
        }
        guard output.showsCard else {
            let url = words.positional(0) ?? ""
            throw CommandVerdict.negative("no App Clip card for \(url): \(output.reason ?? "the page says why")")
        }
    }

    /// A server's page with each image it loads inlined (one the server does not give stays a link) and its
    /// code links on the server; a database's page as it is (its images are inline already).
    static func standalone(_ page: OperationAnswer, _ run: OperationRunner) throws -> OperationAnswer {
        guard let origin = page.origin, let content = page.content else { return page }
        let html = String(decoding: content.bytes, as: UTF8.self)
        var sources: [String: String] = [:]
        for sha in StandalonePage.servedImages(html) {
            var arguments = Arguments([(HeaderImageFile.Input.sha256.facts.name, sha)])
            arguments.accept = "image/png, image/jpeg"
            let image = try run(HeaderImageFile.binding, arguments)
            let type = image.content?.type ?? ""
            guard image.status == 200, type == "image/png" || type == "image/jpeg", let bytes = image.content?.bytes else { continue }
            sources[sha] = "data:\(type);base64,\(Base64.encode(bytes))"
        }
        var answer = page
        answer.content?.bytes = Array(StandalonePage.make(html, sources: sources, origin: origin).utf8)
        return answer
    }
}

/// The card preview page as the API serves it at `GET /preview?url=&language=` (else in the request's
/// `Accept-Language`): its images loaded from `/v1/images/{sha256}` and its code links on this server, so
/// that its `Content-Security-Policy` allows no inline image. 200 when a card shows, 404 when none does,
/// 422 when the URL is not an invocation URL; the page in every case. `clipctl preview` reads this
/// route (`PreviewPage`).
public enum ServedPreviewPage: Operation {
    public static let callers = CallerRule.open

    public typealias Input = PreviewPage.Input

    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public var status: Int?
        public var headers: [(name: String, value: String)]
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) {
            self.content = content
            self.status = status
            self.headers = headers
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let url = input.url, !url.isEmpty else {
            throw OperationError.malformed(
                "give the invocation URL as ?\(Input.url.facts.name)=",
                errors: [FieldError(field: Input.url.facts.name, rule: "required", message: "is required")])
        }
        let source = try CardPreviewSource.input(
            registry: session.registry, url: url, language: input.language, acceptLanguage: input.acceptLanguage,
            images: .served, codesOrigin: "", at: input.at)
        let page = CardPreviewPage.render(source)
        let status = page.kind != .noMatch ? 200 : source.urlIsValid ? 404 : 422
        return Output(
            content: OperationContent(bytes: Array(page.html.utf8), type: "text/html; charset=utf-8"), status: status,
            headers: [
                ("Content-Security-Policy", page.contentSecurityPolicy),
                // Fetch §3.5.2 (`nosniff`) and Referrer Policy §3 (`no-referrer`: the URL previewed stays here).
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                // A page without a card (404, 422) is not for caches to keep: asked again each time
                // (RFC 9111 §5.2.2.4); a 200 gets the route's public policy instead (`RouteCaching`).
                ("Cache-Control", "no-cache"),
                ("Vary", "Accept-Language"),
            ])
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/preview", body: .none(.ignored), caching: .shared(vary: ["Accept-Language"])))
}

/// A stored header image by its SHA-256: `GET /v1/images/{sha256}`, public. The bytes never change for a
/// name, so the answer may be cached for a year as `immutable` (RFC 8246) with the hash as its strong ETag
/// (RFC 9110 §8.8.3); `If-None-Match` with it answers 304 (RFC 9110 §13.1.2). Any answer is read back, so
/// that `preview --server` leaves an image the server does not give as a link.
public enum HeaderImageFile: Operation {
    public static let callers = CallerRule.open

    public struct Input: DeclaredInput {
        var sha256 = ""
        public init() {}
        static let sha256 = InputField<Input>.text("sha256", \.sha256, in: .path, "SHA256", help: "the image's SHA-256, lower-case hex")
        public static let fields: [InputField<Input>] = [sha256]
    }

    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public var headers: [(name: String, value: String)]
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) {
            self.content = content
            self.headers = headers
        }
        public static func isOutput(_ answer: OperationAnswer) -> Bool { true }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let sha = input.sha256
        let hex = sha.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
        guard sha.utf8.count == 64, hex else {
            throw OperationError.notFound("no header image \(sha.prefix(80)): give its SHA-256 in lower-case hexadecimal")
        }
        // An unknown hash is RegistryError.notFound, answered 404 like any other.
        let image = try session.registry.headerImage(sha)
        return Output(
            content: OperationContent(bytes: image.bytes, type: image.mediaType), status: 200,
            headers: [("ETag", "\"\(sha)\""), ("X-Content-Type-Options", "nosniff")])
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/images/{sha256}", body: .none(.ignored), caching: .immutable))
}
