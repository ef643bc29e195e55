public import ClipCore
public import StrictJSON

/// A campaign (`/v1/campaigns`; docs/schedules.md#campaigns).
extension Campaign: WireShape {
    public var json: JSONValue {
        .object([
            ("id", .integer(id)), ("name", .string(name)), ("team", .string(team.rawValue)),
            ("where", selector.map { .string($0.text) } ?? .null), ("experiences", .array(experiences.map(JSONValue.integer))),
            ("changes", changes), ("restore", restore ?? .null), ("startsAt", .string(startsAt.description)),
            ("endsAt", endsAt.map { .string($0.description) } ?? .null), ("pushAhead", .bool(pushAhead)),
            ("state", .string(state.rawValue)), ("startedAt", startedAt.map { .string($0.description) } ?? .null),
            ("endedAt", endedAt.map { .string($0.description) } ?? .null), ("createdAt", .string(createdAt)),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "campaign")
        let selector: ExperienceSelector?
        do { selector = try (try r.optionalString("where")).map { try ExperienceSelector($0) } } catch { throw r.fail("where") }
        guard let starts = try r.optionalInstant("startsAt") else { throw r.fail("startsAt") }
        self.init(
            id: try r.int64("id"), team: try Self.team(try r.string("team"), r), name: try r.string("name"), selector: selector,
            experiences: try r.int64s("experiences"),
            changes: value["changes"] ?? .object([]), restore: value["restore"].flatMap { $0 == .null ? JSONValue?.none : $0 },
            startsAt: starts,
            endsAt: try r.optionalInstant("endsAt"), pushAhead: value["pushAhead"] == .bool(true),
            state: try r.value("state", as: State.self),
            startedAt: try r.optionalInstant("startedAt"),
            endedAt: try r.optionalInstant("endedAt"), createdAt: try r.string("createdAt"))
    }

    static func team(_ text: String, _ r: WireReader) throws(WireError) -> TeamID {
        do { return try TeamID(text) } catch { throw r.fail("team") }
    }
}

/// One flip of the schedule, to come or applied (`/v1/schedule`, a campaign's timeline; docs/schedules.md#the-scheduler).
extension ScheduledFlip: WireShape {
    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)), ("id", .integer(subject)), ("name", .string(name)),
            ("team", team.map { .string($0.rawValue) } ?? .null), ("dueAt", .string(dueAt.description)),
            ("appliedAt", appliedAt.map { .string($0.description) } ?? .null), ("by", by.map(JSONValue.string) ?? .null),
            ("late", .bool(isLate)), ("delaySeconds", delaySeconds.map(JSONValue.integer) ?? .null), ("detail", detail ?? .null),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "scheduled flip")
        guard let due = try r.optionalInstant("dueAt") else { throw r.fail("dueAt") }
        self.init(
            kind: try r.value("kind", as: Kind.self), subject: try r.int64("id"),
            team: try (try r.optionalString("team")).map { (text) throws(WireError) in try Campaign.team(text, r) },
            name: try r.string("name"),
            dueAt: due, appliedAt: try r.optionalInstant("appliedAt"), by: try r.optionalString("by"),
            detail: value["detail"].flatMap { $0 == .null ? JSONValue?.none : $0 })
    }
}

/// One experience of a campaign's preview: its members now and as the campaign makes them.
extension CampaignPreviewLine: WireShape {
    public var json: JSONValue {
        .object([
            ("id", .integer(experience)), ("url", .string(url)), ("before", before), ("after", after),
            ("heldBy", heldBy.map(JSONValue.string) ?? .null),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "campaign preview")
        self.init(
            experience: try r.int64("id"), url: try r.string("url"), before: value["before"] ?? .null, after: value["after"] ?? .null,
            heldBy: try r.optionalString("heldBy"))
    }
}

/// A campaign started, ended or cancelled by hand: the campaign, and what the flip did.
extension CampaignFlip: WireShape {
    public var json: JSONValue { .object([("campaign", campaign.json), ("flip", flip?.json ?? .null)]) }

