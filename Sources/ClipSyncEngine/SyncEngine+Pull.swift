import AppStoreConnect
public import ClipCore
import ClipStore
public import ClipSync
import StrictJSON

/// What a pull did for one clip.
public struct PullReport: Sendable {
    public struct Difference: Sendable, Equatable {
        public var experienceID: Int64
        public var url: String
        public var changes: [SyncPlan.FieldChange]
    }

    public var clip: AppID
    /// Experiences only App Store Connect had, now in the registry too.
    public var adopted: [(id: Int64, url: String)] = []
    /// Experiences the same on both sides, now recorded as in sync.
    public var same = 0
    /// Experiences that differ; unchanged here unless a side was preferred.
    public var differing: [Difference] = []
    /// Differences settled by `--prefer asc` (the registry took App Store Connect's values).
    public var tookASC: [Int64] = []
    /// Differences settled by `--prefer registry` (kept as the registry has them; the next apply pushes them).
    public var keptRegistry: [Int64] = []
    /// What became of the default experience of the App Store version being edited: adopted, same, differs, took
    /// App Store Connect's; nil when App Store Connect has none.
    public var defaultExperience: String?
    /// Where the default experiences differ: App Store Connect's value → the registry's.
    public var defaultExperienceChanges: [SyncPlan.FieldChange] = []
    public var notes: [String] = []

    /// Differences left as they are (no side preferred).
    public var unsettled: Int { differing.count - tookASC.count - keptRegistry.count + (defaultExperience == "differs" ? 1 : 0) }
}

/// Which side a pull keeps where both hold an experience and they differ.
public enum PullPreference: String, Sendable, CaseIterable {
    /// The registry takes App Store Connect's values.
    case asc
    /// The registry keeps its own: the next apply pushes them.
    case registry
}

