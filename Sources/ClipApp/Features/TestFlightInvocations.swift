import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// A clip's chosen TestFlight invocations (docs/app-store-connect.md#testflight-invocations): `GET
/// /v1/clips/{clip}/testflight-invocations` and `clipctl asc testflight show CLIP`. A team token reads its own
/// team's clips only; another team's clip is not found (docs/rules.md#tenancy).
public enum TestFlightInvocationsShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        /// The clip's App ID or bundle ID.
        public var clip = ""
        public init() {}
        public init(clip: String) { self.clip = clip }
        public static let fields: [InputField<Input>] = [.clipOfPath(\.clip)]
    }

    public typealias Output = TestFlightInvocationList

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try session.visibleClip(input.clip)
        return Output(clip: clip, invocations: try session.registry.testFlightInvocations(clip: clip.rawValue))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/clips/{clip}/testflight-invocations"),
        command: Command(
            ["asc", "testflight", "show"],
            CommandHelp(
                "the URLs each build's App Clip offers testers in TestFlight, with their titles per locale",
                examples: [
                    CommandExample(
                        "clipctl asc testflight show com.example.bikes.Clip", "The invocations chosen, and what each resolves to now")
                ]),
            present: TestFlightInvocationList.present))
}

/// Chooses a clip's TestFlight invocations: `PUT /v1/clips/{clip}/testflight-invocations?url=…&url=…` and
/// `clipctl asc testflight set CLIP URL [URL [URL]]`. Each URL must resolve to an active experience of the clip or to
/// its default experience; at most three, no two alike; every field error at once, nothing written then.
public enum TestFlightInvocationsSet: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        public var clip = ""
        /// In the order testers see them; none clears the list.
        public var urls: [String] = []
        public init() {}
        public init(clip: String, urls: [String]) {
            self.clip = clip
            self.urls = urls
        }
        public static let fields: [InputField<Input>] =
            [.clipOfPath(\.clip)]
            + InputField.texts("url", \.urls, "URL", helps: ["an invocation URL testers see first", "a second", "a third"])
    }

    public typealias Output = TestFlightInvocationList

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // The team check comes first: another team's clip is not found, whatever its URLs would say.
        let clip = try session.visibleClip(input.clip)
        let saved = try session.registry.setTestFlightInvocations(clip: clip.rawValue, urls: input.urls)
        return Output(clip: clip, invocations: saved.value)
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/clips/{clip}/testflight-invocations"),
        command: Command(
            ["asc", "testflight", "set"],
            CommandHelp(
                "choose up to three URLs each build's App Clip offers testers in TestFlight (asc testflight apply sends them)",
                discussion: """
                    Each URL must resolve to an active experience of the clip, or to its default experience; their titles are \
                    the experiences' card titles per language (the app's name for the default experience).
                    """,
                examples: [
                    CommandExample(
                        "clipctl asc testflight set com.example.bikes.Clip https://bikes.example/rent https://bikes.example/return",
                        "Offer testers two experiences in TestFlight")
                ]),
            present: { output, words, printer in
                TestFlightInvocationList.present(output, words, printer)
                printer.line(output.invocations.isEmpty ? appReviewKept : appReviewToo)
            }))

    /// App Review gets the chosen URLs too, with the default experience (docs/app-store-connect.md#app-review-gets-the-same-urls).
    static let appReviewToo =
        "App Review gets these URLs too: the next clipctl asc apply puts them in the App Clip review detail of the App Store "
        + "version being edited, with the default experience"
    static let appReviewKept = "App Review's URLs are left as they are at the next clipctl asc apply (none chosen)"
}

extension InputField {
    /// The clip a route's path names (`{clip}`), by App ID or bundle ID.
    fileprivate static func clipOfPath(_ key: any WritableKeyPath<Input, String> & Sendable) -> InputField {
        .text("clip", key, in: .path, "CLIP", help: "the clip's App ID (TEAMID.BUNDLE) or bundle ID", required: true)
    }
}

extension TestFlightInvocationList {
    /// The invocations as `asc testflight show` and `set` print them.
    static func present(_ output: TestFlightInvocationList, _ words: CommandWords, _ printer: Printer) {
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
