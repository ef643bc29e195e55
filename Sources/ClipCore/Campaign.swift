public import StrictJSON

/// A campaign (docs/schedules.md#campaigns): a named change to some of a team's experiences for a while. At its start
/// the registry applies `changes` to each experience it selects and keeps what those members were; at its end it sets
/// them back (or to `restore`), except where someone changed a member meanwhile: their change is kept.
public struct Campaign: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case scheduled, running, ended, cancelled
    }

    public var id: Int64
    public var team: TeamID
    /// Unique in its team: 1 to 63 of letters, digits, `.`, `_` and `-`, not digits alone (it is typed on command lines,
    /// where an id names a campaign too).
    public var name: String
    /// Which experiences, when the campaign starts: those the selector selects, or those listed.
    public var selector: ExperienceSelector?
    public var experiences: [Int64]
    /// A partial experience (the members of `changeable`), as an update takes it.
    public var changes: JSONValue
    /// What the members become at the end instead of their values before the start.
    public var restore: JSONValue?
    public var startsAt: Instant
    /// nil: it runs until ended by hand.
    public var endsAt: Instant?
    /// App Store Connect gets its start and its end the clip's lead ahead of them (docs/schedules.md#app-store-connect),
    /// so that devices show its card from its start; otherwise at its times.
    public var pushAhead: Bool
    public var state: State
    public var startedAt: Instant?
    public var endedAt: Instant?
    public var createdAt: String

    public init(
        id: Int64 = 0, team: TeamID, name: String, selector: ExperienceSelector?, experiences: [Int64], changes: JSONValue,
        restore: JSONValue?, startsAt: Instant, endsAt: Instant?, pushAhead: Bool = false, state: State = .scheduled,
        startedAt: Instant? = nil, endedAt: Instant? = nil, createdAt: String = ""
    ) {
        self.id = id
        self.team = team
        self.name = name
        self.selector = selector
        self.experiences = experiences
        self.changes = changes
        self.restore = restore
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.pushAhead = pushAhead
        self.state = state
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.createdAt = createdAt
    }

    /// The members a campaign may change: a card's content. Not the URL, clip, language, status (`deactivate`), window
    /// (a campaign has its own) or labels (they choose who is in a campaign).
    public static let changeable: [String] = [
        "title", "subtitle", "localizations", ExperienceField.action.name, ExperienceField.category.name,
        ExperienceField.poweredBy.name, ExperienceField.headerImage.name, ExperienceField.place.name,
    ]

    public static let nameMax = 63

    /// Whether the campaign is in force at `instant` as its schedule says (`state` aside).
    public func covers(_ instant: Instant) -> Bool {
        instant >= startsAt && endsAt.map { instant < $0 } ?? true
    }

    /// What it will be at `instant` when nothing is done by hand: a scheduled campaign runs from its start, a running
    /// one ends at its end.
    public func state(at instant: Instant) -> State {
        switch state {
        case .scheduled: instant < startsAt ? .scheduled : endsAt.map { instant >= $0 } == true ? .ended : .running
        case .running: endsAt.map { instant >= $0 } == true ? .ended : .running
        case .ended, .cancelled: state
        }
    }

    /// Whether the two are in force together at some moment.
    public func overlaps(_ other: Campaign) -> Bool {
        startsAt < (other.endsAt ?? .latest) && other.startsAt < (endsAt ?? .latest)
    }

    /// The parts of an experience `changes` sets, by name, as overlaps are judged: each member, a card language by
    /// language (`localizations.fr`).
    public static func parts(_ changes: JSONValue) -> Set<String> {
        guard case .object(let members) = changes else { return [] }
        var parts: Set<String> = []
        for (key, value) in members {
            if key == "localizations", case .object(let languages) = value {
                for (tag, _) in languages { parts.insert("localizations." + (Language(tag: tag)?.tag ?? tag)) }
            } else {
                parts.insert(key)
            }
        }
        return parts
    }

    /// The name's rule, and the members of `changes` (and `restore`) a campaign may set.
    public static func check(name: String, changes: JSONValue, restore: JSONValue?) -> [FieldError] {
        var errors: [FieldError] = []
        let allowed = name.utf8.allSatisfy {
            isDigit($0) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        // Not digits alone: a campaign is named by its id or its name, and `12` is an id.
        if name.isEmpty || name.utf8.count > nameMax || !allowed || name.utf8.allSatisfy(isDigit) {
            errors.append(
                FieldError(
                    field: "name", rule: "campaign.name",
                    message: "must be 1 to \(nameMax) letters, digits, '.', '_' or '-', not digits alone, such as summer-2027"))
        }
        for (field, value) in [("changes", changes), ("restore", restore ?? .object([]))] {
            guard case .object(let members) = value else {
                errors.append(FieldError(field: field, rule: "type", message: "must be an object of experience members"))
                continue
            }
            for (key, _) in members where !changeable.contains(key) {
                errors.append(
                    FieldError(
                        field: "\(field).\(key.truncatedForMessage)", rule: "campaign.member",
                        message: "a campaign cannot change \(key.truncatedForMessage): it changes \(changeable.joined(separator: ", "))"))
            }
            if field == "changes", members.isEmpty {
                errors.append(FieldError(field: field, rule: "required", message: "must change at least one member"))
            }
        }
        if let restore, case .object(let members) = restore, !members.isEmpty {
            let set = parts(changes)
            for part in parts(restore) where !set.contains(part) {
                errors.append(
                    FieldError(
                        field: "restore", rule: "campaign.restore", message: "restores \(part), which the campaign does not change"))
            }
        }
        return errors
    }

    /// The values `patch`'s members have in `experience`, in the patch's form: the patch that would set them back. A
    /// card language the experience lacks is `null` (set back: removed).
    public static func values(of experience: AdvancedExperience, for patch: JSONValue) -> JSONValue {
        guard case .object(let members) = patch else { return .object([]) }
        let card = experience.defaultCard
        return .object(
            members.map { key, value in
                switch key {
                case "title": return (key: key, value: .string(card.title))
                case "subtitle": return (key: key, value: .string(card.subtitle))
                case "localizations":
                    guard case .object(let languages) = value else { return (key: key, value: .null) }
                    return (
                        key: key,
                        value: .object(
                            languages.map { tag, _ in
                                let text = Language(tag: tag).flatMap { experience.localizations[$0] }
                                return (
                                    key: tag,
                                    value: text.map { .object([("title", .string($0.title)), ("subtitle", .string($0.subtitle))]) } ?? .null
                                )
                            })
                    )
                default:
                    guard let field = ExperienceField.named[key] else { return (key: key, value: .null) }
                    return (key: key, value: field.value(of: experience).json(field) ?? .null)
                }
            })
    }
}

