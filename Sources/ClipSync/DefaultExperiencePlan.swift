public import AppStoreConnect
public import ClipCore

/// What an apply would do to a clip's default experience in App Store Connect: pure, like SyncPlan. App Store Connect
/// keeps one default experience per App Store version and takes changes only on a version still being edited (Apple,
/// "App Clips and App Clip Experiences"; fastlane: "not editable in a live version"), so the plan is for that version.
public struct DefaultExperiencePlan: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable { case create, update, nothing }

    /// The App Store version being edited (`versionString`, such as 2.1), nil when there is none.
    public var appStoreVersion: String?
    public var appStoreVersionID: String?
    public var ascDefaultExperienceID: String?
    public var action: Action
    /// `action`, `localizations.LOCALE.subtitle` and `localizations.LOCALE.headerImage` (before → after; "none" for absent).
    public var changes: [SyncPlan.FieldChange]
    public var refusals: [SyncPlan.Refusal]
    public var notes: [String]

    public init(
        appStoreVersion: String?, appStoreVersionID: String?, ascDefaultExperienceID: String?, action: Action,
        changes: [SyncPlan.FieldChange], refusals: [SyncPlan.Refusal], notes: [String]
    ) {
        self.appStoreVersion = appStoreVersion
        self.appStoreVersionID = appStoreVersionID
        self.ascDefaultExperienceID = ascDefaultExperienceID
        self.action = action
        self.changes = changes
        self.refusals = refusals
        self.notes = notes
    }

    /// - Parameters:
    ///   - registry: the clip's default experience here; nil leaves App Store Connect's as it is (no plan).
    ///   - version: the App Store version being edited, nil when the app has none.
    ///   - asc: that version's default experience, nil when it has none.
    ///   - imageMD5: the MD5 (hex) of the registry's header images by SHA-256 (App Store Connect's `sourceFileChecksum`).
    ///   - invocations: the clip's chosen TestFlight invocations, which App Review gets too (`appReviewChange`).
    public static func make(
        registry: DefaultExperience?, version: ASCAppStoreVersion?, asc: ASCDefaultExperience?, primaryLocale: String?,
        imageMD5: [String: String], invocations: [TestFlightInvocation] = []
    ) -> DefaultExperiencePlan? {
        guard let registry else { return nil }
        guard let version else {
            return DefaultExperiencePlan(
                appStoreVersion: nil, appStoreVersionID: nil, ascDefaultExperienceID: nil, action: .nothing, changes: [], refusals: [],
                notes: [
                    "the app has no App Store version being edited: App Store Connect takes a default experience only on one "
                        + "(create the next version there, then apply again)"
                ])
        }
        var changes: [SyncPlan.FieldChange] = []
        func compare(_ field: String, _ before: String?, _ after: String?) {
            if before != after { changes.append(.init(field: field, before: before ?? "none", after: after ?? "none")) }
        }
        compare("action", asc?.action?.rawValue, registry.action.rawValue)
        let theirs = Dictionary((asc?.localizations ?? []).map { ($0.locale, $0) }, uniquingKeysWith: { first, _ in first })
        for locale in Set(theirs.keys).union(registry.localizations.keys).sorted() {
            let ours = registry.localizations[locale]
            compare("localizations.\(locale).subtitle", theirs[locale]?.subtitle, ours?.subtitle)
            guard let ours else { continue }
            // Compared by the MD5 of the file uploaded, since App Store Connect serves re-encoded bytes.
            let theirMD5 = theirs[locale]?.headerImage?.sourceFileChecksum
            let ourMD5 = ours.headerImage.flatMap { imageMD5[$0] }
            if let ourMD5, ourMD5 != theirMD5 {
                compare("localizations.\(locale).headerImage", theirMD5.map { "md5 \($0)" }, "md5 \(ourMD5)")
            }
        }
        var refusals: [SyncPlan.Refusal] = []
        var notes: [String] = []
        if let primaryLocale, registry.localizations[primaryLocale] == nil {
            refusals.append(
                .init(
                    rule: "defaultExperience.primaryLocale",
                    message:
                        "the default experience has no localization in \(primaryLocale), the app's primary locale in App Store Connect",
                    fix: "clipctl default set \(registry.clip.rawValue) --subtitle '\(primaryLocale)=SUBTITLE' (with the other locales)"))
        }
        if case .unknown(let raw)? = asc?.action { notes.append("App Store Connect sent action \(raw), unknown to this registry") }
        for (locale, localization) in registry.localizations.sorted(by: { $0.key < $1.key }) where localization.headerImage == nil {
            notes.append("\(locale) has no header image here: App Store Connect keeps whatever it has")
        }
        let review = appReviewChange(invocations, asc: asc?.reviewDetail, clip: registry.clip)
        changes += review.changes
        let action: Action = asc == nil ? .create : changes.isEmpty ? .nothing : .update
        return DefaultExperiencePlan(
            appStoreVersion: version.versionString ?? version.id, appStoreVersionID: version.id, ascDefaultExperienceID: asc?.id,
            action: action, changes: changes, refusals: (action == .nothing ? [] : refusals) + review.refusals, notes: notes)
    }

    /// The field a plan names for the App Review detail: the URLs App Review opens the App Clip with are the clip's chosen
    /// TestFlight invocations, in their order (../shared/docs/asc-api.md §7.6 item 4). None chosen leaves App Store
    /// Connect's as they are. A chosen URL that no longer resolves to the clip is refused, whatever App Store Connect
    /// holds: App Review would open a dead link.
    public static let appReviewField = "appReview.invocationUrls"

    static func appReviewChange(_ invocations: [TestFlightInvocation], asc: ASCAppClipReviewDetail?, clip: AppID) -> (
        changes: [SyncPlan.FieldChange], refusals: [SyncPlan.Refusal]
    ) {
        guard !invocations.isEmpty else { return ([], []) }
        let refusals: [SyncPlan.Refusal] = invocations.compactMap { invocation in
            guard case .unresolved(let why) = invocation.target else { return nil }
            return .init(
                rule: "appReview.resolve", message: "\(invocation.url) \(why): App Review would open it",
                fix: "choose URLs that resolve to this clip: clipctl asc testflight set \(clip.rawValue) URL …")
        }
        let ours = invocations.map(\.url), theirs = asc?.invocationURLs ?? []
        let same = ours.count == theirs.count && zip(ours, theirs).allSatisfy { TestFlightPlan.sameURL($0, $1) }
        guard !same else { return ([], refusals) }
        let before = asc == nil ? "none" : theirs.isEmpty ? "[]" : theirs.joined(separator: " ")
        return ([.init(field: appReviewField, before: before, after: ours.joined(separator: " "))], refusals)
    }

    /// The URLs an apply sends App Review, when the plan changes them.
    public func appReviewURLs(_ invocations: [TestFlightInvocation]) -> [String]? {
        changes.contains { $0.field == Self.appReviewField } ? invocations.map(\.url) : nil
    }
}
