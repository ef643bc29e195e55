import ArgParse
import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// The experience commands (`clipctl register|list|show|update|deactivate|activate|remove`): their
/// grammar, the JSON body their options build (the same body the routes read), and their text.
enum ExperienceCommands {
    // MARK: Grammar (help order: register, list, show, update, deactivate, activate, remove)

    static let register = CommandSpec(
        "register", summary: "register an advanced experience for a URL",
        discussion: "Creates the team, app, clip and domain association the URL and clip imply, and says so.",
        positionals: [PositionalSpec("URL", help: "the invocation URL (https)")],
        options: [.option("clip", value: "TEAMID.BUNDLE", help: "the App Clip's App ID, such as ABCDE12345.com.example.app.Clip")]
            + fieldOptions + [.flag("powered-by", help: "submitted by a platform serving many businesses")],
        examples: [
            Example(
                "clipctl register https://bikesrental.example/rent --clip ABCDE12345.com.example.bikes.Clip --title 'Rent a bike' --subtitle 'Unlock one in seconds'",
                "Register a URL for a clip; its team, app and domain association are created as needed"),
            Example(
                "clipctl register https://bikesrental.example/rent/paris --clip ABCDE12345.com.example.bikes.Clip --title 'Rent a bike' --subtitle 'Paris, all day' --localization 'fr=Louer un vélo|Paris, toute la journée'",
                "Register one with a French card beside the default English one"),
        ])

    static let list = CommandSpec(
        "list", summary: "list experiences, ordered by URL",
        options: [
            .option("clip", value: "CLIP", help: "only this clip's"), .option("host", value: "HOST", help: "only on this host"),
            .option("status", value: "STATUS", help: "ACTIVE or DEACTIVATED"),
        ],
        examples: [
            Example("clipctl list --host bikesrental.example --status ACTIVE", "List the active experiences on one host"),
            Example(
                "clipctl --server http://127.0.0.1:8080 list --json",
                "List through a running server's API as JSON (the token from CLIP_TOKEN)"),
        ])

    static let show = CommandSpec(
        "show", summary: "show one experience", positionals: [PositionalSpec("ID|URL", help: "experience id or registered URL")],
        examples: [
            Example("clipctl show https://bikesrental.example/rent", "Show an experience by its registered URL (or by its id)")
        ])

    static let update = CommandSpec(
        "update", summary: "change fields of an experience",
        positionals: [PositionalSpec("ID|URL", help: "experience id or registered URL")],
        options: [.option("url", value: "URL", help: "new URL"), .option("clip", value: "CLIP", help: "move to another clip")]
            + fieldOptions + updateOptions,
        examples: [
            Example(
                "clipctl update 1 --title 'Rent an e-bike' --localization 'fr=Louer un vélo électrique|En quelques secondes'",
                "Change the title, and the French card only")
        ])

    static let deactivate = CommandSpec(
        "deactivate", summary: "stop an experience from matching",
        positionals: [PositionalSpec("ID|URL", help: "experience id or URL")],
        examples: [
            Example("clipctl deactivate https://bikesrental.example/rent", "Stop an experience from matching without removing it")
        ])

    static let activate = CommandSpec(
        "activate", summary: "let a deactivated experience match again",
        positionals: [PositionalSpec("ID|URL", help: "experience id or URL")],
        examples: [Example("clipctl activate 1", "Let experience 1 match again")])

    static let remove = CommandSpec(
        "remove", summary: "remove an experience (soft delete; its URL becomes free)",
        positionals: [PositionalSpec("ID|URL", help: "experience id or URL")],
        examples: [Example("clipctl remove 1", "Remove experience 1; its URL can be registered again")])

    // MARK: Options: each field's option and the body member it sets, in one place.

    /// The options of the fields both `register` and `update` set.
    static let fieldOptions: [OptionSpec] = [
        .option("title", value: "TEXT", help: "card title in the default language (≤ 30 characters)"),
        .option("subtitle", value: "TEXT", help: "card subtitle in the default language (≤ 56 characters)"),
        .option("action", value: "VERB", help: "OPEN, VIEW or PLAY (default OPEN)"),
        .option("language", value: "LANG", help: ExperienceField.language.option.help),
        .option("category", value: "CATEGORY", help: "business category, such as FOOD_AND_DRINK"),
        .option(
            "localization", value: "LANG=TITLE|SUBTITLE", help: "card text in another language (update: only the languages given change)",
            repeatable: true),
        .option("place", value: "JSON|@FILE", help: "place object, as App Store Connect's advanced experience place"),
        .option("image", value: "FILE", help: "header image: PNG or JPEG, 3:2 (1800×1200), no transparency"),
    ]

