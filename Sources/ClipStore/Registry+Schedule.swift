public import ClipCore
import SQLiteDB
import StrictJSON

/// The scheduler (docs/schedules.md#the-scheduler): what falls due when an experience's window opens or closes and when a
/// campaign starts or ends, applied once however many runners there are and however long none ran.
///
/// The registry's own surfaces need no flip: they read each experience's window against the clock. A flip is what
/// happens beside them: a campaign's changes, and the events (`experience.live`, `experience.ended`, `campaign.*`). One
/// sweep is one write transaction: it takes the window edges after `schedule_clock.swept_until` up to now and the
/// campaigns whose time has come, applies them in time order, records each in `schedule_flip` and moves
/// `swept_until` to now. Two runners are serialized by the write lock (the second finds nothing left); a runner killed
/// inside a sweep leaves nothing of it, and the next sweep applies the same flips, later.
extension Registry {
    /// Applies every flip due by now, in time order, in one transaction; the flips applied.
    @discardableResult
    public func runSchedule() throws(RegistryError) -> [ScheduledFlip] {
        try write {
            let now = instant
            let swept = try sweptUntil()
            var due: [(at: Instant, order: Int, apply: () throws -> ScheduledFlip?)] = []
            if now > swept {
                for edge in try windowEdges(after: swept, through: now) {
                    due.append((edge.at, 0, { try self.applyWindowEdge(edge, now: now) }))
                }
            }
            for campaign in try db.query(
                "SELECT * FROM campaign WHERE state IN ('scheduled', 'running') AND (starts_at <= ?1 AND state = 'scheduled' OR ends_at <= ?1)",
                [.text(now.description)]
            ).map(readCampaign) {
                var current = campaign
                if campaign.state == .scheduled {
                    due.append((campaign.startsAt, 1, { try self.applyCampaignStart(campaign, due: campaign.startsAt, by: "schedule") }))
                    current.state = .running
                }
                if let end = campaign.endsAt, end <= now {
                    let running = current
                    due.append((end, 2, { try self.applyCampaignEnd(running, due: end, by: "schedule", cancelled: false) }))
                }
            }
            due.sort { ($0.at, $0.order) < ($1.at, $1.order) }
            var applied: [ScheduledFlip] = []
            for flip in due { if let done = try flip.apply() { applied.append(done) } }
            if now > swept { try db.execute("UPDATE schedule_clock SET swept_until = ? WHERE id = 1", [.text(now.description)]) }
            return applied
        }
    }

    /// Whether a sweep has anything to apply now (a read: the runner asks every second and writes only when it has),
    /// or has not swept for `sweepAtLeastEvery` seconds (so that the span the next one reads stays short).
    public func scheduleIsDue(sweepAtLeastEvery: Int64 = 3600) throws(RegistryError) -> Bool {
        try guarded {
            let now = instant, swept = try sweptUntil()
            if now.seconds - swept.seconds >= sweepAtLeastEvery { return true }
            if now > swept, !(try windowEdges(after: swept, through: now, limit: 1).isEmpty) { return true }
            return
                !(try db.query(
                    "SELECT 1 FROM campaign WHERE state IN ('scheduled', 'running') AND (starts_at <= ?1 AND state = 'scheduled' OR ends_at <= ?1) LIMIT 1",
                    [.text(now.description)]
                ).isEmpty)
        }
    }

    /// The flips to come, soonest first: window edges of active experiences after now and before `until`, and the
    /// campaigns' starts and ends, for `team` (nil: every team).
    public func upcomingFlips(team: TeamID?, until: Instant? = nil, limit: Int = 100) throws(RegistryError) -> [ScheduledFlip] {
        try guarded {
            let now = instant, end = until ?? .latest
            var flips = try windowEdges(after: now, through: end, team: team, limit: limit).map { edge in
                ScheduledFlip(kind: edge.kind, subject: edge.id, team: edge.team, name: edge.url, dueAt: edge.at)
            }
            for campaign in try campaigns(team: team) where campaign.state == .scheduled || campaign.state == .running {
                if campaign.state == .scheduled, campaign.startsAt <= end {
                    flips.append(
                        ScheduledFlip(
                            kind: .campaignStart, subject: campaign.id, team: campaign.team, name: campaign.name, dueAt: campaign.startsAt))
                }
                if let ends = campaign.endsAt, ends <= end {
                    flips.append(
                        ScheduledFlip(kind: .campaignEnd, subject: campaign.id, team: campaign.team, name: campaign.name, dueAt: ends))
                }
            }
            return Array(flips.sorted { ($0.dueAt, $0.kind.rawValue) < ($1.dueAt, $1.kind.rawValue) }.prefix(limit))
        }
    }

