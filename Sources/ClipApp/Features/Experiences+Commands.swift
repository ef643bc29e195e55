import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// The experience commands (`clipctl register|list|show|update|deactivate|activate|remove`): their
/// grammar, the JSON body their options build (the same body the routes read), and their text.
enum ExperienceCommands {
    // MARK: Fields: each member's option from the experience's declared fields (`FieldFacts.init(_:)`), in help order.

    /// The fields both `register` and `update` set, as members of the body `document` and the image's bytes; `update`
    /// clears some (`--no-category`) and removes cards (`--remove-localization`).
    static func fields<Input>(
        _ document: any WritableKeyPath<Input, JSONValue> & Sendable, image: any WritableKeyPath<Input, [UInt8]?> & Sendable,
        update: Bool = false
    ) -> [InputField<Input>] {
        let members: [FieldFacts] = [
            .cardTitle, .cardSubtitle, FieldFacts(ExperienceField.action), FieldFacts(ExperienceField.language),
            FieldFacts(ExperienceField.category, clearable: update), .cards, FieldFacts(ExperienceField.place, clearable: update),
            FieldFacts(ExperienceField.liveFrom, clearable: update), FieldFacts(ExperienceField.liveUntil, clearable: update),
        ]
        return members.map { .member($0, of: document) } + [.headerImage(image)]
            + (update ? [.member(.removedCards, of: document)] : []) + [.member(.labels, of: document)]
            + (update ? [.member(.removedLabels, of: document)] : [])
    }

    /// The body the command line's positionals and options give, as the input's fields declare its members; the cards,
    /// which two options give together, and the image file, which the command reads itself (`attach`), aside.
    static func body<Input: DeclaredInput>(_ input: Input.Type, _ line: CommandLine) throws -> Arguments {
        var arguments = Arguments()
        let facts = Input.fields.map(\.facts)
        for (field, word) in zip(facts.filter(\.positional), line.parsed.positionals) where field.place == .body {
            try arguments.add(field, word, line)
        }
        let patches = [FieldFacts.cards.name, FieldFacts.labels.name]
        for field in facts where field.place == .body && !field.positional && field.type != .file && !patches.contains(field.name) {
            try arguments.add(option: field, of: line, declared: true)
        }
        if let cards = try localizations(line.parsed) { arguments.setMember(FieldFacts.cards.name, cards) }
        if let labels = try labels(line.parsed) { arguments.setMember(FieldFacts.labels.name, labels) }
        return arguments
    }

    /// `--label KEY=VALUE` and `--unlabel KEY` as a merge patch (`Labels.merge`): the keys named change, the others stay.
    static func labels(_ parsed: CommandWords) throws -> JSONValue? {
        let given = parsed.all(FieldFacts.labels.option), removed = parsed.all(FieldFacts.removedLabels.option)
        guard !given.isEmpty || !removed.isEmpty else { return nil }
        var labels: [(key: String, value: JSONValue)] = removed.map { (key: $0, value: .null) }
        for term in given {
            guard let eq = term.firstIndex(of: "="), eq != term.startIndex else {
                throw CommandUsageError("--\(FieldFacts.labels.option) takes \(FieldFacts.labels.placeholder), such as city=paris")
            }
            labels.append((key: String(term[..<eq]), value: .string(String(term[term.index(after: eq)...]))))
        }
        return .object(labels)
    }

    /// `--localization` and `--remove-localization` as a merge patch (`ExperienceJSON.decode`): the
    /// languages named change, the others stay.
    static func localizations(_ parsed: CommandWords) throws -> JSONValue? {
        let given = parsed.all(FieldFacts.cards.option), removed = parsed.all(FieldFacts.removedCards.option)
        guard !given.isEmpty || !removed.isEmpty else { return nil }
        var cards: [(key: String, value: JSONValue)] = removed.map { (key: $0, value: .null) }
        for spec in given {
            guard let eq = spec.firstIndex(of: "="), let bar = spec[eq...].firstIndex(of: "|") else {
                throw CommandUsageError(
                    "--\(FieldFacts.cards.option) takes \(FieldFacts.cards.placeholder), such as \"fr=Louer un vélo|Dès maintenant\"")
            }
            let card: JSONValue = .object([
                "title": .string(String(spec[spec.index(after: eq)..<bar])), "subtitle": .string(String(spec[spec.index(after: bar)...])),
            ])
            cards.append((key: String(spec[..<eq]), value: card))
        }
        // Any spelling of a language names it (docs/rules.md#languages): `FR` and `fr-FR` are one.
        let named = cards.map { Language(tag: $0.key)?.tag ?? $0.key }
        if let twice = named.first(where: { key in named.filter { $0 == key }.count > 1 }) {
            throw CommandUsageError(
                "\(twice) is named twice by --\(FieldFacts.cards.option) and --\(FieldFacts.removedCards.option); name each language once")
        }
        return .object(cards)
    }