    /// The text options and the body members they set, as `ExperienceJSON.decode` reads them.
    static let textMembers = [
        ("title", "title"), ("subtitle", "subtitle"), ("action", "action"), ("language", "language"), ("category", "category"),
    ]

    /// The options only `update` has: what it changes or clears beyond the fields.
    static let updateOptions: [OptionSpec] = [
        .option("remove-localization", value: "LANG", help: "remove the card of a language (not the default one)", repeatable: true),
        .flag("powered-by", help: "set isPoweredBy"), .flag("not-powered-by", help: "clear isPoweredBy"),
        .flag("no-category", help: "clear the category"), .flag("no-place", help: "clear the place"),
    ]

    /// The body members of the field options given.
    static func fieldMembers(_ line: CommandLine) throws -> [(key: String, value: JSONValue)] {
        let parsed = line.parsed
        var members: [(key: String, value: JSONValue)] = []
        for (option, key) in textMembers {
            if let v = parsed.value(option) { members.append((key: key, value: .string(v))) }
        }
        if let cards = try localizations(parsed) { members.append((key: "localizations", value: cards)) }
        if let place = try line.json("place") { members.append((key: "place", value: place)) }
        return members
    }

    /// `--localization` and `--remove-localization` as a merge patch (`ExperienceJSON.decode`): the
    /// languages named change, the others stay.
    static func localizations(_ parsed: CommandWords) throws -> JSONValue? {
        let given = parsed.all("localization"), removed = parsed.all("remove-localization")
        guard !given.isEmpty || !removed.isEmpty else { return nil }
        var cards: [(key: String, value: JSONValue)] = removed.map { (key: $0, value: .null) }
        for spec in given {
            guard let eq = spec.firstIndex(of: "="), let bar = spec[eq...].firstIndex(of: "|") else {
                throw CommandUsageError("--localization takes LANG=TITLE|SUBTITLE, such as \"fr=Louer un vélo|Dès maintenant\"")
            }
            let card: JSONValue = .object([
                "title": .string(String(spec[spec.index(after: eq)..<bar])), "subtitle": .string(String(spec[spec.index(after: bar)...])),
            ])
            cards.append((key: String(spec[..<eq]), value: card))
        }
        // Any spelling of a language names it (docs/rules.md#languages): `FR` and `fr-FR` are one.
        let named = cards.map { Language(tag: $0.key)?.tag ?? $0.key }
        if let twice = named.first(where: { key in named.filter { $0 == key }.count > 1 }) {
            throw CommandUsageError("\(twice) is named twice by --localization and --remove-localization; name each language once")
        }
        return .object(cards)
    }

    /// `--image FILE`'s bytes (a regular file, or `-` for standard input).
    static func image(_ line: CommandLine) throws -> [UInt8]? {
        try line.parsed.value("image").map { try line.readFile($0, "--image") }
    }

    /// The image travels as it always has: with `--server`, uploaded first for `team` and named by
    /// hash in the body (the upload's warnings kept for the output); on a database, with the write
    /// itself, in its transaction.
    /// `checkedAgainst`: the experience the write changes (`.some(nil)`: a new one), for the write's own
    /// checks before an upload; nil: not checked here (the write checks itself).
    static func attach(
        _ image: [UInt8]?, _ line: CommandLine, team: () throws -> String?, to arguments: inout Arguments,
        members: inout [(key: String, value: JSONValue)], read: inout [(key: String, value: JSONValue)],
        checkedAgainst: AdvancedExperience?? = nil
    ) throws {
        guard let image else { return }
        guard let storeImage = line.storeImage else {
            arguments.attachment = image
            return
        }
        // The write's own checks before the image is uploaded: a refused command writes nothing on the
        // server either (found by hostile QA: the upload's image row stayed behind an invalid register).
        if let base = checkedAgainst {
            do { _ = try ExperienceJSON.decode(.object(members), base: base) } catch { throw RegistryError.invalid(error.errors) }
        }
        let stored = try storeImage(image, try team())
        members.removeAll { $0.key == "headerImage" }
        members.append((key: "headerImage", value: .string(stored.sha256)))
        read.append((key: "imageWarnings", value: .array(stored.warnings.map(ProblemJSON.fieldError))))
    }