    public init(json value: JSONValue) throws(WireError) {
        guard let campaign = value["campaign"] else { throw WireError("a campaign change: campaign is missing") }
        let flip = value["flip"].flatMap { $0 == .null ? JSONValue?.none : $0 }
        self.init(campaign: try Campaign(json: campaign), flip: try flip.map { (json) throws(WireError) in try ScheduledFlip(json: json) })
    }
}

/// A campaign reverted (`POST /v1/campaigns/{id}/revert`).
extension CampaignRevert: WireShape {
    public var json: JSONValue {
        .object([
            ("campaign", campaign.json), ("end", end?.json ?? .null), ("reverted", .array(reverted.map(JSONValue.integer))),
            ("unchanged", .array(unchanged.map(JSONValue.integer))),
            ("kept", .array(kept.map { .object([("id", .integer($0.id)), ("reason", .string($0.reason))]) })),
            ("removed", .array(removed.map(JSONValue.integer))),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "a campaign revert")
        guard let campaign = value["campaign"] else { throw WireError("a campaign revert: campaign is missing") }
        let end = value["end"].flatMap { $0 == .null ? JSONValue?.none : $0 }
        var kept: [(id: Int64, reason: String)] = []
        for item in value["kept"]?.arrayValue ?? [] {
            let k = WireReader(item, "a member kept")
            kept.append((try k.int64("id"), try k.string("reason")))
        }
        self.init(
            campaign: try Campaign(json: campaign), end: try end.map { (json) throws(WireError) in try ScheduledFlip(json: json) },
            reverted: try r.int64s("reverted"), unchanged: try r.int64s("unchanged"), kept: kept, removed: try r.int64s("removed"))
    }
}

/// A campaign with what it changes now, and its timeline (`GET /v1/campaigns/{id}`).
public struct CampaignDetail: WireShape {
    public let campaign: Campaign
    /// Its state at the moment asked for (`at=`), as its schedule makes it.
    public let stateAt: Campaign.State
    public let at: Instant
    public let preview: [CampaignPreviewLine]
    /// Its flips applied, oldest first, then those to come.
    public let timeline: [ScheduledFlip]

    public init(campaign: Campaign, stateAt: Campaign.State, at: Instant, preview: [CampaignPreviewLine], timeline: [ScheduledFlip]) {
        self.campaign = campaign
        self.stateAt = stateAt
        self.at = at
        self.preview = preview
        self.timeline = timeline
    }

    public var json: JSONValue {
        guard case .object(var members) = campaign.json else { return .null }
        members += [
            ("at", .string(at.description)), ("stateAt", .string(stateAt.rawValue)), ("preview", .array(preview.map(\.json))),
            ("timeline", .array(timeline.map(\.json))),
        ]
        return .object(members)
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "campaign")
        guard let at = Instant(canonical: Array(try r.string("at").utf8)) else { throw r.fail("at") }
        self.init(
            campaign: try Campaign(json: value), stateAt: try r.value("stateAt", as: Campaign.State.self), at: at,
            preview: try (value["preview"]?.arrayValue ?? []).map { (json) throws(WireError) in try CampaignPreviewLine(json: json) },
            timeline: try (value["timeline"]?.arrayValue ?? []).map { (json) throws(WireError) in try ScheduledFlip(json: json) })
    }
}

/// The schedule (`GET /v1/schedule`): the flips to come, soonest first, and the latest applied, latest first.
public struct ScheduleListing: WireShape {
    public let upcoming: [ScheduledFlip]
    public let applied: [ScheduledFlip]

    public init(upcoming: [ScheduledFlip], applied: [ScheduledFlip]) {
        self.upcoming = upcoming
        self.applied = applied
    }

    public var json: JSONValue { .object([("upcoming", .array(upcoming.map(\.json))), ("applied", .array(applied.map(\.json)))]) }

    public init(json value: JSONValue) throws(WireError) {
        func flips(_ key: String) throws(WireError) -> [ScheduledFlip] {
            guard let list = value[key]?.arrayValue else { throw WireError("the schedule: \(key) is missing") }
            return try list.map { (json) throws(WireError) in try ScheduledFlip(json: json) }
        }
        self.init(upcoming: try flips("upcoming"), applied: try flips("applied"))
    }
}
