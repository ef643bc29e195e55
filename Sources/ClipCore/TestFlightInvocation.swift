/// One of a clip's chosen TestFlight invocations (Migrations/0009_testflight_invocations.sql): a URL testers open the
/// App Clip with from TestFlight, and its title per locale, taken from what the URL resolves to now
/// (docs/app-store-connect.md#testflight-invocations).
public struct TestFlightInvocation: Sendable, Equatable {
    /// What the URL resolves to today.
    public enum Target: Sendable, Equatable {
        /// An active advanced experience of the clip (its id).
        case experience(Int64)
        /// The clip's default experience.
        case defaultExperience
        /// Nothing of this clip any more (the experience was removed, deactivated, moved): why.
        case unresolved(String)
    }

    public struct Title: Sendable, Equatable {
        /// The App Store locale (`AppStoreLocale`): an advanced experience's language's (`fr` → fr-FR), a default experience's own.
        public var locale: String
        public var title: String
        public init(locale: String, title: String) {
            self.locale = locale
            self.title = title
        }
    }

    /// 1 to 3, the order chosen.
    public var position: Int
    public var url: String
    public var target: Target
    /// Sorted by locale; empty when unresolved.
    public var titles: [Title]

    public init(position: Int, url: String, target: Target, titles: [Title]) {
        self.position = position
        self.url = url
        self.target = target
        self.titles = titles
    }

    /// App Store Connect keeps at most three App Clip invocations per build (App Store Connect Help, "Test an App Clip";
    /// ../shared/docs/asc-api.md §7.7).
    public static let limit = 3

    /// The titles of an advanced experience: its card title per language.
    public static func titles(of experience: AdvancedExperience) -> [Title] {
        experience.localizations.map { Title(locale: $0.key.appStoreLocale, title: $0.value.title) }.sorted { $0.locale < $1.locale }
    }

    /// The titles of a default experience: its card shows the app's name (Apple: the default experience's title is the
    /// app's), once per locale it has.
    public static func titles(ofDefault experience: DefaultExperience, appName: String) -> [Title] {
        experience.localizations.keys.sorted().map { Title(locale: $0, title: appName) }
    }

    /// The rule `untitled` breaks, as `asc testflight set`, its plan and doctor name it.
    public static let untitledRule = "testflight.appName"

    /// Why App Store Connect would get an empty title for this invocation, with the command that fixes it: a URL that
    /// falls to the default experience is titled with the app's name (`titles(ofDefault:appName:)`), and the app
    /// (`appBundleID` of `team`) has none. nil when every title has text.
    public func untitled(appBundleID: String, team: String) -> (message: String, fix: String)? {
        guard case .defaultExperience = target, titles.contains(where: { $0.title.isEmpty }) else { return nil }
        return (
            "\(url) falls to the default experience, which TestFlight titles with the app's name, and app \(appBundleID) has no name",
            Shell.command(["clipctl", "app", "set", appBundleID, "--team", team, "--name", "NAME"])
        )
    }
}

/// A clip's chosen TestFlight invocations as a bulk read gives them to `clipctl doctor` (`RegistryRecord.testflight`).
public struct TestFlightChoice: Sendable, Equatable {
    public var clip: AppID
    /// Linked to App Store Connect (`clipctl asc link`): its builds are what testers open, so it is expected to choose.
    public var linked: Bool
    /// In order; empty when none are chosen.
    public var invocations: [TestFlightInvocation]

    public init(clip: AppID, linked: Bool, invocations: [TestFlightInvocation]) {
        self.clip = clip
        self.linked = linked
        self.invocations = invocations
    }
}
