public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// `GET /v1/clips/{bundleId}/default-experience` and `clipctl default show CLIP`, with its entity tag.
public enum DefaultExperienceShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var reference = ""
        /// The request's preconditions, which a removal evaluates (`DefaultExperienceRemove`).
        var preconditions = Arguments()
        public init() {}
        public static let fields: [InputField<Input>] = [.clip(\.reference, help: "the clip")]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    public struct Output: ObjectAnswer {
        public var value: DefaultExperience
        public init(_ value: DefaultExperience) { self.value = value }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("d", value.version))] }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.reference, in: session)
        return Output(try session.registry.defaultExperience(clip: clip.appID.rawValue))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/clips/{bundleId}/default-experience"),
        command: Command(
            ["default", "show"],
            CommandHelp(
                "show a clip's default experience",
                examples: [CommandExample("clipctl default show ABCDE12345.com.example.bikes.Clip", "Show a clip's default experience")]),
            present: { output, _, printer in
                let d = output.value
                printer.line("default experience of \(d.clip.rawValue) (version \(d.version)): \(d.action.rawValue)")
                for locale in d.localizations.keys.sorted() {
                    let l = d.localizations[locale]!
                    printer.line("  \(locale): \(l.subtitle)\(l.headerImage.map { "  image \($0)" } ?? "")")
                }
            }))
}

