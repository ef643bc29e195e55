/// Enumerations copied verbatim from the App Store Connect API 4.4.1 (docs/apple-formats.md#app-store-connect-enumerations), so that
/// data can be pushed to App Store Connect unchanged. Unknown values are refused.
public protocol AppleEnumeration: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// Rule code used in validation errors, e.g. "action.enum".
    static var ruleName: String { get }
}

extension AppleEnumeration {
    public static func parse(_ string: String, field: String) throws(ValidationFailure) -> Self {
        if let value = Self(rawValue: string) { return value }
        throw ValidationFailure(
            field: field, rule: "\(ruleName).enum",
            message: "\"\(string.truncatedForMessage)\" is not one of \(allCases.map(\.rawValue).joined(separator: ", "))")
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

/// `AppClipAdvancedExperienceLanguage`: 32 two-letter codes, not BCP 47 locales.
public enum Language: String, AppleEnumeration, Comparable {
    case AR, CA, CS, DA, DE, EL, EN, ES, FI, FR, HE, HI, HR, HU, ID, IT, JA, KO, MS, NL, NO, PL, PT, RO,
        RU, SK, SV, TH, TR, UK, VI, ZH
    public static let ruleName = "language"
    public static func < (a: Language, b: Language) -> Bool { a.rawValue < b.rawValue }

    /// The language for a BCP 47 tag or a bare code, case-insensitively: "fr-CA" → FR, "nb" → NO.
    public init?(tag: String) {
        let primary = tag.split(separator: "-", maxSplits: 1).first.map { $0.split(separator: "_").first ?? $0 } ?? ""
        let upper = primary.uppercased()
        switch upper {
        case "NB", "NN": self = .NO  // Norwegian Bokmål and Nynorsk
        case "IW": self = .HE  // deprecated ISO 639 code for Hebrew
        case "IN": self = .ID  // deprecated ISO 639 code for Indonesian
        default:
            guard let value = Language(rawValue: upper) else { return nil }
            self = value
        }
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
