public import ClipCore
import SQLiteDB
import StrictJSON

/// Campaigns (Migrations/0016_schedule_and_campaigns.sql, docs/schedules.md#campaigns): made, listed, started and ended,
/// by the scheduler at their times (Registry+Schedule.swift) or by hand before them.
extension Registry {
    /// What a new campaign is: a `Campaign` whose id, state and times of record the registry sets.
    public typealias CampaignDraft = Campaign

    /// Adds a campaign, scheduled. Refused (422) when its members or window are not a campaign's or its end has passed, when
    /// it names an experience the team does not have (404), when its changes cannot be made to one of them,
    /// and (409) when another campaign of the team changes the same member of one of its experiences while it runs.
    public func addCampaign(_ draft: CampaignDraft) throws(RegistryError) -> WriteOutcome<Campaign> {
        var errors = Campaign.check(name: draft.name, changes: draft.changes, restore: draft.restore)
        if (draft.selector == nil) == draft.experiences.isEmpty {
            errors.append(FieldError(field: "where", rule: "campaign.scope", message: "give either a selector or a list of experiences"))
        }
        if let end = draft.endsAt, end <= draft.startsAt {
            errors.append(
                FieldError(field: "endsAt", rule: "window.order", message: "must be after startsAt \(draft.startsAt): \(end) is not"))
        } else if let end = draft.endsAt, end <= instant {
            // Nothing of it would run: its start and end would only be two late flips that undo each other.
            errors.append(FieldError(field: "endsAt", rule: "campaign.past", message: "\(end) has passed: the campaign would never run"))
        }
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        var selector = draft.selector
        if let given = selector {
            let filter = try filter(given, team: draft.team)
            selector?.host = filter.host
            selector?.clip = filter.clip?.rawValue
        }
        return try writeOutcome {
            guard
                try db.query("SELECT 1 FROM campaign WHERE team_id = ? AND name = ?", [.text(draft.team.rawValue), .text(draft.name)])
                    .isEmpty
            else { throw RegistryError.conflict("team \(draft.team.rawValue) already has a campaign named \(draft.name)") }
            var campaign = Campaign(
                team: draft.team, name: draft.name, selector: selector, experiences: draft.experiences, changes: draft.changes,
                restore: draft.restore, startsAt: draft.startsAt, endsAt: draft.endsAt, pushAhead: draft.pushAhead, createdAt: timestamp())
            let members = try campaignMembers(campaign)
            // A selector is read again at the start (docs/schedules.md#campaigns): stations imported meanwhile count.
            let warnings =
                members.isEmpty
                ? [
                    FieldError(
                        field: "where", rule: "campaign.empty",
                        message:
                            "selects none of team \(draft.team.rawValue)'s experiences now; those it selects when it starts are changed")
                ] : []
            try checkChanges(campaign, on: members)
            try checkOverlaps(campaign, members: Set(members.map(\.id)))
            let notes = try ensureTeam(draft.team)
            try db.execute(
                """
                INSERT INTO campaign(team_id, name, selector, experiences, changes, restore, starts_at, ends_at, push_ahead, state, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?)
                """,
                [
                    .text(campaign.team.rawValue), .text(campaign.name), .text(campaign.selector?.text),
                    .text(JSONWriter.string(.array(campaign.experiences.map(JSONValue.integer)))),
                    .text(JSONWriter.string(campaign.changes)),
                    .text(campaign.restore.map { JSONWriter.string($0) }), .text(campaign.startsAt.description),
                    .text(campaign.endsAt?.description), .integer(campaign.pushAhead ? 1 : 0), .text(campaign.createdAt),
                ])
            campaign.id = db.lastInsertRowID
            try recordChange(entity: .campaign, id: String(campaign.id), action: .create, before: nil, after: AuditForm.campaign(campaign))
            return WriteOutcome(campaign, created: true, notes: notes, warnings: warnings)
        }
    }

