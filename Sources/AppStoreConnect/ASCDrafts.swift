public import StrictJSON

// What the client writes: the attributes of a create or an update, in ASC's own vocabulary. A plan
// (registry state vs. ASC state → steps) produces these; the client turns them into the request
// bodies of App Store Connect API 4.4.1 (AppClipAdvancedExperienceCreateRequest, …UpdateRequest).

/// One language of an advanced experience's card, created inline (`included`) with the experience:
/// advanced localizations have no endpoint of their own.
public struct AdvancedExperienceLocalizationDraft: Equatable, Sendable {
    public var language: AppClipLanguage
    public var title: String
    public var subtitle: String

    public init(language: AppClipLanguage, title: String, subtitle: String) {
        self.language = language
        self.title = title
        self.subtitle = subtitle
    }
}

/// A new advanced experience. Apple requires `link`, `isPoweredBy`, `defaultLanguage`, the App Clip,
/// a processed header image and at least one localization, one of them in the default language.
public struct AdvancedExperienceDraft: Equatable, Sendable {
    public var link: String
    public var isPoweredBy: Bool
    public var defaultLanguage: AppClipLanguage
    public var action: AppClipAction?
    public var businessCategory: AppClipBusinessCategory?
    /// `place` in ASC's shape (names, mainAddress, displayPoint, mapAction, …), sent as is.
    public var place: JSONValue?
    public var localizations: [AdvancedExperienceLocalizationDraft]

    public init(
        link: String, isPoweredBy: Bool = false, defaultLanguage: AppClipLanguage, action: AppClipAction? = nil,
        businessCategory: AppClipBusinessCategory? = nil, place: JSONValue? = nil, localizations: [AdvancedExperienceLocalizationDraft]
    ) {
        self.link = link
        self.isPoweredBy = isPoweredBy
        self.defaultLanguage = defaultLanguage
        self.action = action
        self.businessCategory = businessCategory
        self.place = place
        self.localizations = localizations
    }
}

/// Changes to an existing advanced experience: nil leaves a field as it is. `link` cannot change
/// (create-only in ASC: a new URL is remove + create).
public struct AdvancedExperienceChange: Equatable, Sendable {
    public var isPoweredBy: Bool?
    public var defaultLanguage: AppClipLanguage?
    public var action: AppClipAction?
    public var businessCategory: AppClipBusinessCategory?
    public var place: JSONValue?
    public var headerImageID: String?
    /// The whole new set of localizations (sent inline), or nil to keep them.
    public var localizations: [AdvancedExperienceLocalizationDraft]?
    /// Optional attributes to empty (sent as JSON null, which the specification allows for each): `place`,
    /// `businessCategory`, `action`.
    public var cleared: Set<String>

    public init(
        isPoweredBy: Bool? = nil, defaultLanguage: AppClipLanguage? = nil, action: AppClipAction? = nil,
        businessCategory: AppClipBusinessCategory? = nil, place: JSONValue? = nil, headerImageID: String? = nil,
        localizations: [AdvancedExperienceLocalizationDraft]? = nil, cleared: Set<String> = []
    ) {
        self.cleared = cleared
        self.isPoweredBy = isPoweredBy
        self.defaultLanguage = defaultLanguage
        self.action = action
        self.businessCategory = businessCategory
        self.place = place
        self.headerImageID = headerImageID
        self.localizations = localizations
    }
}

/// The request bodies. Inline-created resources get request-local ids in the `${name}` form Apple's
/// own examples use; the relationship linkage repeats them.
enum ASCRequestBody {
    static func localizations(_ drafts: [AdvancedExperienceLocalizationDraft]) -> (linkage: JSONValue, included: JSONValue) {
        let ids = drafts.indices.map { "${localization-\($0 + 1)}" }
        let linkage: JSONValue = ["data": .array(ids.map { ["type": "appClipAdvancedExperienceLocalizations", "id": .string($0)] })]
        let included: JSONValue = .array(
            zip(ids, drafts).map { id, draft in
                [
                    "type": "appClipAdvancedExperienceLocalizations", "id": .string(id),
                    "attributes": [
                        "language": .string(draft.language.rawValue), "title": .string(draft.title), "subtitle": .string(draft.subtitle),
                    ],
                ]
            })
        return (linkage, included)
    }

    static func linkage(_ type: String, _ id: String) -> JSONValue { ["data": ["type": .string(type), "id": .string(id)]] }

    static func createAdvancedExperience(_ draft: AdvancedExperienceDraft, appClipID: String, headerImageID: String) -> JSONValue {
        let (localizations, included) = localizations(draft.localizations)
        let attributes: JSONValue = .object([
            "link": .string(draft.link), "isPoweredBy": .bool(draft.isPoweredBy),
            "defaultLanguage": .string(draft.defaultLanguage.rawValue),
            "action": draft.action.map { .string($0.rawValue) }, "businessCategory": draft.businessCategory.map { .string($0.rawValue) },
            "place": draft.place,
        ])
        return [
            "data": [
                "type": "appClipAdvancedExperiences", "attributes": attributes,
                "relationships": [
                    "appClip": linkage("appClips", appClipID), "headerImage": linkage("appClipAdvancedExperienceImages", headerImageID),
                    "localizations": localizations,
                ],
            ],
            "included": included,
        ]
    }

    static func updateAdvancedExperience(id: String, _ change: AdvancedExperienceChange) -> JSONValue {
        var members: [(key: String, value: JSONValue?)] = [
            ("isPoweredBy", change.isPoweredBy.map { .bool($0) }), ("defaultLanguage", change.defaultLanguage.map { .string($0.rawValue) }),
            ("action", change.action.map { .string($0.rawValue) }),
            ("businessCategory", change.businessCategory.map { .string($0.rawValue) }),
            ("place", change.place),
        ]
        for name in change.cleared.sorted() where ["place", "businessCategory", "action"].contains(name) {
            members.removeAll { $0.key == name }
            members.append((name, .some(.null)))
        }
        let attributes: JSONValue = .object(members.compactMap { key, value in value.map { (key: key, value: $0) } })
        let inline = change.localizations.map(localizations)
        let relationships: JSONValue = .object([
            "headerImage": change.headerImageID.map { linkage("appClipAdvancedExperienceImages", $0) }, "localizations": inline?.linkage,
        ])
        // An absent member, not JSON null (which the specification does not allow for `attributes` or
        // `relationships`): JSONValue is ExpressibleByNilLiteral, so `cond ? object : nil` would be null.
        let nonEmpty = { (object: JSONValue) -> JSONValue? in
            guard object.objectMembers?.isEmpty == false else { return Optional<JSONValue>.none }
            return object
        }
        return .object([
            "data": .object([
                "type": "appClipAdvancedExperiences", "id": .string(id), "attributes": nonEmpty(attributes),
                "relationships": nonEmpty(relationships),
            ]),
            "included": inline?.included,
        ])
    }
}