    /// `--image FILE`'s bytes (a regular file, or `-` for standard input).
    static func image(_ line: CommandLine) throws -> [UInt8]? {
        let option = FieldFacts.headerImageFile.option
        return try line.parsed.value(option).map { try line.readFile($0, "--\(option)") }
    }

    /// The image travels as it always has: with `--server`, uploaded first for `team` and named by
    /// hash in the body (the upload's warnings kept for the output); on a database, with the write
    /// itself, in its transaction.
    /// `checkedAgainst`: the experience the write changes (`.some(nil)`: a new one), for the write's own
    /// checks before an upload; nil: not checked here (the write checks itself).
    static func attach(
        _ image: [UInt8]?, _ line: CommandLine, team: () throws -> String?, to arguments: inout Arguments,
        read: inout [(key: String, value: JSONValue)], checkedAgainst: AdvancedExperience?? = nil
    ) throws {
        guard let image else { return }
        guard let storeImage = line.storeImage else {
            arguments.attachment = image
            return
        }
        // The write's own checks before the image is uploaded: a refused command writes nothing on the
        // server either (found by hostile QA: the upload's image row stayed behind an invalid register).
        if let base = checkedAgainst {
            do { _ = try ExperienceJSON.decode(arguments.body ?? .object([]), base: base, zones: SystemTimeZones.lookup) } catch {
                throw RegistryError.invalid(error.errors)
            }
        }
        let stored = try storeImage(image, try team())
        arguments.setMember(ExperienceField.headerImage.name, .string(stored.sha256))
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
            let answer = try line.perform(ExperienceShow.binding, Arguments([(ExperienceShow.Input.id.facts.name, String(id))]))
            return try CatalogJSON.experience(json: answer.json)
        case .url(let named): url = named
        }
        let answer = try line.perform(ExperienceList.binding, Arguments([(ExperienceList.Input.host.facts.name, url.host)]))
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

    // MARK: Command inputs