/// `PUT /v1/clips/{bundleId}/default-experience`: creates or replaces a clip's default experience
/// (201 when created), under `If-Match` / `If-None-Match` when given. A header image is named by
/// its hash: one the team uploaded (`POST /v1/images`) or uses; absent keeps the current one.
/// `clipctl default set CLIP` creates the clip first (`ClipSave`) and, with `--server`, uploads its
/// `--image` before (on a database the image goes with the write, in its transaction).
public enum DefaultExperienceSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var clip = ""
        var action: Action?
        var localizations: [String: String] = [:]
        var headerImages: [String: String] = [:]
        var preconditions = Arguments()
        /// The header image a command read from its file, written on the database in the write's transaction
        /// (`Arguments.attachment`).
        var image: [UInt8]?

        public init() {}

        /// `action`, which the body needs; the command's `--action` asks for OPEN when not given.
        static let action: InputField<Input> = {
            let facts = FieldFacts(
                name: "action", place: .body, type: .choice(Action.allCases.map(\.rawValue)), placeholder: "VERB",
                help: "OPEN, VIEW or PLAY", defaultValue: Action.open.rawValue)
            return InputField(
                facts, read: { input, reader in input.action = reader.fields.enumeration(facts.name, Action.self, required: true) },
                write: { input, arguments in arguments.set(facts, text: input.action?.rawValue) })
        }()

        /// `localizations`, by locale: each a `subtitle` and a `headerImage`'s hash; the command's `--subtitle
        /// LOCALE=TEXT` gives one locale each time.
        static let localizations: InputField<Input> = {
            let facts = FieldFacts(
                name: "localizations", place: .body, type: .text, placeholder: "LOCALE=TEXT",
                help: "subtitle for a locale, such as en-US=Rent a bike", repeatable: true, option: "subtitle")
            return InputField(
                facts,
                read: { input, reader in
                    let fields = reader.fields
                    for (locale, value) in fields.object(facts.name, required: true)?.objectMembers ?? [] {
                        let l = FieldReader(value, path: "\(facts.name).\(locale)")
                        if let subtitle = l.string("subtitle", required: true) { input.localizations[locale] = subtitle }
                        if let image = l.string("headerImage") { input.headerImages[locale] = image }
                        fields.add(l.finish())
                    }
                },
                write: { input, arguments in
                    let locales = input.localizations.sorted { $0.key < $1.key }.map { locale, subtitle in
                        (
                            key: locale,
                            value: JSONValue.object([
                                "subtitle": .string(subtitle), "headerImage": input.headerImages[locale].map(JSONValue.string),
                            ])
                        )
                    }
                    arguments.setMember(facts.name, .object(locales))
                })
        }()

        public static let fields: [InputField<Input>] = [.clip(\.clip, help: "the clip"), action, localizations]

        public mutating func check(_ reader: inout ArgumentReader) {
            preconditions = reader.preconditions
            image = reader.arguments.attachment
        }
    }

    /// A default experience saved: 201 when created, its entity tag, the write's notes.
    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<DefaultExperience>
        public init(_ outcome: WriteOutcome<DefaultExperience>) { self.outcome = outcome }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("d", outcome.value.version))] }
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
        let expected = try input.preconditions.replacePreconditions(
            kind: "d", current: existing?.version, "the default experience of \(clip.rawValue)")
        return Output(
            try session.registry.setDefaultExperience(
                clip: clip, action: action, localizations: input.localizations, image: input.image,
                headerImages: input.headerImages, expectedVersion: expected))
    }

    /// `--image FILE`: read by the command, uploaded first with `--server`.
    static let image = FieldFacts(
        name: "image", place: .command, type: .text, placeholder: "FILE", help: "header image for every locale given")

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/clips/{bundleId}/default-experience", body: .json(optional: false)),
        command: Command(
            ["default", "set"],
            CommandHelp(
                "create or replace a clip's default experience",
                examples: [
                    CommandExample(
                        "clipctl default set ABCDE12345.com.example.bikes.Clip --action VIEW --subtitle 'en-US=Bikes all over town' --image header.png",
                        "Give a clip its default experience, with an English subtitle and a header image")
                ]),
            options: [image], steps: CommandSteps(input: commandInput),
            json: .shape { output in
                ["defaultExperience": output.outcome.value.json, "notes": CatalogJSON.notes(output.outcome.notes)]
            },
            present: { output, _, printer in
                let d = output.outcome.value
                printer.line("default experience of \(d.clip.rawValue): \(d.action.rawValue), \(d.localizations.count) locale(s)")
                printer.notes(output.outcome.notes)
            }))

    /// `default set CLIP --action --subtitle LOCALE=TEXT… --image FILE`: the clip saved first (it may
    /// not exist yet), then the body. On a database a refused input is refused before the clip is
    /// saved, so that it writes nothing; with `--server` the requests go as they always have (the
    /// clip, the image, the default experience), each refused by the server.
    @Sendable static func commandInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        let clip = try ClipFields.parsed { () throws(ValidationFailure) in try AppID(parsed.positionals.first ?? "") }
        let action = try ClipFields.parsed { () throws(ValidationFailure) in
            try Action.parse(
                (parsed.value(Input.action.facts.option) ?? Input.action.facts.defaultValue ?? "").uppercased(),
                field: Input.action.facts.name)
        }
        let subtitle = Input.localizations.facts.option
        var subtitles: [String: String] = [:]
        var repeated: [FieldError] = []
        for spec in parsed.all(subtitle) {
            guard let eq = spec.firstIndex(of: "=") else {
                throw CommandUsageError("--\(subtitle) takes LOCALE=TEXT, such as \"en-US=Rent a bike\"")
            }
            let locale = String(spec[..<eq])
            // The same locale twice is refused, not the last one kept (`DefaultExperience.duplicateLocale`).
            if subtitles[locale] != nil, !repeated.contains(where: { $0.field == "\(Input.localizations.facts.name).\(locale)" }) {
                repeated.append(DefaultExperience.duplicateLocale(locale, sameAs: locale))
            }
            subtitles[locale] = String(spec[spec.index(after: eq)...])
        }
        let bytes = try parsed.value(image.option).map { try line.readFile($0, "--\(image.option)") }
        // The store's checks of this write (`Registry.setDefaultExperience`), before the clip is saved or the
        // image uploaded: a refused command writes nothing, on a database or a server (found by hostile QA:
        // over --server the clip was created before the default was refused).
        var errors = ErrorCollector()
        errors.add(contentsOf: repeated)
        errors.add(contentsOf: DefaultExperience.check(localizations: subtitles).errors)
        if let bytes { _ = errors.collect { () throws(ValidationFailure) in try HeaderImage(bytes: bytes) } }
        if !errors.isEmpty { throw RegistryError.invalid(errors.errors) }
        let saved = try line.perform(
            ClipSave.binding,
            Arguments([(ClipSave.Input.clip.facts.name, clip.bundleID.rawValue)], body: RequestJSON.saveClip(team: clip.team)))
        var input = Input()
        (input.clip, input.action, input.localizations) = (clip.rawValue, action, subtitles)
        if let bytes, let storeImage = line.storeImage {
            // Named by its hash for every locale given.
            let hash = try storeImage(bytes, clip.team.rawValue).sha256
            for locale in subtitles.keys { input.headerImages[locale] = hash }
        } else {
            input.image = bytes
        }
        arguments = input.arguments
        arguments.attachment = input.image
        arguments.commandRead = saved.json
    }
}

/// `DELETE /v1/clips/{bundleId}/default-experience` and `clipctl default remove CLIP`; `If-Match`
/// names the version its `GET` tagged (`d-vN`).
public enum DefaultExperienceRemove: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true
    public typealias Input = DefaultExperienceShow.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.reference, in: session).appID.rawValue
        let current = try session.registry.defaultExperience(clip: clip)
        let expected = try input.preconditions.existingPreconditions(
            kind: "d", current: current.version, "the default experience of \(clip)")
        try session.registry.removeDefaultExperience(clip: clip, expectedVersion: expected)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/clips/{bundleId}/default-experience", body: .none(.ignored)),
        command: Command(
            ["default", "remove"],
            CommandHelp(
                "remove a clip's default experience",
                examples: [CommandExample("clipctl default remove ABCDE12345.com.example.bikes.Clip", "Remove a clip's default experience")]
            ),
            json: .shape { _ in CommandJSON.removed() },
            present: { _, words, printer in printer.line("removed the default experience of \(words.positional(0) ?? "")") }))
}
