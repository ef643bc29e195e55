/// Enumerations copied verbatim from the App Store Connect API 4.4.1 (docs/apple-formats.md#app-store-connect-enumerations), so that
/// data can be pushed to App Store Connect unchanged. Unknown values are refused.
public protocol AppleEnumeration: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// Rule code used in validation errors, e.g. "action.enum".
    static var ruleName: String { get }
    /// How the registry writes the case (answers, files, the database): Apple's raw value, but for `Language`.
    var spelling: String { get }
    /// The case an input names, or a refusal naming `field` and the rule.
    static func parse(_ string: String, field: String) throws(ValidationFailure) -> Self
}

extension AppleEnumeration {
    public var spelling: String { rawValue }

    /// The case spelled exactly as Apple spells it.
    public static func parse(_ string: String, field: String) throws(ValidationFailure) -> Self {
        if let value = Self(rawValue: string) { return value }
        throw ValidationFailure(
            field: field, rule: "\(ruleName).enum",
            message: "\"\(string.truncatedForMessage)\" is not one of \(allCases.map(\.rawValue).joined(separator: ", "))"
                + (suggestion(for: string).map { " (did you mean \($0)?)" } ?? ""))
    }

    /// The case a near miss meant (`NearMiss`: `BIKE` → `BIKES`).
    public static func suggestion(for string: String) -> String? { NearMiss.meant(string, among: allCases.map(\.rawValue)) }

    /// The case the registry writes as `spelling` (what it reads back from its own database).
    public init?(spelling: String) {
        guard let value = Self.allCases.first(where: { $0.spelling == spelling }) else { return nil }
        self = value
    }
}

/// `AppClipAction`: the call-to-action verb on the App Clip card.
public enum Action: String, AppleEnumeration {
    case open = "OPEN", view = "VIEW", play = "PLAY"
    public static let ruleName = "action"
}

/// The registry's experience status. Apple's `RECEIVED` is `ACTIVE` here (docs/rules.md#enumerations).
public enum ExperienceStatus: String, AppleEnumeration {
    case active = "ACTIVE", deactivated = "DEACTIVATED"
    public static let ruleName = "status"
}

/// The language of an advanced experience's card: one of the 32 of Apple's
/// `AppClipAdvancedExperienceLanguage`, whose code is the raw value, sent to App Store Connect as it
/// is (`FR`). The registry reads any BCP 47 tag of the language (`fr`, `FR`, `fr-FR`, `fr_CA`) and
/// writes its canonical tag, the lower-case primary language subtag (`fr`; docs/rules.md#languages).
public enum Language: String, AppleEnumeration, Comparable {
    case AR, CA, CS, DA, DE, EL, EN, ES, FI, FR, HE, HI, HR, HU, ID, IT, JA, KO, MS, NL, NO, PL, PT, RO,
        RU, SK, SV, TH, TR, UK, VI, ZH
    public static let ruleName = "language"
    public static func < (a: Language, b: Language) -> Bool { a.rawValue < b.rawValue }

    /// The canonical tag the registry stores and answers: `fr`.
    public var tag: String { rawValue.lowercased() }
    public var spelling: String { tag }

    /// The App Store locale of the language (a TestFlight invocation's title): `fr` → fr-FR.
    public var appStoreLocale: String { AppStoreLocale.canonical(tag) ?? tag }

    /// The language of a BCP 47 tag in any case and with any subtags after the language, which an
    /// advanced experience has no place for: "fr-CA" → FR, "zh-Hant" → ZH, "nb" → NO.
    public init?(tag: String) {
        guard let parsed = LanguageTag(tag) else { return nil }
        let code = AppStoreLocale.macrolanguage[parsed.language] ?? parsed.language
        guard let value = Language(rawValue: code.uppercased()) else { return nil }
        self = value
    }