    @Sendable static func registerInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        arguments = try body(ExperienceCreate.Input.self, line)
        let clip = arguments.body?[ExperienceCreate.Input.clip.name]?.stringValue ?? ""
        var read: [(key: String, value: JSONValue)] = []
        // The clip's App ID names the team the image is for; a bad one is refused by the write.
        try attach(
            try image(line), line, team: { clip.split(separator: ".", maxSplits: 1).first.map(String.init) }, to: &arguments, read: &read,
            checkedAgainst: .some(nil))
        if !read.isEmpty { arguments.commandRead = .object(read) }
    }

    /// `--yes`: a bulk change made, not only said.
    static let confirmation = FieldFacts.flag("yes", help: "with --where: make the change (without it, only what would change is said)")

    /// `update --where`'s options, read by the command (`bulkInput`), and `--yes`.
    static let bulkOptions: [FieldFacts] = [
        ExperienceBulkUpdate.Input.selector, ExperienceBulkUpdate.Input.expect, ExperienceBulkUpdate.Input.dryRun,
        confirmation,
    ].map {
        FieldFacts(
            name: $0.name, place: .command, type: $0.type, placeholder: $0.placeholder, help: $0.help, option: $0.option)
    }

    /// `update`, `activate` and `deactivate` name one experience or a selector, not both.
    static func checkTarget(_ command: String) -> @Sendable (CommandWords) throws -> Void {
        { words in
            let selector = words.value(ExperienceBulkUpdate.Input.selector.option) != nil
            switch (words.positional(0) != nil, selector) {
            case (true, true): throw CommandUsageError("\(command) takes ID|URL or --where SELECTOR, not both")
            case (false, false): throw CommandUsageError("\(command) takes ID|URL, or --where SELECTOR for many at once")
            case (true, false):
                for option in bulkOptions.map(\.option) where words.value(option) != nil || words.flag(option) {
                    throw CommandUsageError("--\(option) goes with --where")
                }
            case (false, true): break
            }
        }
    }

    /// `update --where`: the same body, the selector and its guards as the route's query; the image with the write
    /// on a database. Without `--yes` (or with `--dry-run`), a dry run.
    static func bulkInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        // Every option of `update` the bulk route does not take is refused, not dropped.
        let taken = Set(ExperienceBulkUpdate.Input.fields.map(\.facts.option) + bulkOptions.map(\.option))
        for field in ExperienceUpdate.Input.fields.map(\.facts) where !field.positional && !taken.contains(field.option) {
            if line.parsed.value(field.option) != nil || line.parsed.flag(field.option) {
                throw CommandUsageError("--\(field.option) cannot be given to many experiences at once: update one by ID|URL")
            }
        }
        arguments = try body(ExperienceBulkUpdate.Input.self, line)
        if arguments.body == nil { arguments.body = .object([]) }
        if let image = try image(line) {
            guard line.storeImage == nil else {
                throw CommandUsageError(
                    "--image with --where is for a database; with --server, upload it first (POST /v1/images) and give its hash as headerImage"
                )
            }
            arguments.attachment = image
        }
        let words = line.parsed
        arguments.append(ExperienceBulkUpdate.Input.selector.name, words.value(ExperienceBulkUpdate.Input.selector.option))
        arguments.append(ExperienceBulkUpdate.Input.expect.name, words.value(ExperienceBulkUpdate.Input.expect.option))
        if words.flag(ExperienceBulkUpdate.Input.dryRun.option) || !words.flag(confirmation.option) {
            arguments.append(ExperienceBulkUpdate.Input.dryRun.name, "true")
        }
    }

    @Sendable static func updateInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        if line.parsed.value(ExperienceBulkUpdate.Input.selector.option) != nil { return try bulkInput(line, &arguments) }
        // A value and its clearing in one command contradict each other (found by hostile QA: locally the
        // clearing was ignored, remotely the body named the field twice): `Arguments.add(option:of:declared:)`.
        arguments = try body(ExperienceUpdate.Input.self, line)
        let image = try image(line)
        guard arguments.body != nil || image != nil else {
            throw CommandUsageError("nothing to update: give at least one field option (see clipctl update --help)")
        }
        let reference = line.parsed.positional(0) ?? ""
        // The version before, to say when the update changed nothing (such an update makes no
        // version); an id that names nothing is told by the update itself.
        let before = ExperienceReference.id(reference) != nil ? try? read(reference, line) : try read(reference, line)
        let id = try before.map { String($0.id) } ?? self.id(reference, line)
        var read: [(key: String, value: JSONValue)] = before.map { [(key: "before", value: ExperienceJSON.full($0))] } ?? []
        if arguments.body == nil { arguments.body = .object([]) }
        try attach(
            image, line, team: { try (before ?? self.read(id, line)).clip.team.rawValue }, to: &arguments, read: &read,
            checkedAgainst: before.map { .some($0) })
        arguments.append(ExperienceUpdate.Input.id.facts.name, id)
        if !read.isEmpty { arguments.commandRead = .object(read) }
    }

    /// The experience is read first; the removal names its version (`If-Match`), so that what is
    /// printed is what was removed (412 when it changed meanwhile).
    @Sendable static func removeInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let e = try read(line.parsed.positional(0) ?? "", line)
        arguments.append(ExperienceRemove.Input.id.facts.name, String(e.id))
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
        for (e, state) in zip(experiences, output.states) {
            let id = String(e.id)
            // An active experience outside its window shows its state instead (docs/rules.md#experiences-in-time).
            let shown = state == .scheduled || state == .ended ? state!.rawValue.uppercased() : e.status.rawValue
            let status = shown + String(repeating: " ", count: max(0, 11 - shown.count))
            let padding = String(repeating: " ", count: idWidth - id.count)
            printer.line("\(id)\(padding)  \(status)  \(e.url.canonical)  \(e.clip.rawValue)  \"\(e.defaultCard.title)\"")
        }
    }

    static func print(_ e: AdvancedExperience, state: ExperienceState? = nil, _ printer: Printer) {
        printer.line("experience \(e.id) (version \(e.version))")
        printer.line("  url:       \(e.url.canonical)")
        printer.line("  clip:      \(e.clip.rawValue)")
        printer.line("  status:    \(e.status.rawValue)")
        if e.liveFrom != nil || e.liveUntil != nil {
            let window = [e.liveFrom.map { "from \($0)" }, e.liveUntil.map { "until \($0)" }].compactMap { $0 }.joined(separator: " ")
            printer.line("  live:      \(window)\(state.map { " (\($0.rawValue))" } ?? "")")
        }
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
        if !e.labels.isEmpty {
            printer.line("  labels:    " + e.labels.keys.sorted().map { Shell.quote("\($0)=\(e.labels[$0]!)") }.joined(separator: " "))
        }
        printer.line("  created:   \(e.createdAt)")
        printer.line("  updated:   \(e.updatedAt)")
    }
}
