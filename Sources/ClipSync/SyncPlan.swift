public import AppStoreConnect
public import ClipCore
import StrictJSON

/// What an apply would do to one clip's advanced experiences in App Store Connect, and why: pure (no I/O),
/// from the registry's experiences, what App Store Connect holds (typed resources) and the link records.
/// It lives apart from the store and the client (docs/architecture.md): it needs both models, and neither
/// of them needs it.
public struct SyncPlan: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable {
        case create, update
        /// The URL changed: App Store Connect's `link` is create-only, so the old one is removed and a new one made.
        case recreate
        /// Deleted or deactivated here (or, with --prune, only ever in App Store Connect).
        case remove
        /// Only the header image changed.
        case uploadImage = "upload-image"
        case nothing
    }

    /// One field whose value App Store Connect holds differs from the registry's.
    public struct FieldChange: Sendable, Equatable {
        public var field: String
        public var before: String
        public var after: String
        public init(field: String, before: String, after: String) {
            self.field = field
            self.before = before
            self.after = after
        }
    }

    /// A step App Store Connect would refuse, found before anything is sent, and how to fix it.
    public struct Refusal: Sendable, Equatable {
        public var rule: String
        public var message: String
        public var fix: String
        public init(rule: String, message: String, fix: String) {
            self.rule = rule
            self.message = message
            self.fix = fix
        }
    }

    public struct Step: Sendable, Equatable {
        /// The registry experience, nil for one only App Store Connect has.
        public var experienceID: Int64?
        public var url: String
        public var ascExperienceID: String?
        /// App Store Connect's status, verbatim (a value this registry does not know is kept).
        public var ascState: String?
        public var action: Action
        public var changes: [FieldChange]
        public var refusals: [Refusal]
        /// Changed in App Store Connect since the last pull or push.
        public var drifted: Bool
        /// Things worth saying that change nothing: unknown values kept, an App Store Connect-only experience left alone.
        public var notes: [String]

        public init(
            experienceID: Int64?, url: String, ascExperienceID: String?, ascState: String?, action: Action, changes: [FieldChange],
            refusals: [Refusal], drifted: Bool, notes: [String]
        ) {
            self.experienceID = experienceID
            self.url = url
            self.ascExperienceID = ascExperienceID
            self.ascState = ascState
            self.action = action
            self.changes = changes
            self.refusals = refusals
            self.drifted = drifted
            self.notes = notes
        }
    }

    public init(clip: AppID, steps: [Step], defaultExperience: DefaultExperiencePlan? = nil) {
        self.clip = clip
        self.steps = steps
        self.defaultExperience = defaultExperience
    }

    public var clip: AppID
    public var steps: [Step]
    /// The default experience of the App Store version being edited, when the registry has one for the clip.
    public var defaultExperience: DefaultExperiencePlan?

    /// Steps that would change App Store Connect.
    public var pending: [Step] { steps.filter { $0.action != .nothing } }
    public var refused: [Step] { steps.filter { !$0.refusals.isEmpty } }
    public var isInSync: Bool {
        pending.isEmpty && !steps.contains(where: \.drifted) && (defaultExperience?.action ?? .nothing) == .nothing
    }
    /// Everything App Store Connect would refuse: the steps' refusals, and the default experience's as one step named
    /// after it. An apply sends nothing while any is left; the plan, doctor and the API report them from here.
    public var allRefused: [Step] {
        guard let defaultPlan = defaultExperience, !defaultPlan.refusals.isEmpty else { return refused }
        return refused + [
            Step(
                experienceID: nil, url: "the default experience of \(clip.rawValue)", ascExperienceID: nil, ascState: nil,
                action: .update, changes: defaultPlan.changes, refusals: defaultPlan.refusals, drifted: false, notes: [])
        ]
    }

    /// Pending steps per action, by action name.
    public var pendingCounts: [(action: String, count: Int)] {
        Dictionary(grouping: pending, by: \.action.rawValue).sorted { $0.key < $1.key }.map { ($0.key, $0.value.count) }
    }

    /// Steps per state (`SyncPlan.state(of:)`), in a fixed order.
    public var stateCounts: [(state: String, count: Int)] {
        let states = Dictionary(grouping: steps, by: Self.state(of:))
        return ["in-sync", "pending", "drifted", "asc-only"].compactMap { s in states[s].map { (s, $0.count) } }
    }

    /// - Parameters:
    ///   - experiences: the clip's registry experiences that are not removed.
    ///   - associatedHosts: the hosts whose AASA lists the clip.
    ///   - asc: the clip's advanced experiences in App Store Connect (removed ones left out).
    ///   - imageMD5: the MD5 (hex) of the registry's header images by SHA-256: App Store Connect reports an
    ///     image's `sourceFileChecksum` in MD5, so an image never pushed from here can still be found the same.
    ///   - prune: also remove what App Store Connect has and the registry never had.
    public static func make(
        clip: AppID, experiences: [AdvancedExperience], associatedHosts: Set<String>, asc: [ASCAdvancedExperience],
        link: AppStoreConnectLink, records: [AppStoreConnectSyncRecord], imageMD5: [String: String] = [:], prune: Bool
    ) -> SyncPlan {
        let byASCID = Dictionary(asc.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let byLink = Dictionary(asc.map { ($0.link, $0) }, uniquingKeysWith: { first, _ in first })
        let recordOf = Dictionary(records.map { ($0.experienceID, $0) }, uniquingKeysWith: { first, _ in first })
        let primaryLanguage = link.primaryLocale.flatMap(Language.init(tag:))
        let ordered = experiences.sorted(by: { $0.url.canonical < $1.url.canonical })
        let matched = matches(ordered, recordOf: recordOf, byASCID: byASCID, byLink: byLink)
        let matchOf = matched.matchOf
        var claimed = matched.claimed
        var steps: [Step] = ordered.map { experience in
            var step = step(experience, record: recordOf[experience.id], match: matchOf[experience.id], imageMD5: imageMD5, prune: prune)
            if step.action != .nothing, experience.status != .deactivated {
                step.refusals = refusals(experience, associatedHosts: associatedHosts, primaryLanguage: primaryLanguage)
            }
            return step
        }
        // Pushed once, since removed here: remove there too.
        let live = Set(experiences.map(\.id))
        for record in records.sorted(by: { $0.experienceID < $1.experienceID }) where !live.contains(record.experienceID) {
            let sent = Self.sentCreate(record) ? record.ascLink.flatMap { byLink[$0] } : nil
            guard let match = record.ascExperienceID.flatMap({ byASCID[$0] }) ?? sent, !claimed.contains(match.id) else { continue }
            let id = match.id
            claimed.insert(id)
            steps.append(
                Step(
                    experienceID: record.experienceID, url: match.link, ascExperienceID: id, ascState: match.status?.rawValue,
                    action: .remove, changes: [], refusals: [], drifted: record.ascFingerprint.map { changed(match, since: $0) } ?? false,
                    notes: ["removed from the registry"]))
        }
        // Only App Store Connect has these: removed only when asked to (--prune).
        for other in asc.sorted(by: { $0.link < $1.link }) where !claimed.contains(other.id) {
            steps.append(
                Step(
                    experienceID: nil, url: other.link, ascExperienceID: other.id, ascState: other.status?.rawValue,
                    action: prune ? .remove : .nothing, changes: [], refusals: [], drifted: false,
                    notes: unknownValues(other)
                        + [prune ? "only in App Store Connect" : "only in App Store Connect: kept (asc pull adopts it, --prune removes it)"]
                ))
        }
        return SyncPlan(clip: clip, steps: steps)
    }

    /// The App Store Connect experience that answers for each registry experience, and the ids so claimed.
    /// Each answers for one registry experience at most. The id recorded at the last push wins (the URL
    /// may have changed since); only then does a URL match an unclaimed one, so an experience moved to a
    /// new URL and a new one made at its old URL do not both claim the old one.
    static func matches(
        _ ordered: [AdvancedExperience], recordOf: [Int64: AppStoreConnectSyncRecord], byASCID: [String: ASCAdvancedExperience],
        byLink: [String: ASCAdvancedExperience]
    ) -> (matchOf: [Int64: ASCAdvancedExperience], claimed: Set<String>) {
        var matchOf: [Int64: ASCAdvancedExperience] = [:]
        var claimed = Set<String>()
        for experience in ordered {
            if let id = recordOf[experience.id]?.ascExperienceID, let match = byASCID[id], claimed.insert(id).inserted {
                matchOf[experience.id] = match
            }
        }
        // A create an interrupted apply sent: App Store Connect's copy is at the link it was sent with, whatever the
        // experience's URL is now.
        for experience in ordered where matchOf[experience.id] == nil {
            if let record = recordOf[experience.id], Self.sentCreate(record), let sent = record.ascLink, let match = byLink[sent],
                claimed.insert(match.id).inserted
            {
                matchOf[experience.id] = match
            }
        }
        for experience in ordered where matchOf[experience.id] == nil {
            if let match = byLink[experience.url.canonical], claimed.insert(match.id).inserted { matchOf[experience.id] = match }
        }
        return (matchOf, claimed)
    }

    /// The step for one registry experience and its match in App Store Connect, if any (refusals not yet checked).
    static func step(
        _ experience: AdvancedExperience, record: AppStoreConnectSyncRecord?, match: ASCAdvancedExperience?, imageMD5: [String: String],
        prune: Bool
    ) -> Step {
        var step = Step(
            experienceID: experience.id, url: experience.url.canonical, ascExperienceID: match?.id, ascState: match?.status?.rawValue,
            action: .nothing, changes: [], refusals: [], drifted: false, notes: [])
        if let match {
            step.notes = unknownValues(match)
            if let seen = record?.ascFingerprint, changed(match, since: seen) { step.drifted = true }
        }
        if experience.status == .deactivated {
            // Deactivated here: App Store Connect keeps no deactivated experience of ours (a removal there is final).
            // One matched by URL alone was never pushed from here (made in App Store Connect's pages): only --prune
            // removes it, as for any experience only App Store Connect has.
            if let match {
                let pushedFromHere =
                    record?.ascExperienceID == match.id || (record.map(Self.sentCreate) == true && record?.ascLink == match.link)
                if pushedFromHere || prune {
                    step.action = .remove
                } else {
                    step.notes.append("deactivated here, but never pushed from here: App Store Connect's is kept (--prune removes it)")
                }
            }
            return step
        }
        guard let match else {
            step.action = .create
            return step
        }
        step.changes = fieldChanges(experience, match)
        if match.link != experience.url.canonical {
            step.action = .recreate
            step.changes.insert(FieldChange(field: "link", before: match.link, after: experience.url.canonical), at: 0)
            return step
        }
        let sameChecksum = experience.headerImage.flatMap { imageMD5[$0] }.map { $0 == match.headerImage?.sourceFileChecksum }
        let imageChanged = experience.headerImage != nil && experience.headerImage != record?.pushedImageSHA256 && sameChecksum != true
        if imageChanged {
            step.changes.append(
                // Both sides by MD5, the checksum App Store Connect keeps of the file uploaded.
                FieldChange(
                    field: "headerImage",
                    before: "md5 " + (match.headerImage?.sourceFileChecksum ?? record?.pushedImageMD5 ?? "none"),
                    after: "md5 " + (experience.headerImage.flatMap { imageMD5[$0] } ?? "unknown")))
        }
        step.action = step.changes.isEmpty ? .nothing : step.changes.allSatisfy { $0.field == "headerImage" } ? .uploadImage : .update
        return step
    }

    /// Whether an apply sent this record's create and did not hear back (its App Store Connect copy may exist).
    static func sentCreate(_ record: AppStoreConnectSyncRecord) -> Bool {
        record.ascExperienceID == nil && (record.pendingStep == "create" || record.pendingStep == "recreate")
    }

    /// What App Store Connect would refuse, with the command that fixes it.
    static func refusals(_ experience: AdvancedExperience, associatedHosts: Set<String>, primaryLanguage: Language?) -> [Refusal] {
        var refusals: [Refusal] = []
        if experience.headerImage == nil {
            refusals.append(
                Refusal(
                    rule: "headerImage.required", message: "App Store Connect requires a header image for an advanced experience",
                    fix: "clipctl update \(experience.id) --image FILE (PNG or JPEG, 1800×1200)"))
        }
        if let primaryLanguage, experience.localizations[primaryLanguage] == nil {
            refusals.append(
                Refusal(
                    rule: "localizations.primaryLanguage",
                    message: "no card in \(primaryLanguage.tag), the app's primary language in App Store Connect",
                    fix: "clipctl update \(experience.id) --localization '\(primaryLanguage.tag)=TITLE|SUBTITLE'"))
        }
        if !associatedHosts.contains(experience.url.host) {
            refusals.append(
                Refusal(
                    rule: "link.associatedDomain",
                    message: "the AASA of \(experience.url.host) does not list \(experience.clip.rawValue): ASC cannot verify the link",
                    fix: "clipctl domain add \(experience.clip.rawValue) \(experience.url.host)"))
        }
        return refusals
    }

    /// Values App Store Connect sent that this registry does not know: kept and reported, never fatal.
    public static func unknownValues(_ asc: ASCAdvancedExperience) -> [String] {
        var notes: [String] = []
        func note<K>(_ field: String, _ value: ASCValue<K>?) {
            if case .unknown(let raw)? = value {
                notes.append("App Store Connect sent \(field) \(raw), unknown to this registry: shown as it is")
            }
        }
        note("action", asc.action)
        note("businessCategory", asc.businessCategory)
        note("defaultLanguage", asc.defaultLanguage)
        note("status", asc.status)
        note("placeStatus", asc.placeStatus)
        for l in asc.localizations { note("localizations[\(l.id)].language", l.language) }
        return notes
    }
}
