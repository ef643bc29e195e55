public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// `POST /v1/clips`: creates a clip (and its team and app); one that exists is a conflict. A team
/// token creates in its own team only (docs/rules.md#tenancy).
public enum ClipCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var clip: AppID?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .value(
                "clip", \.clip, in: .body, "TEAMID.BUNDLE", help: "the clip's App ID", required: true,
                parse: { (text, _) throws(ValidationFailure) in try AppID(text) }, format: \.rawValue)
        ]
    }

    public typealias Output = ClipFields.Created

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let clip = input.clip else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: clip.team)
        if (try? session.registry.clip(clip.rawValue)) != nil { throw RegistryError.conflict("clip \(clip.rawValue) already exists") }
        return Output(try session.registry.addClip(clip))
    }

    public static let binding = Binding(Self.self, Route("POST", "/v1/clips", status: 201, body: .json(optional: false)))
}

/// `PUT /v1/clips/{bundleId}` and `clipctl clip add TEAMID.BUNDLE`: creates the clip unless it
/// exists (201, or 200 when it existed). The path names the clip as everywhere (an App ID, whose
/// team is then the clip's, or a bundle ID); a clip has no versions, so its preconditions test its
/// existence alone.
public enum ClipSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var reference = ""
        var bundle: BundleID?
        var team: TeamID?
        var preconditions = Arguments()

        public init() {}
        static let clip = InputField<Input>.clip(\.reference, "TEAMID.BUNDLE", help: "the clip's App ID")
        public static let fields: [InputField<Input>] = [clip]

        /// The path's bundle ID, or its App ID's; the team is the body's `team`, else the App ID's, else a team
        /// token's own (`ArgumentReader.writingTeam`).
        public mutating func check(_ reader: inout ArgumentReader) {
            var pathTeam: TeamID?
            if let appID = try? AppID(reference) {
                (bundle, pathTeam) = (appID.bundleID, appID.team)
            } else {
                let reference = reference
                bundle = reader.attempt { () throws(ValidationFailure) in try BundleID(reference, field: Self.clip.facts.name) }
            }
            team = reader.writingTeam(impliedByPath: pathTeam)
            preconditions = reader.preconditions
        }
    }

    public typealias Output = ClipFields.Saved

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        let existing = try? session.registry.clip(bundle.rawValue)
        // Another team's clip: the store's "registered to another team", whatever the preconditions say.
        if existing == nil || existing?.appID.team == team {
            _ = try input.preconditions.replacePreconditions(
                kind: "c", current: existing == nil ? nil : 0, "clip \(team.rawValue).\(bundle.rawValue)")
        }
        return Output(try session.registry.addClip(AppID(team: team, bundleID: bundle)))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/clips/{bundleId}", body: .json(optional: false)),
        command: Command(
            ["clip", "add"],
            CommandHelp(
                "add a clip (and its team and app)",
                examples: [
                    CommandExample("clipctl clip add ABCDE12345.com.example.bikes.Clip", "Add a clip before registering any experience")
                ]),
            // The command reads an App ID, whose team is then the clip's (exit 65 otherwise).
            steps: CommandSteps(check: { words in
                _ = try ClipFields.parsed { () throws(ValidationFailure) in try AppID(words.positional(0) ?? "") }
            }),
            json: .shape(\.written),
            present: { output, _, printer in
                let id = output.outcome.value.appID.rawValue
                printer.line(output.outcome.created ? "clip \(id) added" : "clip \(id) already exists")
                printer.notes(output.outcome.notes)
            }))
}

/// `GET /v1/clips/{bundleId}` and `clipctl clip show CLIP`.
public enum ClipShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var reference = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.clip(\.reference, help: "TEAMID.BUNDLE or bundle ID")]
    }

    public typealias Output = Clip

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try ClipFields.visibleClip(input.reference, in: session)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/clips/{bundleId}"),
        command: Command(
            ["clip", "show"],
            CommandHelp("show a clip", examples: [CommandExample("clipctl clip show ABCDE12345.com.example.bikes.Clip", "Show a clip")]),
            present: { clip, _, printer in
                let hosts = clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", ")
                printer.line("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(hosts)")
            }))
}

/// `DELETE /v1/clips/{bundleId}` and `clipctl clip remove CLIP`: a clip with its domain associations
/// and default experience; refused while it has experiences.
public enum ClipRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = ClipShow.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.removeClip(try ClipFields.visibleClip(input.reference, in: session).appID.rawValue)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/clips/{bundleId}", body: .none(.ignored)),
        command: Command(
            ["clip", "remove"],
            CommandHelp(
                "remove a clip that has no experiences",
                examples: [
                    CommandExample(
                        "clipctl clip remove ABCDE12345.com.example.bikes.Clip", "Remove a clip whose experiences are all removed")
                ]),
            json: .line { _, words in CommandJSON.removed(.string(words.positional(0) ?? "")) },
            present: { _, words, printer in printer.line("removed clip \(words.positional(0) ?? "")") }))
}

/// What the clip operations share: their outputs and the team scope.
public enum ClipFields {
    /// A clip a POST created: 201 with its place, and the notes of what it created (always listed).
    public struct Created: WriteAnswer {
        public var outcome: WriteOutcome<Clip>
        public init(_ outcome: WriteOutcome<Clip>) { self.outcome = outcome }
        public var json: JSONValue { written }
        public var headers: [(name: String, value: String)] { [("Location", "/v1/clips/\(outcome.value.appID.bundleID.rawValue)")] }
    }

    /// A clip a PUT saved: 201 with its place when created, 200 otherwise; with the write's notes (always listed).
    public struct Saved: WriteAnswer {
        public var outcome: WriteOutcome<Clip>
        public init(_ outcome: WriteOutcome<Clip>) { self.outcome = outcome }
        public var json: JSONValue { written }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            outcome.created ? [("Location", "/v1/clips/\(outcome.value.appID.bundleID.rawValue)")] : []
        }
    }

    /// A clip as its routes name it (`Registry.clip`: an App ID, whose team must be the clip's, or a
    /// bundle ID). A team token gets the same answer, word for word, for another team's clip, one
    /// that does not exist and a malformed name (docs/rules.md#tenancy); an administrator gets the
    /// store's reason; the database's owner the store's answer, as clipctl has always printed it
    /// (a malformed reference is a field error there).
    public static func visibleClip(_ raw: String, in session: Session) throws -> Clip {
        if session.caller == .local { return try session.registry.clip(raw) }
        let notFound = RegistryError.notFound("clip \(raw)")
        guard (try? BundleID(raw)) != nil else { throw notFound }
        let clip: Clip
        do { clip = try session.registry.clip(raw) } catch RegistryError.notFound(let reason) {
            throw session.caller.team == nil ? RegistryError.notFound(reason) : notFound
        }
        try session.checkVisible(team: clip.appID.team, "clip \(raw)")
        return clip
    }

    /// The value `body` makes; its field errors as the command's (exit 65).
    static func parsed<T>(_ body: () throws(ValidationFailure) -> T) throws(RegistryError) -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }
}