    /// The flips applied, latest first, for `team` (nil: every team).
    public func appliedFlips(team: TeamID?, limit: Int = 100) throws(RegistryError) -> [ScheduledFlip] {
        try guarded {
            try db.query(
                "SELECT * FROM schedule_flip WHERE ?1 IS NULL OR team_id = ?1 ORDER BY id DESC LIMIT ?2",
                [.text(team?.rawValue), .integer(Int64(limit))]
            ).map { row in
                ScheduledFlip(
                    kind: ScheduledFlip.Kind(rawValue: try row.string("kind")) ?? .experienceLive, subject: Int64(try row.int("subject")),
                    team: try row.optionalString("team_id").map { try TeamID($0) }, name: try row.string("name"),
                    dueAt: try storedInstant(row, "due_at"), appliedAt: try storedInstant(row, "applied_at"), by: try row.string("by"),
                    detail: try row.optionalString("detail").map { try JSONParser.parse($0) })
            }
        }
    }

    // MARK: Steps

    struct WindowEdge {
        let kind: ScheduledFlip.Kind
        let id: Int64
        let url: String
        let team: TeamID
        let at: Instant
    }

    /// The edges of windows in (`after`, `through`] of experiences not removed, each one set before it (an edge at or
    /// before the write that set the window happened by that write: `window_set_at`, Migrations/0016).
    func windowEdges(after: Instant, through: Instant, team: TeamID? = nil, limit: Int = Int(Int32.max)) throws -> [WindowEdge] {
        var edges: [WindowEdge] = []
        for (column, kind) in [("live_from", ScheduledFlip.Kind.experienceLive), ("live_until", .experienceEnded)] {
            let rows = try db.query(
                """
                SELECT e.id, e.url, a.team_id, e.\(column) AS at FROM advanced_experience e
                JOIN clip c ON c.bundle_id = e.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
                WHERE e.\(column) > ?1 AND e.\(column) <= ?2 AND e.removed_at IS NULL AND e.status = 'ACTIVE'
                  AND (e.window_set_at IS NULL OR e.\(column) > e.window_set_at) AND (?3 IS NULL OR a.team_id = ?3)
                ORDER BY e.\(column), e.id LIMIT ?4
                """, [.text(after.description), .text(through.description), .text(team?.rawValue), .integer(Int64(limit))])
            for row in rows {
                edges.append(
                    WindowEdge(
                        kind: kind, id: Int64(try row.int("id")), url: try row.string("url"), team: try TeamID(try row.string("team_id")),
                        at: try storedInstant(row, "at")))
            }
        }
        return edges.sorted { ($0.at, $0.kind.rawValue, $0.id) < ($1.at, $1.kind.rawValue, $1.id) }
    }

    /// An experience's window opened or closed: its event, with the experience as it is now.
    func applyWindowEdge(_ edge: WindowEdge, now: Instant) throws -> ScheduledFlip? {
        guard let e = try loadExperience(id: edge.id) else { return nil }
        let flip = ScheduledFlip(
            kind: edge.kind, subject: e.id, team: e.clip.team, name: e.url.canonical, dueAt: edge.at, appliedAt: now, by: "schedule")
        return try recordFlip(flip, event: edge.kind == .experienceLive ? .experienceLive : .experienceEnded)
    }

