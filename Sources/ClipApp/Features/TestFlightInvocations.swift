import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// A clip's chosen TestFlight invocations (docs/app-store-connect.md#testflight-invocations): `GET
/// /v1/clips/{clip}/testflight-invocations` and `clipctl asc testflight show CLIP`. A team token reads its own
/// team's clips only; another team's clip is not found (docs/rules.md#tenancy).
public enum TestFlightInvocationsShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        /// The clip's App ID or bundle ID.
        public var clip: String
        public init(clip: String) { self.clip = clip }
        public init(reading reader: inout ArgumentReader) { clip = reader.string("clip", required: true) ?? "" }
        public var arguments: Arguments { Arguments([("clip", clip)]) }
    }

    public typealias Output = TestFlightInvocationList

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try session.visibleClip(input.clip)
        return Output(clip: clip, invocations: try session.registry.testFlightInvocations(clip: clip.rawValue))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/clips/{clip}/testflight-invocations",
        command: CommandSpec(
            "show", summary: "the URLs each build's App Clip offers testers in TestFlight, with their titles per locale",
            positionals: [PositionalSpec("CLIP", help: "the clip's App ID (TEAMID.BUNDLE) or bundle ID")],
            examples: [
                Example("clipctl asc testflight show com.example.bikes.Clip", "The invocations chosen, and what each resolves to now")
            ]),
        under: ["asc", "testflight"], present: TestFlightInvocationList.present)
}

/// Chooses a clip's TestFlight invocations: `PUT /v1/clips/{clip}/testflight-invocations?url=…&url=…` and
/// `clipctl asc testflight set CLIP URL [URL [URL]]`. Each URL must resolve to an active experience of the clip or to
/// its default experience; at most three, no two alike; every field error at once, nothing written then.
public enum TestFlightInvocationsSet: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var clip: String
        /// In the order testers see them; none clears the list.
        public var urls: [String]
        public init(clip: String, urls: [String]) {
            self.clip = clip
            self.urls = urls
        }
        public init(reading reader: inout ArgumentReader) {
            clip = reader.string("clip", required: true) ?? ""
            urls = reader.arguments.all("url")
        }
        public var arguments: Arguments { Arguments([("clip", clip)] + urls.map { ("url", $0) }) }
    }

    public typealias Output = TestFlightInvocationList

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // The team check comes first: another team's clip is not found, whatever its URLs would say.
        let clip = try session.visibleClip(input.clip)
        let saved = try session.registry.setTestFlightInvocations(clip: clip.rawValue, urls: input.urls)
        return Output(clip: clip, invocations: saved.value)
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/clips/{clip}/testflight-invocations",
        command: CommandSpec(
            "set", summary: "choose up to three URLs each build's App Clip offers testers in TestFlight (asc testflight apply sends them)",
            discussion: """
                Each URL must resolve to an active experience of the clip, or to its default experience; their titles are \
                the experiences' card titles per language (the app's name for the default experience).
                """,
            positionals: [
                PositionalSpec("CLIP", help: "the clip's App ID (TEAMID.BUNDLE) or bundle ID"),
                PositionalSpec("URL", help: "an invocation URL testers see first"),
                PositionalSpec("URL", help: "a second", optional: true), PositionalSpec("URL", help: "a third", optional: true),
            ],
            examples: [
                Example(
                    "clipctl asc testflight set com.example.bikes.Clip https://bikes.example/rent https://bikes.example/return",
                    "Offer testers two experiences in TestFlight")
            ]),
        under: ["asc", "testflight"],
        present: { output, parsed, printer in
            TestFlightInvocationList.present(output, parsed, printer)
            printer.line(output.invocations.isEmpty ? appReviewKept : appReviewToo)
        })

    /// App Review gets the chosen URLs too, with the default experience (docs/app-store-connect.md#app-review-gets-the-same-urls).
    static let appReviewToo =
        "App Review gets these URLs too: the next clipctl asc apply puts them in the App Clip review detail of the App Store "
        + "version being edited, with the default experience"
    static let appReviewKept = "App Review's URLs are left as they are at the next clipctl asc apply (none chosen)"
}

/// A clip's invocations as both operations answer them.
public struct TestFlightInvocationList: OperationOutput {
    public var clip: AppID
    public var invocations: [TestFlightInvocation]

    public init(clip: AppID, invocations: [TestFlightInvocation]) {
        self.clip = clip
        self.invocations = invocations
    }

    public var json: JSONValue {
        .object([
            ("clip", .string(clip.rawValue)),
            ("items", .array(invocations.map(Self.json))),
        ])
    }

    static func json(_ invocation: TestFlightInvocation) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("position", .integer(Int64(invocation.position))), ("url", .string(invocation.url)),
        ]
        switch invocation.target {
        case .experience(let id): members.append(("experienceId", .integer(id)))
        case .defaultExperience: members.append(("defaultExperience", .bool(true)))
        case .unresolved(let why): members.append(("problem", .string(why)))
        }
        members.append(
            ("titles", .array(invocation.titles.map { .object([("locale", .string($0.locale)), ("title", .string($0.title))]) })))
        return .object(members)
    }

    public init(json: JSONValue) throws(WireError) {
        guard let clipText = json["clip"]?.stringValue, let clip = try? AppID(clipText), let items = json["items"]?.arrayValue else {
            throw WireError("testflight invocations: clip or items is missing or malformed")
        }
        self.clip = clip
        invocations = try items.map { (item) throws(WireError) in
            guard case .integer(let position)? = item["position"], let url = item["url"]?.stringValue,
                let titles = item["titles"]?.arrayValue
            else { throw WireError("testflight invocation: position, url or titles is missing or malformed") }
            let target: TestFlightInvocation.Target
            if case .integer(let id)? = item["experienceId"] {
                target = .experience(id)
            } else if item["defaultExperience"]?.boolValue == true {
                target = .defaultExperience
            } else {
                target = .unresolved(item["problem"]?.stringValue ?? "")
            }
            return TestFlightInvocation(
                position: Int(position), url: url, target: target,
                titles: titles.compactMap { t in
                    guard let locale = t["locale"]?.stringValue, let title = t["title"]?.stringValue else { return nil }
                    return TestFlightInvocation.Title(locale: locale, title: title)
                })
        }
    }

    static func present(_ output: TestFlightInvocationList, _ parsed: CommandWords, _ printer: Printer) {
        guard !output.invocations.isEmpty else {
            printer.line("clip \(output.clip.rawValue): no TestFlight invocations chosen (clipctl asc testflight set CLIP URL …)")
            return
        }
        printer.line("clip \(output.clip.rawValue)")
        for invocation in output.invocations {
            let what: String
            switch invocation.target {
            case .experience(let id): what = "experience \(id)"
            case .defaultExperience: what = "default experience"
            case .unresolved(let why): what = "PROBLEM: \(why)"
            }
            printer.line("\(invocation.position)  \(invocation.url)  \(what)")
            for title in invocation.titles { printer.line("     \(title.locale): \(title.title)") }
        }
    }
}

extension Session {
    /// The clip `reference` names, if this caller may see it: another team's is not found (docs/rules.md#tenancy).
    /// The rule is the clip routes' own (`ClipFields.visibleClip`), so the answers are word for word theirs.
    func visibleClip(_ reference: String) throws -> AppID { try ClipFields.visibleClip(reference, in: self).appID }
}
