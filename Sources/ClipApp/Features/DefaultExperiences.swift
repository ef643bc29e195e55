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
/// `clipctl default set CLIP` creates the clip first (`ClipSave`) and, with `--server`, uploads its
/// `--image` before (on a database the image goes with the write, in its transaction).
public enum DefaultExperienceSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

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
        /// With the notes of the clip the command saved first (`Arguments.commandRead`: `ClipSave`'s answer).
        public init(answer: OperationAnswer) throws(WireError) {
            try self.init(json: answer.json, status: answer.status)
            outcome.notes = (answer.commandRead.map(CatalogJSON.notes(json:)) ?? []) + outcome.notes
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
                clip: clip, action: action, localizations: input.localizations, image: input.arguments.attachment,
                headerImages: input.headerImages, expectedVersion: expected))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/clips/{bundleId}/default-experience",
        command: CommandSpec(
            "set", summary: "create or replace a clip's default experience",
            positionals: [PositionalSpec("CLIP", help: "the clip")],
            options: [
                .option("action", value: "VERB", help: "OPEN, VIEW or PLAY (default OPEN)"),
                .option("subtitle", value: "LOCALE=TEXT", help: "subtitle for a locale, such as en-US=Rent a bike", repeatable: true),
                .option("image", value: "FILE", help: "header image for every locale given"),
            ],
            examples: [
                Example(
                    "clipctl default set ABCDE12345.com.example.bikes.Clip --action VIEW --subtitle 'en-US=Bikes all over town' --image header.png",
                    "Give a clip its default experience, with an English subtitle and a header image")
            ]),
        under: ["default"],
        lineJSON: { output, _ in
            [
                "defaultExperience": CatalogJSON.defaultExperience(output.outcome.value),
                "notes": CatalogJSON.notes(output.outcome.notes),
            ]
        },
        takesBody: true, commandInput: commandInput,
        present: { output, _, printer in
            let d = output.outcome.value
            printer.line("default experience of \(d.clip.rawValue): \(d.action.rawValue), \(d.localizations.count) locale(s)")
            printer.notes(output.outcome.notes)
        })

    /// `default set CLIP --action --subtitle LOCALE=TEXT… --image FILE`: the clip saved first (it may
    /// not exist yet), then the body. On a database a refused input is refused before the clip is
    /// saved, so that it writes nothing; with `--server` the requests go as they always have (the
    /// clip, the image, the default experience), each refused by the server.
    @Sendable static func commandInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        let clip = try ClipFields.parsed { () throws(ValidationFailure) in try AppID(parsed.positionals.first ?? "") }
        let action = try ClipFields.parsed { () throws(ValidationFailure) in
            try Action.parse((parsed.value("action") ?? "OPEN").uppercased(), field: "action")
        }
        var subtitles: [String: String] = [:]
        var repeated: [FieldError] = []
        for spec in parsed.all("subtitle") {
            guard let eq = spec.firstIndex(of: "=") else {
                throw CommandUsageError("--subtitle takes LOCALE=TEXT, such as \"en-US=Rent a bike\"")
            }
            let locale = String(spec[..<eq])
            // The same locale twice is refused, not the last one kept (`DefaultExperience.duplicateLocale`).
            if subtitles[locale] != nil, !repeated.contains(where: { $0.field == "localizations.\(locale)" }) {
                repeated.append(DefaultExperience.duplicateLocale(locale, sameAs: locale))
            }
            subtitles[locale] = String(spec[spec.index(after: eq)...])
        }
        let image = try parsed.value("image").map { try line.readFile($0, "--image") }
        // The store's checks of this write (`Registry.setDefaultExperience`), before the clip is saved or the
        // image uploaded: a refused command writes nothing, on a database or a server (found by hostile QA:
        // over --server the clip was created before the default was refused).
        var errors = ErrorCollector()
        errors.add(contentsOf: repeated)
        errors.add(contentsOf: DefaultExperience.check(localizations: subtitles).errors)
        if let image { _ = errors.collect { () throws(ValidationFailure) in try HeaderImage(bytes: image) } }
        if !errors.isEmpty { throw RegistryError.invalid(errors.errors) }
        let saved = try line.perform(
            ClipSave.binding, Arguments([("bundleId", clip.bundleID.rawValue)], body: RequestJSON.saveClip(team: clip.team)))
        var hash: String?
        if let image, let storeImage = line.storeImage {
            hash = try storeImage(image, clip.team.rawValue).sha256
        } else {
            arguments.attachment = image
        }
        arguments.append("bundleId", clip.rawValue)
        arguments.body = RequestJSON.setDefaultExperience(action: action, subtitles: subtitles, headerImage: hash)
        arguments.commandRead = saved.json
    }
}

/// `DELETE /v1/clips/{bundleId}/default-experience` and `clipctl default remove CLIP`; `If-Match`
/// names the version its `GET` tagged (`d-vN`).
public enum DefaultExperienceRemove: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true
    public typealias Input = ClipShow.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.reference, in: session).appID.rawValue
        let current = try session.registry.defaultExperience(clip: clip)
        let expected = try input.arguments.existingPreconditions(
            kind: "d", current: current.version, "the default experience of \(clip)")
        try session.registry.removeDefaultExperience(clip: clip, expectedVersion: expected)
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
