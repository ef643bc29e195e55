import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// `POST /v1/clips`: creates a clip (and its team and app); one that exists is a conflict. A team
/// token creates in its own team only (docs/rules.md#tenancy).
public enum ClipCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var clip: AppID?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let fields = reader.fields
            if let s = fields.string("clip", required: true) { clip = fields.attempt { () throws(ValidationFailure) in try AppID(s) } }
        }
    }

    public typealias Output = ClipFields.Created

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let clip = input.clip else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: clip.team)
        if (try? session.registry.clip(clip.rawValue)) != nil { throw RegistryError.conflict("clip \(clip.rawValue) already exists") }
        return Output(try session.registry.addClip(clip))
    }

    public static let binding = Binding(Self.self, "POST", "/v1/clips", status: 201, takesBody: true)
}

/// `PUT /v1/clips/{bundleId}` and `clipctl clip add TEAMID.BUNDLE`: creates the clip unless it
/// exists (201, or 200 when it existed). The path names the clip as everywhere (an App ID, whose
/// team is then the clip's, or a bundle ID); a clip has no versions, so its preconditions test its
/// existence alone.
public enum ClipSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: OperationInput {
        public var arguments: Arguments
        var bundle: BundleID?
        var team: TeamID?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let raw = reader.string("bundleId") ?? ""
            var pathTeam: TeamID?
            if let appID = try? AppID(raw, field: "bundleId") {
                (bundle, pathTeam) = (appID.bundleID, appID.team)
            } else {
                bundle = reader.attempt { () throws(ValidationFailure) in try BundleID(raw, field: "bundleId") }
            }
            team = reader.writingTeam(impliedByPath: pathTeam)
        }
    }

    public typealias Output = ClipFields.Saved

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        let existing = try? session.registry.clip(bundle.rawValue)
        // Another team's clip: the store's "registered to another team", whatever the preconditions say.
        if existing == nil || existing?.appID.team == team {
            _ = try input.arguments.replacePreconditions(
                kind: "c", current: existing == nil ? nil : 0, "clip \(team.rawValue).\(bundle.rawValue)")
        }
        return Output(try session.registry.addClip(AppID(team: team, bundleID: bundle)))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/clips/{bundleId}",
        command: CommandSpec(
            "add", summary: "add a clip (and its team and app)",
            positionals: [PositionalSpec("TEAMID.BUNDLE", help: "the clip's App ID")],
            examples: [
                Example("clipctl clip add ABCDE12345.com.example.bikes.Clip", "Add a clip before registering any experience")
            ]),
        under: ["clip"], commandJSON: { writtenJSON(CatalogJSON.clip($0.outcome.value), notes: $0.outcome.notes) }, takesBody: true,
        commandInput: { line, arguments in
            // The command reads an App ID (exit 65 otherwise); its team travels in the body.
            let clip = try ClipFields.parsed { () throws(ValidationFailure) in try AppID(line.parsed.positionals.first ?? "") }
            arguments.append("bundleId", clip.bundleID.rawValue)
            arguments.body = .object([("team", .string(clip.team.rawValue))])
        },
        present: { output, _, printer in
            let id = output.outcome.value.appID.rawValue
            printer.line(output.outcome.created ? "clip \(id) added" : "clip \(id) already exists")
            printer.notes(output.outcome.notes)
        })
}

/// `GET /v1/clips/{bundleId}` and `clipctl clip show CLIP`.
public enum ClipShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var reference: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            reference = reader.string("bundleId") ?? ""
        }
    }

    public struct Output: OperationOutput {
        public var clip: Clip
        public init(clip: Clip) { self.clip = clip }
        public var json: JSONValue { CatalogJSON.clip(clip) }
        public init(json: JSONValue) throws(WireError) { clip = try CatalogJSON.clip(json: json) }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(clip: try ClipFields.visibleClip(input.reference, in: session))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/clips/{bundleId}",
        command: CommandSpec(
            "show", summary: "show a clip", positionals: [PositionalSpec("CLIP", help: "TEAMID.BUNDLE or bundle ID")],
            examples: [Example("clipctl clip show ABCDE12345.com.example.bikes.Clip", "Show a clip")]),
        under: ["clip"], commandInput: ClipFields.referenceInput,
        present: { output, _, printer in
            let clip = output.clip
            let hosts = clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", ")
            printer.line("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(hosts)")
        })
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
        Self.self, "DELETE", "/v1/clips/{bundleId}",
        command: CommandSpec(
            "remove", summary: "remove a clip that has no experiences",
            positionals: [PositionalSpec("CLIP", help: "TEAMID.BUNDLE or bundle ID")],
            examples: [
                Example("clipctl clip remove ABCDE12345.com.example.bikes.Clip", "Remove a clip whose experiences are all removed")
            ]),
        under: ["clip"], lineJSON: { _, parsed in CommandJSON.removed(.string(parsed.positionals.first ?? "")) }, unreadBody: .ignored,
        commandInput: ClipFields.referenceInput,
        present: { _, parsed, printer in printer.line("removed clip \(parsed.positionals.first ?? "")") })
}

/// What the clip operations share: their outputs and the team scope.
public enum ClipFields {
    /// A clip a POST created: 201 with its place, and the notes of what it created.
    public struct Created: OperationOutput {
        public var outcome: WriteOutcome<Clip>
        public init(_ outcome: WriteOutcome<Clip>) { self.outcome = outcome }
        public var json: JSONValue { CatalogJSON.clip(outcome.value, notes: outcome.notes) }
        public var headers: [(name: String, value: String)] { [("Location", "/v1/clips/\(outcome.value.appID.bundleID.rawValue)")] }
        public init(json: JSONValue) throws(WireError) {
            outcome = WriteOutcome(try CatalogJSON.clip(json: json), created: true, notes: CatalogJSON.notes(json: json))
        }
    }

    /// A clip a PUT saved: 201 with its place when created, 200 otherwise; with the write's notes.
    public struct Saved: OperationOutput {
        public var outcome: WriteOutcome<Clip>
        public init(_ outcome: WriteOutcome<Clip>) { self.outcome = outcome }
        public var json: JSONValue { CatalogJSON.clip(outcome.value, notes: outcome.notes) }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            outcome.created ? [("Location", "/v1/clips/\(outcome.value.appID.bundleID.rawValue)")] : []
        }
        public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            outcome = WriteOutcome(try CatalogJSON.clip(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
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

    /// A command's clip reference (its first positional) as the route's `{bundleId}`.
    @Sendable static func referenceInput(_ line: CommandLine, _ arguments: inout Arguments) {
        arguments.append("bundleId", line.parsed.positionals.first)
    }

    /// The value `body` makes; its field errors as the command's (exit 65).
    static func parsed<T>(_ body: () throws(ValidationFailure) -> T) throws(RegistryError) -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }
}