    /// The campaigns of `team` (nil: every team), newest start first.
    public func campaigns(team: TeamID?) throws(RegistryError) -> [Campaign] {
        try guarded {
            try db.query(
                "SELECT * FROM campaign WHERE ?1 IS NULL OR team_id = ?1 ORDER BY starts_at DESC, id DESC", [.text(team?.rawValue)]
            )
            .map(readCampaign)
        }
    }

    /// A campaign by id or by name in `team`'s campaigns (nil: any team's, by id or by a name only one team uses);
    /// another team's is not found.
    public func campaign(_ reference: String, team: TeamID?) throws(RegistryError) -> Campaign {
        try guarded { try loadCampaign(reference, team: team) }
    }

    func loadCampaign(_ reference: String, team: TeamID?) throws -> Campaign {
        let rows: [Row]
        if let id = ExperienceReference.id(reference) {
            rows = try db.query(
                "SELECT * FROM campaign WHERE id = ? AND (?2 IS NULL OR team_id = ?2)", [.integer(id), .text(team?.rawValue)])
        } else {
            rows = try db.query(
                "SELECT * FROM campaign WHERE name = ? AND (?2 IS NULL OR team_id = ?2) ORDER BY id",
                [.text(reference), .text(team?.rawValue)])
        }
        guard rows.count == 1 else {
            if rows.count > 1 { throw RegistryError.conflict("several teams have a campaign named \(reference): name it by id") }
            throw RegistryError.notFound("campaign \(reference.truncatedForMessage)")
        }
        return try readCampaign(rows[0])
    }

    /// What the campaign changes on each experience it selects now (or, running, changed): each one's members as they are
    /// and as the campaign makes them, with whether another running campaign holds them (then left alone at the start).
    public func campaignPreview(_ campaign: Campaign) throws(RegistryError) -> [CampaignPreviewLine] {
        try guarded {
            let members = try campaignMembers(campaign)
            let held = try heldParts(except: campaign.id)
            return try members.map { e in
                let before = Campaign.values(of: e, for: campaign.changes)
                let (draft, _) = try decode(campaign.changes, base: e)
                let after = Campaign.values(of: draft, for: campaign.changes)
                let holder = held[e.id]?.first { !$0.parts.isDisjoint(with: Campaign.parts(campaign.changes)) }?.name
                return CampaignPreviewLine(experience: e.id, url: e.url.canonical, before: before, after: after, heldBy: holder)
            }
        }
    }

    /// Starts a scheduled campaign now, before its time (by hand).
    public func startCampaign(_ reference: String, team: TeamID?) throws(RegistryError) -> WriteOutcome<CampaignFlip> {
        try writeOutcome {
            let campaign = try loadCampaign(reference, team: team)
            guard campaign.state == .scheduled else {
                throw RegistryError.conflict("campaign \(campaign.name) is \(campaign.state.rawValue): only a scheduled campaign starts")
            }
            let flip = try applyCampaignStart(campaign, due: instant, by: "hand")
            return WriteOutcome(CampaignFlip(campaign: try loadCampaign(String(campaign.id), team: nil), flip: flip))
        }
    }

    /// Ends a running campaign now (its changes undone), or cancels one: a scheduled one never starts, a running one
    /// ends as `end` ends it, and stays `cancelled`.
    public func endCampaign(_ reference: String, team: TeamID?, cancel: Bool) throws(RegistryError) -> WriteOutcome<CampaignFlip> {
        try writeOutcome {
            let campaign = try loadCampaign(reference, team: team)
            let now = instant
            var flip: ScheduledFlip?
            switch (campaign.state, cancel) {
            case (.running, _):
                flip = try applyCampaignEnd(campaign, due: now, by: "hand", cancelled: cancel)
            case (.scheduled, true):
                try db.execute(
                    "UPDATE campaign SET state = 'cancelled', ended_at = ? WHERE id = ?", [.text(now.description), .integer(campaign.id)])
                try recordCampaignState(campaign)
            default:
                let verb = cancel ? "cancelled" : "ended"
                if campaign.state == .ended || campaign.state == .cancelled {
                    throw RegistryError.conflict("campaign \(campaign.name) is already \(campaign.state.rawValue)")
                }
                throw RegistryError.conflict(
                    "campaign \(campaign.name) is \(campaign.state.rawValue): it cannot be \(verb) before it starts (cancel it, or start it first)"
                )
            }
            return WriteOutcome(CampaignFlip(campaign: try loadCampaign(String(campaign.id), team: nil), flip: flip))
        }
    }