extension SyncEngine {
    /// Adopts what App Store Connect holds for each linked clip (or `clipReference`): its advanced experiences, with
    /// their localizations, place, action, category and header image (downloaded at 1800×1200). Experiences already
    /// here are matched by the id recorded at a push, then by normalized URL; where they differ, the difference is
    /// reported and nothing is overwritten unless `prefer` says which side wins.
    public func pull(clip clipReference: String?, prefer: PullPreference?) throws(SyncFailure) -> [PullReport] {
        // Not beside an apply: it could take App Store Connect's values from before the apply's PATCH.
        let lock = try exclusive()
        defer { withExtendedLifetime(lock) {} }
        var reports: [PullReport] = []
        for link in try links(clipReference) {
            let side = try read(link)
            var report = PullReport(clip: link.clip)
            let plan = side.plan(prune: false)
            let experiences = Dictionary(side.experiences.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let asc = Dictionary(side.asc.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for step in plan.steps {
                guard let ascID = step.ascExperienceID, let theirs = asc[ascID] else { continue }
                if let id = step.experienceID, let ours = experiences[id] {
                    try settle(ours, theirs, step: step, link: link, prefer: prefer, report: &report)
                } else if step.experienceID == nil {
                    try adopt(theirs, link: link, report: &report)
                }
            }
            try pullDefault(side, prefer: prefer, report: &report)
            reports.append(report)
        }
        return reports
    }

    private func seen(_ theirs: ASCAdvancedExperience) -> Registry.ASCExperienceSeen {
        .init(ascExperienceID: theirs.id, link: theirs.link, state: theirs.status?.rawValue, fingerprint: SyncPlan.fingerprint(theirs))
    }

    /// One experience on both sides: recorded as in sync when the same; otherwise reported, or settled by `prefer`.
    private func settle(
        _ ours: AdvancedExperience, _ theirs: ASCAdvancedExperience, step: SyncPlan.Step, link: AppStoreConnectLink,
        prefer: PullPreference?, report: inout PullReport
    ) throws(SyncFailure) {
        let clip = link.clip
        // A deactivated experience matched by URL alone stays unrecorded: recording it would make App Store Connect's
        // (made in its pages) look pushed from here, and the next apply would remove it without --prune.
        guard ours.status == .active else { return }
        if step.action == .nothing {
            let md5 = try ours.headerImage.map { sha throws(SyncFailure) in
                try registryCall { () throws(RegistryError) in try storedImage(sha).md5 }
            }
            try registryCall { () throws(RegistryError) in
                try registry.recordASCPull(
                    clip: clip, experienceID: ours.id, seen: seen(theirs), pushedVersion: ours.version, imageSHA256: ours.headerImage,
                    imageMD5: md5)
            }
            report.same += 1
            return
        }
        report.differing.append(.init(experienceID: ours.id, url: ours.url.canonical, changes: step.changes))
        switch prefer {
        case nil:
            return
        case .registry?:
            try registryCall { () throws(RegistryError) in
                try registry.recordASCPull(
                    clip: clip, experienceID: ours.id, seen: seen(theirs), pushedVersion: nil, imageSHA256: nil, imageMD5: nil)
            }
            report.keptRegistry.append(ours.id)
        case .asc?:
            guard theirs.link == ours.url.canonical else {
                report.notes.append(
                    "experience \(ours.id) is at \(ours.url.canonical) here and \(theirs.link) there: change its URL here "
                        + "(App Store Connect's link cannot change)")
                return
            }
            guard var json = try converted(theirs, clip: clip, report: &report) else { return }
            json = json.removing("url", "clip")
            let image = try downloadedImage(theirs, report: &report)
            let updated = try registryCall { () throws(RegistryError) in
                try registry.update("\(ours.id)", with: json, image: image?.bytes, expectedVersion: ours.version).value
            }
            try registryCall { () throws(RegistryError) in
                try registry.recordASCPull(
                    clip: clip, experienceID: updated.id, seen: seen(theirs), pushedVersion: updated.version,
                    imageSHA256: image == nil ? ours.headerImage : updated.headerImage,
                    imageMD5: image == nil ? nil : theirs.headerImage?.sourceFileChecksum)
            }
            report.tookASC.append(ours.id)
        }
    }

    /// The default experience of the App Store version being edited: adopted when the registry has none; otherwise
    /// compared, and overwritten only with `prefer` asc. The registry keeps one header image for all its locales, so
    /// the first locale's is taken, and said when the others differ.
    private func pullDefault(_ side: Sides, prefer: PullPreference?, report: inout PullReport) throws(SyncFailure) {
        let (version, found) = side.defaultExperience == nil ? try editedVersion(side.link) : (side.version, side.ascDefault)
        guard let version, let theirs = found else {
            if version == nil { report.notes.append("no App Store version is being edited: no default experience to take") }
            return
        }
        guard let action = theirs.action?.known.flatMap({ Action(rawValue: $0.rawValue) }) else {
            report.notes.append("the default experience's action \(theirs.action?.rawValue ?? "none") is not taken: unknown here")
            return
        }
        let subtitles = Dictionary(
            theirs.localizations.map { ($0.locale, $0.subtitle ?? "") }, uniquingKeysWith: { first, _ in first })
        if let ours = side.defaultExperience {
            let plan = DefaultExperiencePlan.make(
                registry: ours, version: version, asc: theirs, primaryLocale: side.link.primaryLocale, imageMD5: side.imageMD5)
            guard let changes = plan?.changes, !changes.isEmpty else {
                report.defaultExperience = "same"
                return
            }
            report.defaultExperienceChanges = changes
            guard prefer == .asc else {
                report.defaultExperience = prefer == .registry ? "differs: kept the registry's" : "differs"
                return
            }
        }
        let sorted = theirs.localizations.sorted { $0.locale < $1.locale }
        let withImage = sorted.filter { $0.headerImage?.templateURL != nil }
        var image: HeaderImage?
        if let first = withImage.first, let address = first.headerImage?.url(width: 1800, height: 1200) {
            let client = self.client
            do {
                image = try HeaderImage(
                    bytes: try wait { () async throws(ASCClientError) in try await client.downloadImage(from: address) })
            } catch {
                report.notes.append("the default experience's header image was not taken (\(error))")
            }
            if Set(withImage.map { $0.headerImage?.sourceFileChecksum }).count > 1 {
                report.notes.append(
                    "the default experience's locales have different header images there: \(first.locale)'s is taken for all")
            }
        }
        let existed = side.defaultExperience != nil
        do {
            _ = try registry.setDefaultExperience(
                clip: side.link.clip, action: action, localizations: subtitles, image: image?.bytes,
                expectedVersion: side.defaultExperience?.version)
        } catch {
            report.notes.append("the default experience was not taken: \(error.description)")
            return
        }
        report.defaultExperience = existed ? "took App Store Connect's" : "adopted"
    }

    /// An experience only App Store Connect has, registered here with its header image.
    private func adopt(_ theirs: ASCAdvancedExperience, link: AppStoreConnectLink, report: inout PullReport) throws(SyncFailure) {
        guard let json = try converted(theirs, clip: link.clip, report: &report) else { return }
        let image = try downloadedImage(theirs, report: &report)
        let created: AdvancedExperience
        do {
            let outcome = try registry.register(json, image: image?.bytes)
            created = outcome.value
            // What registering it implied (a team, app or clip made, a host claimed): said, as clipctl register says it.
            report.notes += outcome.notes.map { "\(theirs.link): \($0.text)" }
        } catch {
            report.notes.append("\(theirs.link) (\(theirs.id)) not adopted: \(error.description)")
            return
        }
        try registryCall { () throws(RegistryError) in
            try registry.recordASCPull(
                clip: link.clip, experienceID: created.id, seen: seen(theirs), pushedVersion: created.version,
                imageSHA256: created.headerImage, imageMD5: image == nil ? nil : theirs.headerImage?.sourceFileChecksum)
        }
        report.adopted.append((created.id, created.url.canonical))
        progress("adopted \(created.url.canonical) as experience \(created.id)")
    }

    /// App Store Connect's experience in the registry's JSON form (docs/architecture.md#the-http-api), or nil (with a
    /// note) when it holds a value this registry does not know: kept there as is, not adopted.
    private func converted(_ theirs: ASCAdvancedExperience, clip: AppID, report: inout PullReport) throws(SyncFailure) -> JSONValue? {
        // A status or place status unknown here is App Store Connect's business; a card value is the registry's.
        var unknown: [String] = []
        func note<K>(_ field: String, _ value: ASCValue<K>?) {
            if case .unknown(let raw)? = value { unknown.append("App Store Connect sent \(field) \(raw), unknown to this registry") }
        }
        note("action", theirs.action)
        note("businessCategory", theirs.businessCategory)
        note("defaultLanguage", theirs.defaultLanguage)
        for localization in theirs.localizations { note("a localization's language", localization.language) }
        guard unknown.isEmpty else {
            report.notes.append("\(theirs.link) (\(theirs.id)) not taken: " + unknown.joined(separator: "; "))
            return nil
        }
        var cards: [Language: CardText] = [:]
        for localization in theirs.localizations {
            guard let language = localization.language.flatMap({ Language(rawValue: $0.rawValue) }) else { continue }
            cards[language] = CardText(title: localization.title ?? "", subtitle: localization.subtitle ?? "")
        }
        let language = theirs.defaultLanguage.flatMap { Language(rawValue: $0.rawValue) } ?? .EN
        guard cards[language] != nil else {
            report.notes.append("\(theirs.link) (\(theirs.id)) not taken: no card in its default language \(language.tag)")
            return nil
        }
        let url: NormalizedURL
        do { url = try NormalizedURL(theirs.link) } catch {
            report.notes.append("\(theirs.link) (\(theirs.id)) not taken: \(error)")
            return nil
        }
        let experience = SyncPlan.experience(from: theirs, url: url, clip: clip, language: language, cards: cards)
        return ExperienceJSON.portable(experience)
    }

    /// The header image App Store Connect serves for the experience, at Apple's card size; nil (with a note) when it
    /// has none or it cannot be fetched.
    private func downloadedImage(_ theirs: ASCAdvancedExperience, report: inout PullReport) throws(SyncFailure) -> HeaderImage? {
        guard let address = theirs.headerImage?.url(width: HeaderImage.appleSize.width, height: HeaderImage.appleSize.height) else {
            return nil
        }
        let client = self.client
        do {
            let bytes = try wait { () async throws(ASCClientError) in try await client.downloadImage(from: address) }
            return try HeaderImage(bytes: bytes)
        } catch {
            report.notes.append("\(theirs.link): its header image was not taken (\(error))")
            return nil
        }
    }
}

extension JSONValue {
    fileprivate func removing(_ names: String...) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { !names.contains($0.key) })
    }
}