    /// Records an applied flip and queues its event: data the flip's subject, name and team, when it was due and applied,
    /// whether it was late, and what it did. A flip already recorded is not recorded again (nil).
    @discardableResult
    func recordFlip(_ flip: ScheduledFlip, event: WebhookEventType) throws -> ScheduledFlip? {
        guard
            try db.query(
                "SELECT 1 FROM schedule_flip WHERE kind = ? AND subject = ? AND due_at = ?",
                [.text(flip.kind.rawValue), .integer(flip.subject), .text(flip.dueAt.description)]
            ).isEmpty
        else { return nil }
        try db.execute(
            "INSERT INTO schedule_flip(kind, subject, team_id, name, due_at, applied_at, by, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(flip.kind.rawValue), .integer(flip.subject), .text(flip.team?.rawValue), .text(flip.name),
                .text(flip.dueAt.description),
                .text((flip.appliedAt ?? instant).description), .text(flip.by ?? "schedule"),
                .text(flip.detail.map { JSONWriter.string($0) }),
            ])
        let subject: (String, JSONValue) =
            flip.kind == .experienceLive || flip.kind == .experienceEnded ? ("url", .string(flip.name)) : ("name", .string(flip.name))
        try emitWebhookEvent(
            event, teams: flip.team.map { [$0] } ?? [],
            data: .object(
                [
                    ("id", .integer(flip.subject)), subject, ("team", flip.team.map { .string($0.rawValue) } ?? .null),
                    ("dueAt", .string(flip.dueAt.description)), ("appliedAt", .string((flip.appliedAt ?? instant).description)),
                    ("late", .bool(flip.isLate)), ("delaySeconds", .integer(flip.delaySeconds ?? 0)),
                ] + (flip.detail?.objectMembers ?? [])))
        return flip
    }

    func sweptUntil() throws -> Instant {
        guard let row = try db.query("SELECT swept_until FROM schedule_clock WHERE id = 1").first else { return instant }
        return try storedInstant(row, "swept_until")
    }

    func storedInstant(_ row: Row, _ column: String) throws -> Instant {
        let text = try row.string(column)
        guard let instant = Instant(canonical: Array(text.utf8)) else {
            throw RegistryError.storage("\(path): a malformed time in \(column): \(text.prefix(40))")
        }
        return instant
    }
}

/// App Store Connect in time (docs/schedules.md#app-store-connect): what serve's scheduler has pushed, and from when on
/// it has still to look.
extension Registry {
    /// The moment up to which scheduled App Store Connect changes were pushed.
    public func ascSweptUntil() throws(RegistryError) -> Instant {
        try guarded {
            guard let row = try db.query("SELECT asc_swept_until FROM schedule_clock WHERE id = 1").first,
                let text = try row.optionalString("asc_swept_until"), let at = Instant(canonical: Array(text.utf8))
            else { return instant }
            return at
        }
    }