    /// Any spelling of one of the 32 (`init(tag:)`); a refusal lists them and, when the input is
    /// close to one (`fra`, `French`), names it.
    public static func parse(_ string: String, field: String) throws(ValidationFailure) -> Language {
        if let value = Language(tag: string) { return value }
        let close = LanguageTag.suggestion(for: string)
        throw ValidationFailure(
            field: field, rule: "\(ruleName).enum",
            message: "\"\(string.truncatedForMessage)\" is not one of Apple's advanced-experience languages "
                + "\(allCases.map(\.tag).joined(separator: ", ")) (any spelling: fr, FR, fr-FR)"
                + (close.map { "; did you mean \($0)?" } ?? ""))
    }
}

/// `businessCategory` of an advanced experience (27 values).
public enum BusinessCategory: String, AppleEnumeration {
    case AUTOMOTIVE, BEAUTY, BIKES, BOOKS, CASINO, EDUCATION, EDUCATION_JAPAN, ENTERTAINMENT, EV_CHARGER,
        FINANCIAL_USD, FINANCIAL_CNY, FINANCIAL_GBP, FINANCIAL_JPY, FINANCIAL_EUR, FITNESS, FOOD_AND_DRINK,
        GAS, GROCERY, HEALTH_AND_MEDICAL, HOTEL_AND_TRAVEL, MUSIC, PARKING, PET_SERVICES,
        PROFESSIONAL_SERVICES, SHOPPING, TICKETING, TRANSIT
    public static let ruleName = "category"
}

/// `place.mapAction` (41 values).
public enum MapAction: String, AppleEnumeration {
    case BUY_TICKETS, VIEW_AVAILABILITY, VIEW_PRICING, HOTEL_BOOK_ROOM, PARKING_RESERVE_PARKING,
        RESTAURANT_JOIN_WAITLIST, RESTAURANT_ORDER_DELIVERY, RESTAURANT_ORDER_FOOD, RESTAURANT_ORDER_TAKEOUT,
        RESTAURANT_RESERVATION, SCHEDULE_APPOINTMENT, RESTAURANT_VIEW_MENU, THEATER_NOW_PLAYING,
        AIRLINE_BOOK_TRAVEL, AIRLINE_CHECK_IN, AIRLINE_FLIGHT_STATUS, APPLY, BOOK, BOOK_ACTIVITIES,
        BOOK_RIDES, BOOK_TEETIMES, BOOK_TOURS, CAREERS, CHARGE_EV, COUPONS, DONATE, EVENTS, EVENTS_SHOWS,
        EVENTS_SPORTS, GIFT_CARD, HOTEL_AMENITIES, JOIN, PARKING_AVAILABLE, RESTAURANT_PICKUP,
        RETAIL_SERVICE_QUOTE, RETAIL_STORE_DELIVERY, RETAIL_STORE_PICKUP, RETAIL_STORE_SHOP, SERVICES,
        SUPPORT, PAY_TO_PARK
    public static let ruleName = "place.mapAction"
}

/// `place.relationship`.
public enum PlaceRelationship: String, AppleEnumeration {
    case OWNER, AUTHORIZED, OTHER
    public static let ruleName = "place.relationship"
}

/// `place.displayPoint.source`.
public enum DisplayPointSource: String, AppleEnumeration {
    case CALCULATED, MANUALLY_PLACED
    public static let ruleName = "place.displayPoint.source"
}

/// `place.phoneNumber.type`.
public enum PhoneNumberType: String, AppleEnumeration {
    case FAX, LANDLINE, MOBILE, TOLLFREE
    public static let ruleName = "place.phoneNumber.type"
}

/// What a near miss of one of a few names meant: the same letters in another case, or one name at most two edits
/// away (a third of the text's length for short ones); nil when none or several are that near.
public enum NearMiss {
    public static func meant(_ string: String, among names: [String]) -> String? {
        guard string.utf8.count <= 64 else { return nil }
        let upper = string.uppercased()
        if let same = names.first(where: { $0.uppercased() == upper }) { return same }
        let near = names.filter { SheetColumns.distance($0.uppercased(), upper) <= min(2, upper.count / 3) }
        return near.count == 1 ? near[0] : nil
    }
}
