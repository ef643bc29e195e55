/// An enumerated ASC value that may be one this client does not know: Apple's enums grow between
/// versions of the API (`place.mapAction` went from 13 to 41 values), so a newer value is kept as
/// text and reported, never fatal.
public enum ASCValue<Known: RawRepresentable & Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible
where Known.RawValue == String {
    case known(Known)
    case unknown(String)

    public init(_ raw: String) {
        self = Known(rawValue: raw).map { .known($0) } ?? .unknown(raw)
    }

    public var rawValue: String {
        switch self {
        case .known(let value): value.rawValue
        case .unknown(let raw): raw
        }
    }

    public var known: Known? { if case .known(let value) = self { value } else { nil } }
    public var description: String { rawValue }
}

// The enums below are verbatim from App Store Connect API 4.4.1 (components.schemas.AppClipAction,
// AppClipAdvancedExperienceLanguage, AppClipAdvancedExperience.attributes.*, AppMediaAssetState,
// AppVersionState).

/// The card's button: `AppClipAction`.
public enum AppClipAction: String, CaseIterable, Hashable, Sendable {
    case open = "OPEN", view = "VIEW", play = "PLAY"
}

/// An advanced experience's languages: `AppClipAdvancedExperienceLanguage` (two-letter codes,
/// unlike the default experience's `locale` such as `en-US`).
public enum AppClipLanguage: String, CaseIterable, Hashable, Sendable {
    case ar = "AR", ca = "CA", cs = "CS", da = "DA", de = "DE", el = "EL", en = "EN", es = "ES", fi = "FI", fr = "FR", he = "HE"
    case hi = "HI", hr = "HR", hu = "HU", id = "ID", it = "IT", ja = "JA", ko = "KO", ms = "MS", nl = "NL", no = "NO", pl = "PL"
    case pt = "PT", ro = "RO", ru = "RU", sk = "SK", sv = "SV", th = "TH", tr = "TR", uk = "UK", vi = "VI", zh = "ZH"
}

/// `AppClipAdvancedExperience.attributes.businessCategory`.
public enum AppClipBusinessCategory: String, CaseIterable, Hashable, Sendable {
    case automotive = "AUTOMOTIVE", beauty = "BEAUTY", bikes = "BIKES", books = "BOOKS", casino = "CASINO", education = "EDUCATION"
    case educationJapan = "EDUCATION_JAPAN", entertainment = "ENTERTAINMENT", evCharger = "EV_CHARGER", financialUSD = "FINANCIAL_USD"
    case financialCNY = "FINANCIAL_CNY", financialGBP = "FINANCIAL_GBP", financialJPY = "FINANCIAL_JPY", financialEUR = "FINANCIAL_EUR"
    case fitness = "FITNESS", foodAndDrink = "FOOD_AND_DRINK", gas = "GAS", grocery = "GROCERY", healthAndMedical = "HEALTH_AND_MEDICAL"
    case hotelAndTravel = "HOTEL_AND_TRAVEL", music = "MUSIC", parking = "PARKING", petServices = "PET_SERVICES"
    case professionalServices = "PROFESSIONAL_SERVICES", shopping = "SHOPPING", ticketing = "TICKETING", transit = "TRANSIT"
}

/// `AppClipAdvancedExperience.attributes.status` (read-only).
public enum AppClipAdvancedExperienceStatus: String, CaseIterable, Hashable, Sendable {
    case received = "RECEIVED", deactivated = "DEACTIVATED", appTransferInProgress = "APP_TRANSFER_IN_PROGRESS"
}

/// `AppClipAdvancedExperience.attributes.placeStatus` (read-only): Apple Maps' matching.
public enum AppClipPlaceStatus: String, CaseIterable, Hashable, Sendable {
    case pending = "PENDING", matched = "MATCHED", noMatch = "NO_MATCH"
}

/// `AppMediaAssetState.state`: an uploaded image's progress.
public enum ASCAssetState: String, CaseIterable, Hashable, Sendable {
    case awaitingUpload = "AWAITING_UPLOAD", uploadComplete = "UPLOAD_COMPLETE", complete = "COMPLETE", failed = "FAILED"
}

/// `AppVersionState`: where an App Store version is in its life.
public enum ASCAppVersionState: String, CaseIterable, Hashable, Sendable {
    case accepted = "ACCEPTED", developerRejected = "DEVELOPER_REJECTED", inReview = "IN_REVIEW", invalidBinary = "INVALID_BINARY"
    case metadataRejected = "METADATA_REJECTED", pendingAppleRelease = "PENDING_APPLE_RELEASE"
    case pendingDeveloperRelease = "PENDING_DEVELOPER_RELEASE", prepareForSubmission = "PREPARE_FOR_SUBMISSION"
    case processingForDistribution = "PROCESSING_FOR_DISTRIBUTION", readyForDistribution = "READY_FOR_DISTRIBUTION"
    case readyForReview = "READY_FOR_REVIEW", rejected = "REJECTED", replacedWithNewVersion = "REPLACED_WITH_NEW_VERSION"
    case waitingForExportCompliance = "WAITING_FOR_EXPORT_COMPLIANCE", waitingForReview = "WAITING_FOR_REVIEW"

    /// The states in which a version's metadata, its default App Clip experience included, can
    /// still be changed ("app clip default experience metadata is not editable in a live version",
    /// fastlane's deliver; these are the states fastlane's "edit version" lookup accepts).
    public static let editable: [ASCAppVersionState] = [
        .prepareForSubmission, .developerRejected, .rejected, .metadataRejected, .invalidBinary,
    ]
}