    /// Sets every member a campaign changed back to what the campaign's fields were before its start, changes made since
    /// included (`end` keeps those), in one transaction with a change record per experience it changes; a running
    /// campaign ends first (docs/schedules.md#campaigns). A member another running campaign holds is left alone.
    public func revertCampaign(_ reference: String, team: TeamID?) throws(RegistryError) -> WriteOutcome<CampaignRevert> {
        try writeOutcome {
            var campaign = try loadCampaign(reference, team: team)
            guard campaign.startedAt != nil else {
                throw RegistryError.conflict(
                    "campaign \(campaign.name) is \(campaign.state.rawValue): it never started, so nothing of it is to revert")
            }
            var end: ScheduledFlip?
            if campaign.state == .running {
                end = try applyCampaignEnd(campaign, due: instant, by: "hand", cancelled: false)
                campaign = try loadCampaign(String(campaign.id), team: nil)
            }
            let held = try heldParts(except: campaign.id)
            let parts = Campaign.parts(campaign.changes)
            var reverted: [Int64] = [], unchanged: [Int64] = [], kept: [(id: Int64, reason: String)] = [], removed: [Int64] = []
            for row in try db.query(
                "SELECT experience_id, before FROM campaign_experience WHERE campaign_id = ? ORDER BY experience_id",
                [.integer(campaign.id)])
            {
                let id = Int64(try row.int("experience_id"))
                guard let e = try loadExperience(id: id) else {
                    removed.append(id)
                    continue
                }
                if let holder = held[id]?.first(where: { !$0.parts.isDisjoint(with: parts) }) {
                    kept.append((id, "campaign \(holder.name) holds it"))
                    continue
                }
                try db.execute("SAVEPOINT campaign_member")
                do {
                    let (draft, _) = try decode(try JSONParser.parse(try row.string("before")), base: e)
                    let (saved, _) = try applyUpdate(draft, over: e, imageCarried: false)
                    try db.execute("RELEASE campaign_member")
                    if saved == nil { unchanged.append(id) } else { reverted.append(id) }
                } catch {
                    try db.execute("ROLLBACK TO campaign_member")
                    try db.execute("RELEASE campaign_member")
                    guard Self.isRowRefusal(error) else { throw error }
                    kept.append((id, Self.fieldErrors(error).map(\.description).joined(separator: "; ")))
                }
            }
            return WriteOutcome(
                CampaignRevert(campaign: campaign, end: end, reverted: reverted, unchanged: unchanged, kept: kept, removed: removed))
        }
    }

    /// The experiences as the campaigns' schedule makes them at `at` (docs/schedules.md#campaigns, "what will it serve
    /// then?"): a scheduled campaign in force then applied to those it selects now, a running one that has ended by then
    /// set back where nobody changed its members. Unchanged when no campaign is scheduled or running.
    /// `aheadSeconds`: a campaign pushed ahead (`pushAhead`) is taken as it will be that much later, as App Store Connect
    /// should hold it (docs/schedules.md#app-store-connect).
    public func projected(
        _ experiences: [AdvancedExperience], at: Instant, aheadSeconds: Int64 = 0
    ) throws(RegistryError) -> [AdvancedExperience] {
        try guarded { try project(experiences, at: at, aheadSeconds: aheadSeconds) }
    }

