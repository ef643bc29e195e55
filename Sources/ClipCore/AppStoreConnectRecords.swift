/// What the registry remembers of App Store Connect (Migrations/0005_asc_sync.sql): plain records, so that
/// the store keeps them and a sync plan reads them without either knowing the App Store Connect client.

/// A clip linked to its app and App Clip in App Store Connect (`clipctl asc link`).
public struct AppStoreConnectLink: Sendable, Equatable {
    public var clip: AppID
    public var ascAppID: String
    public var ascAppClipID: String
    /// The app's bundle ID as App Store Connect holds it.
    public var appBundleID: String
    /// The app's primary locale (such as en-US) when App Store Connect said.
    public var primaryLocale: String?
    public var linkedAt: String
    /// How long before its `liveFrom` an experience is pushed (docs/schedules.md#app-store-connect).
    public var leadSeconds: Int64

    /// 48 hours: iOS caches experiences, and availability after an edit "may unexpectedly take some time" (Apple's "Testing
    /// your App Clip's launch experience"); a deactivated experience still served 48 h later has been reported.
    public static let defaultLeadSeconds: Int64 = 48 * 3600
    public static let leadSecondsRange: ClosedRange<Int64> = 0...(30 * 24 * 3600)

    public init(
        clip: AppID, ascAppID: String, ascAppClipID: String, appBundleID: String, primaryLocale: String?, linkedAt: String = "",
        leadSeconds: Int64 = defaultLeadSeconds
    ) {
        self.clip = clip
        self.ascAppID = ascAppID
        self.ascAppClipID = ascAppClipID
        self.appBundleID = appBundleID
        self.primaryLocale = primaryLocale
        self.linkedAt = linkedAt
        self.leadSeconds = leadSeconds
    }
}

/// One registry experience as last pushed to or pulled from App Store Connect.
public struct AppStoreConnectSyncRecord: Sendable, Equatable {
    public var experienceID: Int64
    public var clip: AppID
    public var ascExperienceID: String?
    /// The link App Store Connect holds (create-only there).
    public var ascLink: String?
    public var pushedVersion: Int?
    public var pushedImageSHA256: String?
    public var pushedImageMD5: String?
    public var reservedImageID: String?
    /// App Store Connect's status when last seen, verbatim.
    public var ascState: String?
    /// A digest of App Store Connect's fields when last seen: another digest now means drift.
    public var ascFingerprint: String?
    public var pendingStep: String?
    public var pushedAt: String?
    public var pulledAt: String?

    public init(
        experienceID: Int64, clip: AppID, ascExperienceID: String? = nil, ascLink: String? = nil, pushedVersion: Int? = nil,
        pushedImageSHA256: String? = nil, pushedImageMD5: String? = nil, reservedImageID: String? = nil, ascState: String? = nil,
        ascFingerprint: String? = nil, pendingStep: String? = nil, pushedAt: String? = nil, pulledAt: String? = nil
    ) {
        self.experienceID = experienceID
        self.clip = clip
        self.ascExperienceID = ascExperienceID
        self.ascLink = ascLink
        self.pushedVersion = pushedVersion
        self.pushedImageSHA256 = pushedImageSHA256
        self.pushedImageMD5 = pushedImageMD5
        self.reservedImageID = reservedImageID
        self.ascState = ascState
        self.ascFingerprint = ascFingerprint
        self.pendingStep = pendingStep
        self.pushedAt = pushedAt
        self.pulledAt = pulledAt
    }
}
