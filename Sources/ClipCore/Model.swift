import StrictJSON

/// Card text of one language: title ≤ 30 and subtitle ≤ 56 characters (HIG, apple-spec §1.4),
/// counted as Swift `Character`s (user-perceived characters).
public struct CardText: Hashable, Sendable {
    public var title: String
    public var subtitle: String
    public init(title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
    }
}

public enum TextLimits {
    // apple-spec §1.4: hard limits from the HIG and "Configuring App Clip experiences".
    public static let titleMax = 30
    public static let subtitleMax = 56
    // apple-spec §1.4: older guidance (WWDC20 10146), kept as warnings.
    public static let titleAdvised = 18
    public static let subtitleAdvised = 43

    /// Errors for text over the hard limit, empty, or holding control characters.
    public static func check(_ text: String, field: String, max: Int) -> [FieldError] {
        var errors: [FieldError] = []
        let name = field.split(separator: ".").last.map(String.init) ?? field
        if text.utf8.allSatisfy({ $0 == UInt8(ascii: " ") }) {
            errors.append(FieldError(field: field, rule: "\(name).empty", message: "must not be empty"))
        }
        if text.count > max {
            errors.append(FieldError(field: field, rule: "\(name).length", message: "is \(text.count) characters; the limit is \(max)"))
        }
        let hasControl = text.utf8.allSatisfy({ $0 < 0x80 })
            ? text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
            : text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" })
        if hasControl {
            errors.append(FieldError(field: field, rule: "\(name).control", message: "must be one line without control characters"))
        }
        return errors
    }

    /// Warnings for text over the older 18/43 guidance.
    public static func advice(_ card: CardText, field: String) -> [FieldError] {
        var warnings: [FieldError] = []
        if card.title.count > titleAdvised {
            warnings.append(FieldError(field: "\(field).title", rule: "title.advised", message: "is \(card.title.count) characters; older guidance advises at most \(titleAdvised)"))
        }
        if card.subtitle.count > subtitleAdvised {
            warnings.append(FieldError(field: "\(field).subtitle", rule: "subtitle.advised", message: "is \(card.subtitle.count) characters; older guidance advises at most \(subtitleAdvised)"))
        }
        return warnings
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        guard let ascii = set.asciiValue else { return String(drop { $0 == set }.reversed().drop { $0 == set }.reversed()) }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != ascii }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != ascii })!
        return String(self[first...last])
    }
}

public struct Team: Sendable, Equatable {
    public var id: TeamID
    public var name: String
    public init(id: TeamID, name: String = "") {
        self.id = id
        self.name = name
    }
}

public struct App: Sendable, Equatable {
    public var bundleID: BundleID
    public var team: TeamID
    public var appStoreID: AppStoreID?
    public var name: String
    public var version: Int
    public init(bundleID: BundleID, team: TeamID, appStoreID: AppStoreID? = nil, name: String = "", version: Int = 1) {
        self.bundleID = bundleID
        self.team = team
        self.appStoreID = appStoreID
        self.name = name
        self.version = version
    }
    public var appID: AppID { AppID(team: team, bundleID: bundleID) }
}

public struct Clip: Sendable, Equatable {
    public var appID: AppID
    public var appBundleID: BundleID
    public var hosts: [String]
    public init(appID: AppID, appBundleID: BundleID, hosts: [String] = []) {
        self.appID = appID
        self.appBundleID = appBundleID
        self.hosts = hosts
    }
}

/// The default experience of a clip: action, and per-locale subtitle and header image
/// (apple-spec §1.2: no title; the header image belongs to each localization).
public struct DefaultExperience: Sendable, Equatable {
    public struct Localization: Sendable, Equatable {
        public var subtitle: String
        public var headerImage: String?
        public init(subtitle: String, headerImage: String? = nil) {
            self.subtitle = subtitle
            self.headerImage = headerImage
        }
    }
    public var clip: AppID
    public var action: Action
    /// Keyed by locale, e.g. "en-US".
    public var localizations: [String: Localization]
    public var version: Int
    public init(clip: AppID, action: Action, localizations: [String: Localization], version: Int = 1) {
        self.clip = clip
        self.action = action
        self.localizations = localizations
        self.version = version
    }

    /// A locale tag as App Store Connect spells them: a 2–3 letter language, then subtags.
    public static func checkLocale(_ locale: String, field: String) -> FieldError? {
        let parts = locale.split(separator: "-", omittingEmptySubsequences: false)
        let ok = !parts.isEmpty && (2...3).contains(parts[0].count) && parts[0].utf8.allSatisfy(isAlpha)
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.utf8.allSatisfy(isAlnum) }
        return ok ? nil : FieldError(field: field, rule: "locale.format", message: "\"\(locale.truncatedForMessage)\" is not a locale such as en-US")
    }
}

/// An advanced App Clip experience (apple-spec §2.2), as the registry stores it.
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
    /// A validated `place` object (apple-spec §2.4).
    public var place: JSONValue?
    public var status: ExperienceStatus
    public var version: Int
    public var createdAt: String
    public var updatedAt: String

    public init(
        id: Int64 = 0, url: NormalizedURL, clip: AppID, action: Action = .open, defaultLanguage: Language = .EN,
        isPoweredBy: Bool = false, businessCategory: BusinessCategory? = nil, localizations: [Language: CardText],
        headerImage: String? = nil, place: JSONValue? = nil, status: ExperienceStatus = .active, version: Int = 1,
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
        self.status = status
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The card in the default language (always present: validation guarantees it).
    public var defaultCard: CardText { localizations[defaultLanguage] ?? CardText(title: "", subtitle: "") }

    /// The first language of `preferences` the experience has, else its default language
    /// (design §3.2 rule 6).
    public func language(for preferences: [Language]) -> Language {
        preferences.first { localizations[$0] != nil } ?? defaultLanguage
    }
}
