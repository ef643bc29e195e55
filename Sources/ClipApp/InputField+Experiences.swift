public import ClipCore
import ClipStore
import StrictJSON

// The fields the experience operations share (`register`, `list`, `show`, `update`, `remove`): each argument's name
// written here once, the declared fields' facts derived from their `ExperienceField` (docs/application-layer.md#input-fields).

extension FieldFacts {
    /// A field of an experience from its declaration (`ExperienceField`): the JSON member, the command's option, its
    /// value's placeholder and help, an enumeration's spellings as its choices and its default (`withDefault`: what a
    /// new experience gets; a filter has none). `clearable`: `--no-NAME` sends `null`, which clears it; `negatable`: a
    /// flag's `--not-NAME` sends `false` (`ExperienceField.Option.negationHelp`).
    public init(
        _ field: ExperienceField, in place: FieldPlace = .body, type: FieldType? = nil, withDefault: Bool = true, clearable: Bool = false,
        negatable: Bool = false, upperCased: Bool = false
    ) {
        let option = field.option
        var defaultValue: String?
        if withDefault, field.kind == .enumeration, case .code(let n) = field.defaultValue { defaultValue = field.cases[n] }
        var negation: FieldNegation?
        if clearable { negation = FieldNegation("no-\(option.name)", help: "clear the \(option.name)") }
        if negatable, let help = option.negationHelp { negation = FieldNegation("not-\(option.name)", help: help) }
        let derived: FieldType
        switch field.kind {
        case .enumeration: derived = .choice(field.cases)
        case .flag: derived = .flag
        case .text: derived = .text
        case .json: derived = .json
        case .instant: derived = .instant
        }
        self.init(
            name: field.name, place: place, type: type ?? derived, placeholder: option.valueName ?? "",
            help: option.help, defaultValue: defaultValue, option: option.name, negation: negation, upperCased: upperCased)
    }

    /// An experience's URL in a body (`register URL`, `update --url URL`).
    static func experienceURL(_ placeholder: String = "URL", help: String, required: Bool = false, positional: Bool = false) -> FieldFacts {
        FieldFacts(name: "url", place: .body, type: .text, placeholder: placeholder, help: help, required: required, positional: positional)
    }

    /// The clip an experience is for, by its App ID, in a body (`--clip`).
    static func experienceClip(_ placeholder: String, help: String, required: Bool = false) -> FieldFacts {
        FieldFacts(name: "clip", place: .body, type: .text, placeholder: placeholder, help: help, required: required)
    }

    /// The default language's card (`title`, `subtitle`), at most as long as a card takes (`TextLimits`).
    static let cardTitle = FieldFacts(
        name: "title", place: .body, type: .text, placeholder: "TEXT", help: "card title in the default language (≤ 30 characters)",
        maxLength: TextLimits.titleMax)
    static let cardSubtitle = FieldFacts(
        name: "subtitle", place: .body, type: .text, placeholder: "TEXT", help: "card subtitle in the default language (≤ 56 characters)",
        maxLength: TextLimits.subtitleMax)

    /// `--localization LANG=TITLE|SUBTITLE` and `--remove-localization LANG`: a merge patch of the body's
    /// `localizations` (`ExperienceCommands.localizations`), which the command builds from both.
    static let cards = FieldFacts(
        name: "localizations", place: .body, type: .text, placeholder: "LANG=TITLE|SUBTITLE",
        help: "card text in another language (update: only the languages given change)", repeatable: true, option: "localization")
    /// Labels (docs/sheets.md#labels), a merge patch like the cards: `--label` sets one, `--unlabel` removes one.
    static let labels = FieldFacts(
        name: "labels", place: .body, type: .text, placeholder: "KEY=VALUE",
        help: "set a label, such as city=paris (update: only the keys given change)", repeatable: true, option: "label")
    static let removedLabels = FieldFacts(
        name: "labels", place: .body, type: .text, placeholder: "KEY", help: "remove a label", repeatable: true, option: "unlabel")
    static let removedCards = FieldFacts(
        name: "localizations", place: .body, type: .text, placeholder: "LANG", help: "remove the card of a language (not the default one)",
        repeatable: true, option: "remove-localization")

