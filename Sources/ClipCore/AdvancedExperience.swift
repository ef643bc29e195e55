public import StrictJSON

/// An advanced App Clip experience (docs/apple-formats.md#advanced-experiences), as the registry stores it.
public struct AdvancedExperience: Sendable, Equatable {
    public var id: Int64
    public var url: NormalizedURL
    public var clip: AppID
    public var action: Action
    public var defaultLanguage: Language
    public var isPoweredBy: Bool
    public var businessCategory: BusinessCategory?
    public var localizations: [Language: CardText]
    /// SHA-256 (hex) of the header image, when one was given.
    public var headerImage: String?
    /// A validated `place` object (docs/apple-formats.md#place).
    public var place: JSONValue?
    /// Key → value (docs/sheets.md#labels; `Labels` holds the rules).
    public var labels: [String: String]
    public var status: ExperienceStatus
    /// When it is served (`ExperienceState`, docs/rules.md#experiences-in-time); nil: open on that side.
    public var liveFrom: Instant?
    public var liveUntil: Instant?
    public var version: Int
    public var createdAt: String
    public var updatedAt: String

    public init(
        id: Int64 = 0, url: NormalizedURL, clip: AppID, action: Action = .open, defaultLanguage: Language = .EN,
        isPoweredBy: Bool = false, businessCategory: BusinessCategory? = nil, localizations: [Language: CardText],
        headerImage: String? = nil, place: JSONValue? = nil, labels: [String: String] = [:], status: ExperienceStatus = .active,
        liveFrom: Instant? = nil, liveUntil: Instant? = nil, version: Int = 1,
        createdAt: String = "", updatedAt: String = ""
    ) {
        self.id = id
        self.url = url
        self.clip = clip
        self.action = action
        self.defaultLanguage = defaultLanguage
        self.isPoweredBy = isPoweredBy
        self.businessCategory = businessCategory
        self.localizations = localizations
        self.headerImage = headerImage
        self.place = place
        self.labels = labels
        self.status = status
        self.liveFrom = liveFrom
        self.liveUntil = liveUntil
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The card in the default language (always present: validation guarantees it).
    public var defaultCard: CardText { localizations[defaultLanguage] ?? CardText(title: "", subtitle: "") }

    /// The first language of `preferences` the experience has, else its default language
    /// (docs/rules.md#card-language).
    public func language(for preferences: [Language]) -> Language {
        preferences.first { localizations[$0] != nil } ?? defaultLanguage
    }
}

/// The value of one declared field (`ExperienceField`) in the one form its codecs read and write.
public enum FieldValue: Sendable, Equatable {
    /// An optional field left unset (JSON: member left out; SQL: NULL).
    case none
    /// An enumeration's case by its position in `ExperienceField.cases`; a flag: 0 false, 1 true.
    case code(Int)
    case text(String)
    case json(JSONValue)
}

/// One field of an advanced experience besides its identity (id, URL, clip), its cards and its
/// bookkeeping (version, timestamps), declared once (docs/architecture.md#experience-fields). The
/// declaration drives the JSON forms (`ExperienceJSON`, the resolve answer `Resolution.experienceJSON`),
/// the CSV columns (`Interchange`), the SQL columns and row codec (ClipStore's `ExperienceRow`), the
/// read model's arena (`ExperienceIndex`) and `clipctl`'s option; Apple's names for it are mapped
/// in ClipSync (`SyncPlan+Fields`).
public struct ExperienceField: Sendable {
    public enum Kind: Sendable, Equatable {
        /// One of `cases` (the registry's spellings, `AppleEnumeration.spelling`): a JSON string, SQL text; one byte in the arena (its position).
        case enumeration
        /// true or false: a JSON boolean, SQL 0 or 1; one byte in the arena.
        case flag
        /// A JSON string, SQL text; its bytes in the arena.
        case text
        /// A JSON value; SQL text and arena bytes as `JSONWriter` writes it.
        case json
        /// A moment (`Instant`): read with a time zone, kept in its UTC form (a JSON string, SQL text, the arena's
        /// 20 bytes of `Instant.canonicalBytes`).
        case instant
    }

    /// What `null` given for the field in a JSON input does.
    public enum NullInput: Sendable, Equatable {
        /// Keeps the value (the base's on an update, else the default).
        case keeps
        /// Clears the (optional) field.
        case clears
        /// Refuses the input.
        case refused
    }

    /// `clipctl`'s option for the field (docs/cli.md): an option with a value, or a flag and its negation; help
    /// shows the default beside `help` (ClipApp's `FieldFacts.init(_:)` derives the command's option from it).
    public struct Option: Sendable, Equatable {
        public let name: String
        /// The value's placeholder; nil for a flag.
        public let valueName: String?
        public let help: String
        /// A flag's negation on update (`--not-NAME`), and its help.
        public let negationHelp: String?
    }