    // MARK: Experience references: an id, or a registered URL in any spelling.

    /// The experience `reference` names, read where the command runs: by id, or among its host's
    /// experiences by URL.
    static func read(_ reference: String, _ line: CommandLine) throws -> AdvancedExperience {
        let url: NormalizedURL
        let parsed: ExperienceReference
        do { parsed = try ExperienceReference(reference) } catch { throw RegistryError(error) }
        switch parsed {
        case .id(let id):
            let answer = try line.perform(ExperienceShow.binding, Arguments([("id", String(id))]))
            return try CatalogJSON.experience(json: answer.json)
        case .url(let named): url = named
        }
        let answer = try line.perform(ExperienceList.binding, Arguments([("host", url.host)]))
        let listed = try ExperienceList.Output(json: answer.json).experiences
        guard let match = listed.first(where: { $0.url.canonical == url.canonical }) else {
            throw RegistryError.notFound("experience with URL \(url.canonical)")
        }
        return match
    }

    /// The id `reference` names: an id as it is, a URL looked up.
    static func id(_ reference: String, _ line: CommandLine) throws -> String {
        if let id = ExperienceReference.id(reference) { return String(id) }
        return String(try read(reference, line).id)
    }

    /// The arguments of a command that names one experience (`show`, `activate`, `deactivate`).
    @Sendable static func referenceInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        arguments.append("id", try id(line.parsed.positionals.first ?? "", line))
    }

    // MARK: Command inputs

    @Sendable static func listInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        arguments.append("clip", line.parsed.value("clip"))
        arguments.append("host", line.parsed.value("host"))
        arguments.append("status", line.parsed.value("status")?.uppercased())
    }

    @Sendable static func registerInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        let clip = try line.required("clip")
        var members: [(key: String, value: JSONValue)] = [
            (key: "url", value: .string(parsed.positionals.first ?? "")), (key: "clip", value: .string(clip)),
        ]
        members += try fieldMembers(line)
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        var read: [(key: String, value: JSONValue)] = []
        // The clip's App ID names the team the image is for; a bad one is refused by the write.
        try attach(
            try image(line), line, team: { clip.split(separator: ".", maxSplits: 1).first.map(String.init) }, to: &arguments,
            members: &members, read: &read, checkedAgainst: .some(nil))
        arguments.body = .object(members)
        if !read.isEmpty { arguments.commandRead = .object(read) }
    }

    @Sendable static func updateInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        var members = try fieldMembers(line)
        if let url = parsed.value("url") { members.append((key: "url", value: .string(url))) }
        if let clip = parsed.value("clip") { members.append((key: "clip", value: .string(clip))) }
        // A value and its clearing in one command contradict each other (found by hostile QA: locally the
        // clearing was ignored, remotely the body named the field twice).
        for (set, clear) in [("powered-by", "not-powered-by"), ("category", "no-category"), ("place", "no-place")]
        where (parsed.flag(set) || parsed.value(set) != nil) && parsed.flag(clear) {
            throw CommandUsageError("--\(set) and --\(clear) contradict each other")
        }
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        if parsed.flag("not-powered-by") { members.append((key: "poweredBy", value: false)) }
        if parsed.flag("no-category") { members.append((key: "category", value: .null)) }
        if parsed.flag("no-place") { members.append((key: "place", value: .null)) }
        let image = try image(line)
        guard !members.isEmpty || image != nil else {
            throw CommandUsageError("nothing to update: give at least one field option (see clipctl update --help)")
        }
        let reference = parsed.positionals.first ?? ""
        // The version before, to say when the update changed nothing (such an update makes no
        // version); an id that names nothing is told by the update itself.
        let before = ExperienceReference.id(reference) != nil ? try? read(reference, line) : try read(reference, line)
        let id = try before.map { String($0.id) } ?? self.id(reference, line)
        var read: [(key: String, value: JSONValue)] = before.map { [(key: "before", value: ExperienceJSON.full($0))] } ?? []
        try attach(
            image, line, team: { try (before ?? self.read(id, line)).clip.team.rawValue }, to: &arguments, members: &members, read: &read,
            checkedAgainst: before.map { .some($0) })
        arguments.append("id", id)
        arguments.body = .object(members)
        if !read.isEmpty { arguments.commandRead = .object(read) }
    }

    /// The experience is read first; the removal names its version (`If-Match`), so that what is
    /// printed is what was removed (412 when it changed meanwhile).
    @Sendable static func removeInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let e = try read(line.parsed.positionals.first ?? "", line)
        arguments.append("id", String(e.id))
        arguments.ifMatch = .version("e\(e.id)", e.version)
        arguments.commandRead = ExperienceJSON.full(e)
    }

    // MARK: Presentation

    /// A write as `--json` prints it: the written object with its `notes` in place (always present).
    @Sendable static func writtenJSON(_ output: ExperienceWritten) -> JSONValue {
        guard case .object(var members) = CatalogJSON.written(output.outcome) else { return .null }
        if let i = members.firstIndex(where: { $0.key == "notes" }) {
            members[i].value = CatalogJSON.notes(output.outcome.notes)
        } else {
            members.append((key: "notes", value: CatalogJSON.notes(output.outcome.notes)))
        }
        return .object(members)
    }

    /// A write's warnings on standard error, then its notes.
    static func printExtras(_ outcome: WriteOutcome<AdvancedExperience>, _ printer: Printer) {
        printer.warnings(outcome.warnings)
        printer.notes(outcome.notes)
    }

    @Sendable static func presentRegistered(_ output: ExperienceWritten, _ parsed: CommandWords, _ printer: Printer) {
        let e = output.outcome.value
        printer.line("registered experience \(e.id): \(e.url.canonical) → \(e.clip.rawValue)")
        printExtras(output.outcome, printer)
    }

    @Sendable static func presentUpdated(_ output: ExperienceWritten, _ parsed: CommandWords, _ printer: Printer) {
        let e = output.outcome.value
        if output.versionBefore == e.version, output.outcome.notes.isEmpty {
            printer.line("nothing to change")
        } else {
            printer.line("updated experience \(e.id) (version \(e.version))")
        }
        printExtras(output.outcome, printer)
    }

    @Sendable static func presentList(_ output: ExperienceList.Output, _ parsed: CommandWords, _ printer: Printer) {
        let experiences = output.experiences
        guard !experiences.isEmpty else { return printer.err("no experiences\n") }
        let idWidth = experiences.map { String($0.id).count }.max() ?? 2
        for e in experiences {
            let id = String(e.id)
            let status = e.status.rawValue + String(repeating: " ", count: max(0, 11 - e.status.rawValue.count))
            let padding = String(repeating: " ", count: idWidth - id.count)
            printer.line("\(id)\(padding)  \(status)  \(e.url.canonical)  \(e.clip.rawValue)  \"\(e.defaultCard.title)\"")
        }
    }

    static func print(_ e: AdvancedExperience, _ printer: Printer) {
        printer.line("experience \(e.id) (version \(e.version))")
        printer.line("  url:       \(e.url.canonical)")
        printer.line("  clip:      \(e.clip.rawValue)")
        printer.line("  status:    \(e.status.rawValue)")
        printer.line("  action:    \(e.action.rawValue)")
        printer.line("  language:  \(e.defaultLanguage.tag)")
        printer.line("  card \(e.defaultLanguage.tag):   \(e.defaultCard.title) — \(e.defaultCard.subtitle)")
        for language in e.localizations.keys.filter({ $0 != e.defaultLanguage }).sorted() {
            let card = e.localizations[language]!
            printer.line("  card \(language.tag):   \(card.title) — \(card.subtitle)")
        }
        if let category = e.businessCategory { printer.line("  category:  \(category.rawValue)") }
        if e.isPoweredBy { printer.line("  powered by: yes") }
        if let image = e.headerImage { printer.line("  image:     \(image)") }
        if let place = e.place { printer.line("  place:     \(JSONWriter.string(place))") }
        printer.line("  created:   \(e.createdAt)")
        printer.line("  updated:   \(e.updatedAt)")
    }
}