    /// Where a list's page begins: the `nextCursor` of the page before, which the route reads (docs/http-api.md#lists).
    static let cursor = FieldFacts(
        name: "cursor", place: .query, type: .text, placeholder: "CURSOR", help: "the page after the one whose nextCursor this is",
        routeOnly: true)

    /// A list's page size as the route reads it (`PageLimit.read`), `standard` when not given; a command that reads
    /// every page asks for the largest (`Binding.everyPage`).
    static func routeLimit(of what: String, standard: Int = 100) -> FieldFacts {
        let range = PageLimit.range
        return FieldFacts(
            name: "limit", place: .query, type: .integer(Int64(range.lowerBound)...Int64(range.upperBound)), placeholder: "N",
            help: "at most this many \(what), \(range.lowerBound) to \(range.upperBound)", defaultValue: String(standard), routeOnly: true)
    }

    /// `--image FILE`: the header image, read by the command and sent as the write's bytes, or uploaded first to a
    /// server and named by its hash (`ExperienceCommands.attach`).
    static let headerImageFile = FieldFacts(ExperienceField.headerImage, type: .file)
}

extension InputField {
    /// `at=TIME` (`--at TIME`): the registry's answer at that moment, scheduled windows applied (docs/rules.md#experiences-in-time);
    /// nil: now. Read with a time zone or in UTC (`Instant.parse`); written back in UTC.
    public static func moment(_ key: any WritableKeyPath<Input, Instant?> & Sendable) -> InputField {
        let facts = FieldFacts(
            name: "at", place: .query, type: .instant, placeholder: "TIME",
            help: "answer as at this time, such as '2027-06-01T00:00 Europe/Paris' (default: now)")
        return parsed(facts, key, parse: instantRule, format: \.description)
    }

    /// A moment in the body (`--OPTION TIME`), read as `moment` reads one.
    public static func instant(
        _ name: String, _ key: any WritableKeyPath<Input, Instant?> & Sendable, option: String? = nil, help: String, required: Bool = false
    ) -> InputField {
        let facts = FieldFacts(
            name: name, place: .body, type: .instant, placeholder: "TIME", help: help, required: required, option: option)
        return parsed(facts, key, parse: instantRule, format: \.description)
    }

    static var instantRule: @Sendable (String, String) throws(ValidationFailure) -> Instant {
        { (text, field) throws(ValidationFailure) in try Instant.parse(text, field: field, zone: SystemTimeZones.lookup) }
    }

    /// The experience a route's path names by id (`{id}`, `Experiences.visible`); a command given a registered URL
    /// looks it up first (`FieldType.experienceID`).
    public static func experienceID(
        _ key: any WritableKeyPath<Input, String> & Sendable, help: String = "experience id or registered URL", required: Bool = true
    ) -> InputField {
        let facts = FieldFacts(name: "id", place: .path, type: .experienceID, placeholder: "ID|URL", help: help, required: required)
        return given(facts, key)
    }

    /// A member of an experience's body, which `ExperienceJSON.decode` reads with the body whole (`ArgumentReader.document`), in
    /// the table's order and with every error: the field gives its facts, and writes its member back from the document.
    static func member(_ facts: FieldFacts, of document: any WritableKeyPath<Input, JSONValue> & Sendable) -> InputField {
        InputField(
            facts, read: { _, _ in },
            write: { input, arguments in input[keyPath: document][facts.name].map { arguments.setMember(facts.name, $0) } })
    }

    /// The header image a command read from its file (`Arguments.attachment`), written in the write's transaction.
    static func headerImage(_ key: any WritableKeyPath<Input, [UInt8]?> & Sendable) -> InputField {
        InputField(
            .headerImageFile, read: { input, reader in input[keyPath: key] = reader.arguments.attachment },
            write: { input, arguments in arguments.attachment = input[keyPath: key] })
    }
}