    func project(_ experiences: [AdvancedExperience], at: Instant, aheadSeconds: Int64 = 0) throws -> [AdvancedExperience] {
        guard !experiences.isEmpty else { return experiences }
        let campaigns = try db.query("SELECT * FROM campaign WHERE state IN ('scheduled', 'running') ORDER BY starts_at, id").map(
            readCampaign)
        guard !campaigns.isEmpty else { return experiences }
        var result = experiences
        for campaign in campaigns {
            let moment = campaign.pushAhead ? Instant(seconds: min(Instant.latest.seconds, at.seconds + aheadSeconds)) : at
            switch (campaign.state, campaign.state(at: moment)) {
            case (.scheduled, .running):
                let members = Set(try campaignMembers(campaign).map(\.id))
                for i in result.indices where members.contains(result[i].id) {
                    if let (draft, _) = try? decode(campaign.changes, base: result[i]) { result[i] = draft }
                }
            case (.running, .ended):
                let rows = try db.query(
                    "SELECT experience_id, before, during FROM campaign_experience WHERE campaign_id = ? AND outcome = 'applied'",
                    [.integer(campaign.id)])
                var held: [Int64: (JSONValue, JSONValue)] = [:]
                for row in rows {
                    held[Int64(try row.int("experience_id"))] = (
                        try JSONParser.parse(try row.string("before")), try JSONParser.parse(try row.string("during"))
                    )
                }
                for i in result.indices {
                    guard let (before, during) = held[result[i].id] else { continue }
                    let now = Campaign.values(of: result[i], for: campaign.changes)
                    let back = (now.objectMembers ?? []).filter { $0.value == during[$0.key] }.map {
                        (key: $0.key, value: campaign.restore?[$0.key] ?? before[$0.key] ?? .null)
                    }
                    if !back.isEmpty, let (draft, _) = try? decode(.object(back), base: result[i]) { result[i] = draft }
                }
            default: continue
            }
        }
        return result
    }

    // MARK: Flips

    /// Inside a write: makes a campaign's changes to each experience it selects (those another running campaign holds
    /// for the same members, and those the changes cannot be made to, left alone and named), and marks it running.
    func applyCampaignStart(_ campaign: Campaign, due: Instant, by: String) throws -> ScheduledFlip? {
        let members = try campaignMembers(campaign)
        let held = try heldParts(except: campaign.id)
        let parts = Campaign.parts(campaign.changes)
        var changed: [Int64] = [], unchanged: [Int64] = [], skipped: [JSONValue] = []
        for e in members {
            if let holder = held[e.id]?.first(where: { !$0.parts.isDisjoint(with: parts) }) {
                skipped.append(.object([("id", .integer(e.id)), ("reason", .string("campaign \(holder.name) holds it"))]))
                continue
            }
            try db.execute("SAVEPOINT campaign_member")
            do {
                let before = Campaign.values(of: e, for: campaign.changes)
                let (draft, _) = try decode(campaign.changes, base: e)
                let (saved, _) = try applyUpdate(draft, over: e, imageCarried: false)
                let during = Campaign.values(of: saved ?? e, for: campaign.changes)
                try db.execute(
                    "INSERT INTO campaign_experience(campaign_id, experience_id, before, during, outcome) VALUES (?, ?, ?, ?, 'applied')",
                    [.integer(campaign.id), .integer(e.id), .text(JSONWriter.string(before)), .text(JSONWriter.string(during))])
                try db.execute("RELEASE campaign_member")
                if saved == nil { unchanged.append(e.id) } else { changed.append(e.id) }
            } catch {
                try db.execute("ROLLBACK TO campaign_member")
                try db.execute("RELEASE campaign_member")
                guard Self.isRowRefusal(error) else { throw error }
                let reason = Self.fieldErrors(error).map(\.description).joined(separator: "; ")
                skipped.append(.object([("id", .integer(e.id)), ("reason", .string(reason))]))
            }
        }
        let now = instant
        try db.execute(
            "UPDATE campaign SET state = 'running', started_at = ? WHERE id = ?", [.text(now.description), .integer(campaign.id)])
        try recordCampaignState(campaign)
        let detail: JSONValue = .object([
            ("changed", .integer(Int64(changed.count))), ("unchanged", .integer(Int64(unchanged.count))), ("skipped", .array(skipped)),
        ])
        return try recordFlip(
            ScheduledFlip(
                kind: .campaignStart, subject: campaign.id, team: campaign.team, name: campaign.name, dueAt: due, appliedAt: now, by: by,
                detail: detail), event: .campaignStarted)
    }