    /// The scheduled App Store Connect changes of a linked clip that fell due in (`after`, `through`]: an experience's
    /// creation at `liveFrom − lead` (or when its window was set, if that was later), its removal at `liveUntil`, and a
    /// window set meanwhile (docs/schedules.md#app-store-connect). A window set in the second `after` names is taken
    /// again: a look in that second may have come before the write (the caller drops what it pushed already). Read
    /// through the window indexes: a clip of 100,000 experiences costs three index ranges.
    public func ascPushesDue(
        clip: AppID, leadSeconds: Int64, after: Instant, through: Instant
    ) throws(RegistryError) -> [(kind: String, experienceID: Int64?, name: String, dueAt: Instant)] {
        try guarded {
            func shifted(_ i: Instant) -> String { Instant(seconds: min(Instant.latest.seconds, i.seconds + leadSeconds)).description }
            let rows = try db.query(
                """
                SELECT id, url, live_from, live_until, window_set_at FROM advanced_experience
                WHERE clip_bundle_id = ?1 AND removed_at IS NULL AND status = 'ACTIVE' AND (
                  (live_from > ?2 AND live_from <= ?3) OR (live_until > ?4 AND live_until <= ?5)
                  OR (window_set_at >= ?4 AND window_set_at <= ?5))
                ORDER BY id
                """,
                [
                    .text(clip.bundleID.rawValue), .text(shifted(after)), .text(shifted(through)), .text(after.description),
                    .text(through.description),
                ])
            var due: [(kind: String, experienceID: Int64?, name: String, dueAt: Instant)] = []
            for row in rows {
                let id = Int64(try row.int("id")), url = try row.string("url")
                let from = try row.optionalString("live_from").flatMap { Instant(canonical: Array($0.utf8)) }
                let until = try row.optionalString("live_until").flatMap { Instant(canonical: Array($0.utf8)) }
                let set = try row.optionalString("window_set_at").flatMap { Instant(canonical: Array($0.utf8)) } ?? .earliest
                if let until, until > after, until <= through {
                    due.append(("remove", id, url, until))
                } else if let from {
                    let at = Instant(seconds: max(from.seconds - leadSeconds, set.seconds))
                    let fell = at > after || (at == set && at == after)
                    if fell, at <= through, until.map({ at < $0 }) ?? true { due.append(("create", id, url, at)) }
                } else if set >= after, set <= through {
                    // A window taken away: held from now on.
                    due.append(("create", id, url, set))
                }
            }
            // The kill switch and its undo: deactivated, activated or removed by hand, pushed at once. The second of
            // `after` is read again (a write in the second of the last look may have come after it), as window_set_at.
            let switched = try db.query(
                """
                SELECT id, url, status, removed_at, status_set_at FROM advanced_experience
                WHERE clip_bundle_id = ?1 AND status_set_at >= ?2 AND status_set_at <= ?3 ORDER BY id
                """,
                [.text(clip.bundleID.rawValue), .text(after.description), .text(through.description)])
            for row in switched {
                guard let set = Instant(canonical: Array(try row.string("status_set_at").utf8)) else { continue }
                let held = try row.optionalString("removed_at") == nil && (try row.string("status")) == "ACTIVE"
                due.append((held ? "create" : "remove", Int64(try row.int("id")), try row.string("url"), set))
            }
            // Campaigns pushed ahead: their start and end, the lead before them.
            let ahead = try db.query(
                """
                SELECT * FROM campaign WHERE team_id = ? AND push_ahead = 1 AND state IN ('scheduled', 'running')
                """, [.text(clip.team.rawValue)]
            ).map(readCampaign)
            for campaign in ahead {
                for (edge, at) in [("start", campaign.state == .scheduled ? campaign.startsAt : nil), ("end", campaign.endsAt)] {
                    guard let at else { continue }
                    let pushAt = Instant(seconds: max(0, at.seconds - leadSeconds))
                    if pushAt > after, pushAt <= through {
                        due.append(("campaign", nil, "\(edge) of campaign \(campaign.name), ahead", pushAt))
                    }
                }
            }
            return due.sorted { $0.dueAt < $1.dueAt }
        }
    }

    /// Records the scheduled changes an apply carried.
    public func recordASCScheduledPushes(
        clip: AppID, _ pushes: [(kind: String, experienceID: Int64?, name: String, dueAt: Instant)]
    ) throws(RegistryError) {
        try write {
            let now = instant.description
            for push in pushes {
                try db.execute(
                    "INSERT INTO asc_scheduled_push(clip_bundle_id, kind, experience_id, name, due_at, pushed_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(clip.bundleID.rawValue), .text(push.kind), push.experienceID.map(SQLValue.integer) ?? .null, .text(push.name),
                        .text(push.dueAt.description), .text(now),
                    ])
            }
        }
    }

    /// Records that every scheduled App Store Connect change due by `through` was pushed.
    public func markASCSwept(through: Instant) throws(RegistryError) {
        _ = try write { try db.execute("UPDATE schedule_clock SET asc_swept_until = ? WHERE id = 1", [.text(through.description)]) }
    }

    /// The scheduled changes pushed for a clip, latest first.
    public func ascScheduledPushes(clip: AppID, limit: Int = 20) throws(RegistryError) -> [(
        kind: String, name: String, dueAt: String, pushedAt: String
    )] {
        try guarded {
            try db.query(
                "SELECT kind, name, due_at, pushed_at FROM asc_scheduled_push WHERE clip_bundle_id = ? ORDER BY id DESC LIMIT ?",
                [.text(clip.bundleID.rawValue), .integer(Int64(limit))]
            ).map { (try $0.string("kind"), try $0.string("name"), try $0.string("due_at"), try $0.string("pushed_at")) }
        }
    }
}
