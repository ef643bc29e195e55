import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// `GET /v1/clips/{bundleId}/default-experience` and `clipctl default show CLIP`, with its entity tag.
public enum DefaultExperienceShow: Operation {
    public static let callers = CallerRule.token
    public typealias Input = ClipShow.Input

    public struct Output: OperationOutput {
        public var defaultExperience: DefaultExperience
        public init(_ defaultExperience: DefaultExperience) { self.defaultExperience = defaultExperience }
        public var json: JSONValue { CatalogJSON.defaultExperience(defaultExperience) }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("d", defaultExperience.version))] }
        public init(json: JSONValue) throws(WireError) { defaultExperience = try CatalogJSON.defaultExperience(json: json) }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.reference, in: session)
        return Output(try session.registry.defaultExperience(clip: clip.appID.rawValue))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/clips/{bundleId}/default-experience",
        command: CommandSpec(
            "show", summary: "show a clip's default experience", positionals: [PositionalSpec("CLIP", help: "the clip")],
            examples: [Example("clipctl default show ABCDE12345.com.example.bikes.Clip", "Show a clip's default experience")]),
        under: ["default"], commandInput: ClipFields.referenceInput,
        present: { output, _, printer in
            let d = output.defaultExperience
            printer.line("default experience of \(d.clip.rawValue) (version \(d.version)): \(d.action.rawValue)")
            for locale in d.localizations.keys.sorted() {
                let l = d.localizations[locale]!
                printer.line("  \(locale): \(l.subtitle)\(l.headerImage.map { "  image \($0)" } ?? "")")
            }
        })
}

/// `PUT /v1/clips/{bundleId}/default-experience`: creates or replaces a clip's default experience
/// (201 when created), under `If-Match` / `If-None-Match` when given. A header image is named by
/// its hash: one the team uploaded (`POST /v1/images`) or uses; absent keeps the current one.
/// (`clipctl default set` creates the clip first and sends its `--image` before: it is not yet an
/// operation.)
public enum DefaultExperienceSave: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var clip: String
        var action: Action?
        var localizations: [String: String] = [:]
        var headerImages: [String: String] = [:]

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            clip = reader.string("bundleId") ?? ""
            let fields = reader.fields
            action = fields.enumeration("action", Action.self, required: true)
            for (locale, value) in fields.object("localizations", required: true)?.objectMembers ?? [] {
                let l = FieldReader(value, path: "localizations.\(locale)")
                if let subtitle = l.string("subtitle", required: true) { localizations[locale] = subtitle }
                if let image = l.string("headerImage") { headerImages[locale] = image }
                fields.add(l.finish())
            }
        }
    }

    public struct Output: OperationOutput {
        public var outcome: WriteOutcome<DefaultExperience>
        public init(_ outcome: WriteOutcome<DefaultExperience>) { self.outcome = outcome }
        public var json: JSONValue { CatalogJSON.withNotes(CatalogJSON.defaultExperience(outcome.value), outcome.notes) }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("d", outcome.value.version))] }
        public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            outcome = WriteOutcome(
                try CatalogJSON.defaultExperience(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let action = input.action else { throw RegistryError.invalid([]) }
        let clip = try ClipFields.visibleClip(input.clip, in: session).appID
        let existing = try? session.registry.defaultExperience(clip: clip.rawValue)
        let expected = try input.arguments.replacePreconditions(
            kind: "d", current: existing?.version, "the default experience of \(clip.rawValue)")
        return Output(
            try session.registry.setDefaultExperience(
                clip: clip, action: action, localizations: input.localizations, headerImages: input.headerImages,
                expectedVersion: expected))
    }

    public static let binding = Binding(Self.self, "PUT", "/v1/clips/{bundleId}/default-experience", takesBody: true)
}

/// `DELETE /v1/clips/{bundleId}/default-experience` and `clipctl default remove CLIP`.
public enum DefaultExperienceRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = ClipShow.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.reference, in: session)
        try session.registry.removeDefaultExperience(clip: clip.appID.rawValue)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, "DELETE", "/v1/clips/{bundleId}/default-experience",
        command: CommandSpec(
            "remove", summary: "remove a clip's default experience", positionals: [PositionalSpec("CLIP", help: "the clip")],
            examples: [Example("clipctl default remove ABCDE12345.com.example.bikes.Clip", "Remove a clip's default experience")]),
        under: ["default"], commandJSON: { _ in CommandJSON.removed() }, unreadBody: .ignored, commandInput: ClipFields.referenceInput,
        present: { _, parsed, printer in printer.line("removed the default experience of \(parsed.positionals.first ?? "")") })
}