    /// Inside a write: sets back each member the campaign changed that still has the campaign's value (to its value
    /// before, or to `restore`), keeps those changed meanwhile, and marks it ended (or cancelled).
    func applyCampaignEnd(_ campaign: Campaign, due: Instant, by: String, cancelled: Bool) throws -> ScheduledFlip? {
        let rows = try db.query(
            "SELECT experience_id, before, during FROM campaign_experience WHERE campaign_id = ? AND outcome = 'applied' ORDER BY experience_id",
            [.integer(campaign.id)])
        var reverted: [Int64] = [], kept: [JSONValue] = [], removed: [Int64] = []
        for row in rows {
            let id = Int64(try row.int("experience_id"))
            func mark(_ outcome: String) throws {
                try db.execute(
                    "UPDATE campaign_experience SET outcome = ? WHERE campaign_id = ? AND experience_id = ?",
                    [.text(outcome), .integer(campaign.id), .integer(id)])
            }
            guard let e = try loadExperience(id: id) else {
                removed.append(id)
                try mark("removed")
                continue
            }
            let before = try JSONParser.parse(try row.string("before")), during = try JSONParser.parse(try row.string("during"))
            let now = Campaign.values(of: e, for: campaign.changes)
            var patch: [(key: String, value: JSONValue)] = [], keptMembers: [String] = []
            for (key, value) in now.objectMembers ?? [] {
                if value == during[key] {
                    patch.append((key: key, value: campaign.restore?[key] ?? before[key] ?? .null))
                } else {
                    keptMembers.append(key)
                }
            }
            if !keptMembers.isEmpty {
                kept.append(.object([("id", .integer(id)), ("members", .array(keptMembers.map(JSONValue.string)))]))
            }
            guard !patch.isEmpty else {
                try mark("kept")
                continue
            }
            try db.execute("SAVEPOINT campaign_member")
            do {
                let (draft, _) = try decode(.object(patch), base: e)
                _ = try applyUpdate(draft, over: e, imageCarried: false)
                try db.execute("RELEASE campaign_member")
                reverted.append(id)
                try mark("reverted")
            } catch {
                try db.execute("ROLLBACK TO campaign_member")
                try db.execute("RELEASE campaign_member")
                guard Self.isRowRefusal(error) else { throw error }
                kept.append(
                    .object([
                        ("id", .integer(id)), ("members", .array(patch.map { .string($0.key) })),
                        ("reason", .string(Self.fieldErrors(error).map(\.description).joined(separator: "; "))),
                    ]))
                try mark("kept")
            }
        }
        let now = instant
        try db.execute(
            "UPDATE campaign SET state = ?, ended_at = ? WHERE id = ?",
            [.text(cancelled ? "cancelled" : "ended"), .text(now.description), .integer(campaign.id)])
        try recordCampaignState(campaign)
        let detail: JSONValue = .object([
            ("reverted", .integer(Int64(reverted.count))), ("kept", .array(kept)), ("removed", .array(removed.map(JSONValue.integer))),
            ("cancelled", .bool(cancelled)),
        ])
        return try recordFlip(
            ScheduledFlip(
                kind: .campaignEnd, subject: campaign.id, team: campaign.team, name: campaign.name, dueAt: due, appliedAt: now, by: by,
                detail: detail), event: .campaignEnded)
    }

    // MARK: Parts

    /// The team's experiences the campaign changes: while scheduled, those it selects now; since it started, those it changed.
    func campaignMembers(_ campaign: Campaign) throws -> [AdvancedExperience] {
        if campaign.state != .scheduled {
            return try db.query(
                "SELECT experience_id FROM campaign_experience WHERE campaign_id = ? ORDER BY experience_id", [.integer(campaign.id)]
            ).compactMap { try loadExperience(id: Int64(try $0.int("experience_id"))) }
        }
        if let selector = campaign.selector { return try experiences(try filter(selector, team: campaign.team)) }
        return try campaign.experiences.map { id in
            guard let e = try loadExperience(id: id), e.clip.team == campaign.team else { throw RegistryError.notFound("experience \(id)") }
            return e
        }
    }