    /// The JSON member (API, import/export, change records) and the CSV column.
    public let name: String
    /// The column of `advanced_experience` (Schema.swift's migrations).
    public let column: String
    public let kind: Kind
    /// An enumeration's raw values, in the order of its cases (the arena's byte is a position in it).
    public let cases: [String]
    public let isOptional: Bool
    /// A new experience's value when the input leaves the field out.
    public let defaultValue: FieldValue
    public let onNull: NullInput
    /// The portable form (export) leaves the field out at `defaultValue`.
    public let portableOmitsDefault: Bool
    /// A member of the resolve answer's experience (left out when `.none`).
    public let inAnswer: Bool
    public let option: Option
    let read: @Sendable (AdvancedExperience) -> FieldValue
    let write: @Sendable (inout AdvancedExperience, FieldValue) -> Void
    let parseCase: @Sendable (String, String) throws(ValidationFailure) -> Int
    let check: @Sendable (FieldValue, String) -> [FieldError]

    /// The field's value in `experience`.
    public func value(of experience: AdvancedExperience) -> FieldValue { read(experience) }

    /// Sets the field in `experience` (a value of its kind, as its codecs produce).
    public func set(_ value: FieldValue, in experience: inout AdvancedExperience) { write(&experience, value) }

    /// An enumeration's case from its raw value; the errors name `field` (`AppleEnumeration.parse`).
    public func code(_ text: String, field: String) throws(ValidationFailure) -> FieldValue { .code(try parseCase(text, field)) }

    /// The checks beyond the kind (a header image's digest form, a place's members).
    public func errors(_ value: FieldValue, field: String) -> [FieldError] { check(value, field) }
}

extension ExperienceField {
    public static let action = enumeration(
        "action", column: "action", Action.self, default: .open, onNull: .refused,
        option: Option(name: "action", valueName: "VERB", help: "OPEN, VIEW or PLAY", negationHelp: nil),
        get: \.action, set: { $0.action = $1 })
    /// The default language: its card is the experience's `title` and `subtitle`; the resolve answer
    /// shows the card's language instead (`Resolution.experienceJSON`).
    public static let language = enumeration(
        "language", column: "default_language", Language.self, default: .EN, onNull: .keeps,
        option: Option(
            name: "language", valueName: "LANG",
            help: "default language: one of Apple's 32, as a language tag such as en, fr or fr-FR",
            negationHelp: nil),
        get: \.defaultLanguage, set: { $0.defaultLanguage = $1 })
    public static let category = optionalEnumeration(
        "category", column: "business_category", BusinessCategory.self,
        option: Option(name: "category", valueName: "CATEGORY", help: "business category, such as FOOD_AND_DRINK", negationHelp: nil),
        get: \.businessCategory, set: { $0.businessCategory = $1 })
    public static let poweredBy = ExperienceField(
        name: "poweredBy", column: "is_powered_by", kind: .flag, cases: [], isOptional: false, defaultValue: .code(0), onNull: .keeps,
        portableOmitsDefault: true, inAnswer: true,
        option: Option(
            name: "powered-by", valueName: nil, help: "submitted by a platform serving many businesses",
            negationHelp: "clear isPoweredBy"),
        read: { .code($0.isPoweredBy ? 1 : 0) }, write: { $0.isPoweredBy = $1 == .code(1) }, parseCase: { _, _ in 0 },
        check: { _, _ in [] })
    public static let status = enumeration(
        "status", column: "status", ExperienceStatus.self, default: .active, onNull: .keeps, portableOmitsDefault: true,
        inAnswer: false, option: Option(name: "status", valueName: "STATUS", help: "ACTIVE or DEACTIVATED", negationHelp: nil),
        get: \.status, set: { $0.status = $1 })
    /// The SHA-256 (lower-case hex) of a header image the registry holds.
    public static let headerImage = ExperienceField(
        name: "headerImage", column: "header_image_sha256", kind: .text, cases: [], isOptional: true, defaultValue: .none,
        onNull: .clears, portableOmitsDefault: false, inAnswer: true,
        option: Option(
            name: "image", valueName: "FILE", help: "header image: PNG or JPEG, 3:2 (1800×1200), no transparency", negationHelp: nil),
        read: { $0.headerImage.map(FieldValue.text) ?? .none },
        write: {
            if case .text(let t) = $1 { $0.headerImage = t } else { $0.headerImage = nil }
        },
        parseCase: { _, _ in 0 },
        check: { value, field in
            guard case .text(let h) = value, !(h.utf8.count == 64 && h.utf8.allSatisfy({ isDigit($0) || ($0 >= 0x61 && $0 <= 0x66) }))
            else { return [] }
            return [
                FieldError(field: field, rule: "headerImage.format", message: "must be the lower-case SHA-256 hex of a stored header image")
            ]
        })
    /// docs/apple-formats.md#place, checked by `PlaceValidator`.
    public static let place = ExperienceField(
        name: "place", column: "place", kind: .json, cases: [], isOptional: true, defaultValue: .none, onNull: .clears,
        portableOmitsDefault: false, inAnswer: true,
        option: Option(
            name: "place", valueName: "JSON|@FILE", help: "place object, as App Store Connect's advanced experience place",
            negationHelp: nil),
        read: { $0.place.map(FieldValue.json) ?? .none },
        write: {
            if case .json(let p) = $1 { $0.place = p } else { $0.place = nil }
        },
        parseCase: { _, _ in 0 },
        check: { value, field in
            guard case .json(let p) = value else { return [] }
            return PlaceValidator.validate(p, field: field)
        })

