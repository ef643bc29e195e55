public import AppStoreConnect
public import ClipCore
public import StrictJSON

/// What a build's App Clip invocations need to become the clip's chosen ones (docs/app-store-connect.md
/// #testflight-invocations). Pure: the chosen invocations (with what each resolves to now) and what App Store Connect
/// holds for the build bundle in, one step per URL out. App Store Connect is the state planned from: an invocation is
/// matched by its URL, so an apply interrupted after a create that landed finds it and does not create it again.
public struct TestFlightPlan: Sendable {
    public enum LocalizationChange: Sendable, Equatable {
        case create(locale: String, title: String)
        case update(id: String, locale: String, before: String, after: String)
        case remove(id: String, locale: String)
    }

    public struct Step: Sendable, Equatable {
        /// `.create`, `.update` (its localizations), `.remove` or `.nothing`.
        public var action: SyncPlan.Action
        public var url: String
        public var ascInvocationID: String?
        /// The titles a create sends, by App Store Connect locale.
        public var titles: [TestFlightInvocation.Title]
        public var changes: [LocalizationChange]
        public var refusals: [SyncPlan.Refusal]
    }

    public var clip: AppID
    public var build: ASCBuild?
    public var steps: [Step]
    public var notes: [String]

    public var pending: [Step] { steps.filter { $0.action != .nothing } }
    public var refused: [Step] { steps.filter { !$0.refusals.isEmpty } }
    /// A build with an App Clip to give the invocations to.
    public var hasAppClipBuild: Bool { build?.appClipBundleID != nil }
    /// Nothing to do and nothing refused, on a build with an App Clip: without one there is nothing in sync.
    public var isInSync: Bool { hasAppClipBuild && pending.isEmpty && refused.isEmpty }

    /// `primaryLocale`: the app's (`en-US`): an experience's language that is the primary locale's gets that locale,
    /// since App Store Connect shows testers the app's locales (an unverified choice: asc-api.md §7.7 names no list).
    /// `appBundleID`: the clip's app, named in the fix of an invocation its missing name leaves untitled.
    public static func make(
        clip: AppID, build: ASCBuild?, chosen: [TestFlightInvocation], asc: [ASCBetaInvocation], primaryLocale: String?,
        appBundleID: String
    ) -> TestFlightPlan {
        var notes: [String] = []
        guard let found = build, found.appClipBundleID != nil else {
            notes.append(build.map { "build \($0.version) has no App Clip" } ?? "no build found in App Store Connect")
            return TestFlightPlan(clip: clip, build: build, steps: [], notes: notes)
        }
        var steps: [Step] = []
        var claimed: Set<String> = []
        for invocation in chosen {
            let titles = localized(invocation.titles, primaryLocale: primaryLocale)
            let theirs = asc.first { !claimed.contains($0.id) && sameURL($0.url, invocation.url) }
            if let theirs { claimed.insert(theirs.id) }
            var step = Step(
                action: .nothing, url: invocation.url, ascInvocationID: theirs?.id, titles: titles, changes: [], refusals: [])
            if case .unresolved(let why) = invocation.target {
                // Its titles are unknown, so the build's invocation of it is not planned at all: left as it is, not removed.
                step.refusals.append(
                    .init(
                        rule: "testflight.resolve",
                        message: "\(invocation.url) \(why)" + (theirs == nil ? "" : "; the build's invocation of it is left as it is"),
                        fix: "choose URLs that resolve to this clip: clipctl asc testflight set \(clip.rawValue) URL …"))
                if theirs == nil { step.action = .create }
                steps.append(step)
                continue
            } else if let untitled = invocation.untitled(appBundleID: appBundleID, team: clip.team.rawValue) {
                step.refusals.append(.init(rule: TestFlightInvocation.untitledRule, message: untitled.message, fix: untitled.fix))
            } else if titles.isEmpty {
                step.refusals.append(
                    .init(
                        rule: "testflight.title", message: "\(invocation.url) has no localization to title it",
                        fix: "give the experience a localization"))
            }
            if let theirs {
                step.changes = changes(from: theirs.localizations, to: titles)
                if !step.changes.isEmpty { step.action = .update }
            } else {
                step.action = .create
            }
            steps.append(step)
        }
        for theirs in asc where !claimed.contains(theirs.id) {
            steps.append(Step(action: .remove, url: theirs.url, ascInvocationID: theirs.id, titles: [], changes: [], refusals: []))
        }
        return TestFlightPlan(clip: clip, build: build, steps: steps, notes: notes)
    }

    static func sameURL(_ a: String, _ b: String) -> Bool {
        guard let x = try? NormalizedURL(a), let y = try? NormalizedURL(b) else { return a == b }
        return x.canonical == y.canonical
    }

    /// The titles by App Store Connect locale: the language of the primary locale takes its full tag.
    static func localized(_ titles: [TestFlightInvocation.Title], primaryLocale: String?) -> [TestFlightInvocation.Title] {
        guard let primary = primaryLocale, let language = primary.split(separator: "-").first.map({ $0.lowercased() }),
            !titles.contains(where: { $0.locale == primary })
        else { return titles }
        return titles.map { $0.locale == language ? .init(locale: primary, title: $0.title) : $0 }
    }

    static func changes(from theirs: [ASCBetaInvocation.Localization], to ours: [TestFlightInvocation.Title]) -> [LocalizationChange] {
        var changes: [LocalizationChange] = []
        for title in ours {
            if let existing = theirs.first(where: { $0.locale == title.locale }) {
                if existing.title != title.title {
                    changes.append(.update(id: existing.id, locale: title.locale, before: existing.title, after: title.title))
                }
            } else {
                changes.append(.create(locale: title.locale, title: title.title))
            }
        }
        for existing in theirs where !ours.contains(where: { $0.locale == existing.locale }) {
            changes.append(.remove(id: existing.id, locale: existing.locale))
        }
        return changes
    }

    public var json: JSONValue {
        .object([
            ("clip", .string(clip.rawValue)),
            (
                "build",
                build.map { b in
                    .object([
                        ("id", .string(b.id)), ("version", .string(b.version)),
                        ("appClipBuildBundle", b.appClipBundleID.map { .string($0) } ?? .null),
                    ])
                } ?? .null
            ),
            (
                "steps",
                .array(
                    steps.map { step in
                        .object([
                            ("action", .string(step.action.rawValue)), ("url", .string(step.url)),
                            ("ascInvocationId", step.ascInvocationID.map { .string($0) } ?? .null),
                            (
                                "titles",
                                .array(step.titles.map { .object([("locale", .string($0.locale)), ("title", .string($0.title))]) })
                            ),
                            ("changes", .array(step.changes.map { .string($0.description) })),
                            (
                                "refusals",
                                .array(
                                    step.refusals.map {
                                        .object([
                                            ("rule", .string($0.rule)), ("message", .string($0.message)),
                                            ("fix", .string($0.fix)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
            ("notes", .array(notes.map { .string($0) })),
            ("inSync", .bool(isInSync)),
        ])
    }
}

extension TestFlightPlan.LocalizationChange: CustomStringConvertible {
    public var description: String {
        switch self {
        case .create(let locale, let title): "\(locale): add \"\(title)\""
        case .update(_, let locale, let before, let after): "\(locale): \"\(before)\" → \"\(after)\""
        case .remove(_, let locale): "\(locale): remove"
        }
    }
}