    /// Refused (422, naming the experience) when the changes cannot be made to one of `members`.
    func checkChanges(_ campaign: Campaign, on members: [AdvancedExperience]) throws {
        for e in members {
            do {
                let (draft, _) = try decode(campaign.changes, base: e)
                try checkImage(draft.headerImage, team: e.clip.team, carried: false)
                if let restore = campaign.restore { _ = try decode(restore, base: draft) }
            } catch RegistryError.invalid(let errors) {
                throw RegistryError.invalid(
                    errors.map { FieldError(field: "changes.\($0.field)", rule: $0.rule, message: "experience \(e.id): \($0.message)") })
            }
        }
    }

    /// Refused (409, naming both) when a campaign of the same team that runs at the same time changes a member of the
    /// same experience.
    func checkOverlaps(_ campaign: Campaign, members: Set<Int64>) throws {
        let parts = Campaign.parts(campaign.changes)
        let others = try db.query(
            "SELECT * FROM campaign WHERE team_id = ? AND state IN ('scheduled', 'running') AND id != ?",
            [.text(campaign.team.rawValue), .integer(campaign.id)]
        ).map(readCampaign)
        for other in others where other.overlaps(campaign) {
            let shared = parts.intersection(Campaign.parts(other.changes))
            guard !shared.isEmpty else { continue }
            let both = members.intersection(try campaignMembers(other).map(\.id)).sorted()
            guard let first = both.first else { continue }
            throw RegistryError.conflict(
                "campaigns \(campaign.name) and \(other.name) both change \(shared.sorted().joined(separator: ", ")) of \(both.count) "
                    + "experience\(both.count == 1 ? "" : "s") (such as \(first)) while both run: change their times, members or fields")
        }
    }

    /// The members running campaigns hold on each experience (the parts of their changes), but `except`'s.
    func heldParts(except campaign: Int64) throws -> [Int64: [(name: String, parts: Set<String>)]] {
        var held: [Int64: [(name: String, parts: Set<String>)]] = [:]
        for row in try db.query(
            """
            SELECT m.experience_id, c.name, c.changes FROM campaign_experience m JOIN campaign c ON c.id = m.campaign_id
            WHERE c.state = 'running' AND m.outcome = 'applied' AND c.id != ?
            """, [.integer(campaign)])
        {
            let parts = Campaign.parts(try JSONParser.parse(try row.string("changes")))
            held[Int64(try row.int("experience_id")), default: []].append((name: try row.string("name"), parts: parts))
        }
        return held
    }

    func recordCampaignState(_ before: Campaign) throws {
        let after = try loadCampaign(String(before.id), team: nil)
        try recordChange(
            entity: .campaign, id: String(before.id), action: .update, before: AuditForm.campaign(before), after: AuditForm.campaign(after))
    }

    func readCampaign(_ row: Row) throws -> Campaign {
        func instant(_ column: String) throws -> Instant? {
            try row.optionalString(column).map { text in
                guard let instant = Instant(canonical: Array(text.utf8)) else {
                    throw RegistryError.storage("\(path): campaign \(try row.int("id")) has a malformed \(column)")
                }
                return instant
            }
        }
        return Campaign(
            id: Int64(try row.int("id")), team: try TeamID(try row.string("team_id")), name: try row.string("name"),
            selector: try row.optionalString("selector").map { try ExperienceSelector($0) },
            experiences: (try JSONParser.parse(try row.string("experiences")).arrayValue ?? []).compactMap {
                if case .integer(let n) = $0 { n } else { nil }
            },
            changes: try JSONParser.parse(try row.string("changes")),
            restore: try row.optionalString("restore").map { try JSONParser.parse($0) },
            startsAt: try instant("starts_at") ?? .earliest, endsAt: try instant("ends_at"),
            pushAhead: try row.int("push_ahead") != 0, state: Campaign.State(rawValue: try row.string("state")) ?? .ended,
            startedAt: try instant("started_at"), endedAt: try instant("ended_at"), createdAt: try row.string("created_at"))
    }
}