    /// docs/rules.md#experiences-in-time: the first moment the experience is served, and the first it no longer is.
    public static let liveFrom = instant(
        "liveFrom", column: "live_from", option: "live-from", help: "served from this time on, such as '2027-06-01T00:00 Europe/Paris'",
        get: \.liveFrom,
        set: { $0.liveFrom = $1 })
    public static let liveUntil = instant(
        "liveUntil", column: "live_until", option: "live-until",
        help: "no longer served from this time on, such as '2027-09-01T00:00 Europe/Paris'",
        get: \.liveUntil, set: { $0.liveUntil = $1 })

    /// Every field, in the order inputs are checked (so the order of their errors), the SQL columns,
    /// the arena's bytes and the resolve answer's members.
    public static let all: [ExperienceField] = [
        action, language, category, poweredBy, status, headerImage, place, liveFrom, liveUntil,
    ]

    /// The members of the portable form (ExperienceJSON.portable) and the CSV columns, in order:
    /// the identity, every field, and the cards.
    public static let portableMembers: [String] = [
        "url", "clip", action.name, language.name, "title", "subtitle", category.name, poweredBy.name, status.name, "localizations",
        place.name, headerImage.name, liveFrom.name, liveUntil.name,
    ]

    /// Positions in `all` of the fields the read model uses itself: cards by language, lookups by status.
    public static let languagePosition = 1
    public static let statusPosition = 4

    /// A field by its JSON name.
    public static let named: [String: ExperienceField] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The value of an experience's fields, in `all` order.
    public static func values(of experience: AdvancedExperience) -> [FieldValue] { all.map { $0.read(experience) } }

    static func enumeration<E: AppleEnumeration>(
        _ name: String, column: String, _ type: E.Type, default: E, onNull: NullInput, portableOmitsDefault: Bool = false,
        inAnswer: Bool = true, option: Option, get: @escaping @Sendable (AdvancedExperience) -> E,
        set: @escaping @Sendable (inout AdvancedExperience, E) -> Void
    ) -> ExperienceField {
        let cases = Array(E.allCases)
        return ExperienceField(
            name: name, column: column, kind: .enumeration, cases: cases.map(\.spelling), isOptional: false,
            defaultValue: .code(cases.firstIndex(of: `default`)!), onNull: onNull, portableOmitsDefault: portableOmitsDefault,
            inAnswer: inAnswer, option: option, read: { .code(cases.firstIndex(of: get($0))!) },
            write: {
                if case .code(let n) = $1 { set(&$0, cases[n]) }
            },
            parseCase: { (text, field) throws(ValidationFailure) in cases.firstIndex(of: try E.parse(text, field: field))! },
            check: { _, _ in [] })
    }

    static func instant(
        _ name: String, column: String, option: String, help: String, get: @escaping @Sendable (AdvancedExperience) -> Instant?,
        set: @escaping @Sendable (inout AdvancedExperience, Instant?) -> Void
    ) -> ExperienceField {
        ExperienceField(
            name: name, column: column, kind: .instant, cases: [], isOptional: true, defaultValue: .none, onNull: .clears,
            portableOmitsDefault: false, inAnswer: false,
            option: Option(name: option, valueName: "TIME", help: help, negationHelp: nil),
            read: { get($0).map { FieldValue.text($0.description) } ?? .none },
            write: {
                if case .text(let t) = $1 { set(&$0, Instant(canonical: t.utf8)) } else { set(&$0, nil) }
            },
            parseCase: { _, _ in 0 }, check: { _, _ in [] })
    }

    static func optionalEnumeration<E: AppleEnumeration>(
        _ name: String, column: String, _ type: E.Type, option: Option, get: @escaping @Sendable (AdvancedExperience) -> E?,
        set: @escaping @Sendable (inout AdvancedExperience, E?) -> Void
    ) -> ExperienceField {
        let cases = Array(E.allCases)
        return ExperienceField(
            name: name, column: column, kind: .enumeration, cases: cases.map(\.spelling), isOptional: true, defaultValue: .none,
            onNull: .clears, portableOmitsDefault: false, inAnswer: true, option: option,
            read: { get($0).map { .code(cases.firstIndex(of: $0)!) } ?? .none },
            write: {
                if case .code(let n) = $1 { set(&$0, cases[n]) } else { set(&$0, nil) }
            },
            parseCase: { (text, field) throws(ValidationFailure) in cases.firstIndex(of: try E.parse(text, field: field))! },
            check: { _, _ in [] })
    }
}

extension FieldValue {
    /// The value as JSON (an enumeration's raw value from `field`); nil for `.none`.
    public func json(_ field: ExperienceField) -> JSONValue? {
        switch self {
        case .none: nil
        case .code(let n): field.kind == .flag ? .bool(n == 1) : .string(field.cases[n])
        case .text(let t): .string(t)
        case .json(let j): j
        }
    }
}