/// One moment something scheduled happens (docs/schedules.md#the-scheduler): an experience's window opens or closes, a
/// campaign starts or ends.
public struct ScheduledFlip: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case experienceLive = "experience.live"
        case experienceEnded = "experience.ended"
        case campaignStart = "campaign.start"
        case campaignEnd = "campaign.end"
    }

    public let kind: Kind
    /// The experience's or the campaign's id.
    public let subject: Int64
    public let team: TeamID?
    /// The experience's URL, the campaign's name.
    public let name: String
    public let dueAt: Instant
    /// When it was applied; nil while it is to come.
    public let appliedAt: Instant?
    /// Who applied it: `schedule` (the runner of `serve` or `schedule run`) or `hand` (`campaign start|end|cancel`).
    public let by: String?
    /// What it did, as its event says (the experiences a campaign changed and kept).
    public let detail: JSONValue?

    public init(
        kind: Kind, subject: Int64, team: TeamID?, name: String, dueAt: Instant, appliedAt: Instant? = nil, by: String? = nil,
        detail: JSONValue? = nil
    ) {
        self.kind = kind
        self.subject = subject
        self.team = team
        self.name = name
        self.dueAt = dueAt
        self.appliedAt = appliedAt
        self.by = by
        self.detail = detail
    }

    /// A runner looks every second; a flip applied later than this after its time was missed (nothing ran) and is late.
    public static let lateAfterSeconds: Int64 = 5

    public var delaySeconds: Int64? { appliedAt.map { max(0, $0.seconds - dueAt.seconds) } }
    public var isLate: Bool { (delaySeconds ?? 0) > Self.lateAfterSeconds && by == "schedule" }
}

/// One experience of a campaign's preview: its members as they are and as the campaign makes them.
public struct CampaignPreviewLine: Sendable, Equatable {
    public let experience: Int64
    public let url: String
    public let before: JSONValue
    public let after: JSONValue
    /// The running campaign that holds one of these members of it (the start then leaves it alone).
    public let heldBy: String?

    public init(experience: Int64, url: String, before: JSONValue, after: JSONValue, heldBy: String?) {
        self.experience = experience
        self.url = url
        self.before = before
        self.after = after
        self.heldBy = heldBy
    }
}

/// What `campaign revert` did (docs/schedules.md#campaigns): the members set back to what the campaign's fields were
/// before its start, changes made since included; those it could not set back, with why; those removed since.
public struct CampaignRevert: Sendable, Equatable {
    public let campaign: Campaign
    /// The running campaign's end, made first; nil for one that had ended.
    public let end: ScheduledFlip?
    public let reverted: [Int64]
    public let unchanged: [Int64]
    public let kept: [(id: Int64, reason: String)]
    public let removed: [Int64]

    public init(
        campaign: Campaign, end: ScheduledFlip?, reverted: [Int64], unchanged: [Int64], kept: [(id: Int64, reason: String)],
        removed: [Int64]
    ) {
        (self.campaign, self.end, self.reverted, self.unchanged, self.kept, self.removed) = (
            campaign, end, reverted, unchanged, kept, removed
        )
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.campaign == b.campaign && a.end == b.end && a.reverted == b.reverted && a.unchanged == b.unchanged
            && a.kept.map(\.id) == b.kept.map(\.id) && a.kept.map(\.reason) == b.kept.map(\.reason) && a.removed == b.removed
    }
}

/// A campaign as a change of its state by hand left it, with the flip that change applied (none for a cancellation
/// before the start).
public struct CampaignFlip: Sendable, Equatable {
    public let campaign: Campaign
    public let flip: ScheduledFlip?

    public init(campaign: Campaign, flip: ScheduledFlip?) {
        self.campaign = campaign
        self.flip = flip
    }
}
