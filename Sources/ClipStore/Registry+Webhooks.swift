import AppleFormats
public import ClipCore
import FileFormats
public import Foundation
import SQLiteDB
public import StrictJSON

/// Webhooks (README "Webhooks", docs/architecture.md#webhooks): endpoints, and the outbox.
///
/// An event is written by the transaction of the change it describes (`recordChange` for
/// experiences, `write` for the AASA of each host it changed, `recordASCApplied`), with one
/// delivery row per endpoint that wants it, so a committed change always has its event and a
/// rolled-back one never does. The endpoints are read once per transaction and only when it
/// records a change: with no endpoint, a write (an import of a million lines) writes no outbox row.
extension Registry {
    /// The transaction's endpoints, read at its first event (`Registry.webhookEndpointsOfTransaction`).
    func transactionEndpoints() throws -> [WebhookEndpoint] {
        if let endpoints = webhookEndpointsOfTransaction { return endpoints }
        let endpoints = try db.query("SELECT * FROM webhook_endpoint ORDER BY id").map(readEndpoint)
        webhookEndpointsOfTransaction = endpoints
        return endpoints
    }

    /// Inside a write: queues an event for every endpoint that wants it; nothing when none does.
    func emitWebhookEvent(_ type: WebhookEventType, teams: [TeamID], data: @autoclosure () throws -> JSONValue) throws {
        let endpoints = try transactionEndpoints().filter { $0.wants(type, teams: teams) }
        guard !endpoints.isEmpty else { return }
        try insertEvent(type, team: teams.first, data: try data(), for: endpoints.map(\.id))
    }

    @discardableResult
    private func insertEvent(_ type: WebhookEventType, team: TeamID?, data: JSONValue, for endpoints: [Int64]) throws -> Int64 {
        let at = timestamp()
        let payload = WebhookPayload.envelope(type: type, timestamp: at, data: data)
        try db.execute(
            "INSERT INTO webhook_event(message_id, type, team_id, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [.text(Self.messageID()), .text(type.rawValue), .text(team?.rawValue), .text(JSONWriter.string(payload)), .text(at)])
        let event = db.lastInsertRowID
        accountOfTransaction?.events.append(type)
        let due = Self.milliseconds(now())
        for endpoint in endpoints {
            try db.execute(
                "INSERT INTO webhook_delivery(endpoint_id, event_id, next_attempt_at) VALUES (?, ?, ?)",
                [.integer(endpoint), .integer(event), .integer(due)])
        }
        return event
    }

    /// The event of an experience's change record (none for an update that changed no member).
    func emitExperienceEvent(action: ChangeAction, before: JSONValue?, after: JSONValue?) throws {
        // Nothing at all without an endpoint: an import of 100,000 lines is as fast as before webhooks.
        guard !(try transactionEndpoints().isEmpty) else { return }
        let type = WebhookEventType.experience(action)
        guard let data = WebhookPayload.experience(type, before: before, after: after) else { return }
        let team = data["clip"]?.stringValue.flatMap { try? AppID($0) }.map(\.team)
        try emitWebhookEvent(type, teams: team.map { [$0] } ?? [], data: data)
    }

    /// At the end of a write: one `aasa.changed` per host whose AASA it changed, with the ETag the
    /// server will serve it with (`aasaETag`), or none when the host has no AASA any more. The events belong to
    /// the teams that hold the host.
    func emitAASAEvents() throws {
        guard try transactionEndpoints().contains(where: { $0.events.matches(.aasaChanged) }) else { return }
        for host in try aasaChangedHosts() {
            let teams = try db.query("SELECT team_id FROM host_team WHERE host = ? ORDER BY role = 'owner' DESC, team_id", [.text(host)])
                .map { try TeamID(try $0.string("team_id")) }
            let etag: String?
            if let content = try configuredContent(host), let bytes = try? AASAGenerator.bytes(content) {
                etag = Self.aasaETag(bytes)
            } else {
                etag = nil
            }
            try emitWebhookEvent(.aasaChanged, teams: teams, data: WebhookPayload.aasaChanged(host: host, etag: etag))
        }
    }

    /// The strong ETag of a host's AASA bytes (RFC 9110 §8.8.3): the first 128 bits of their SHA-256, quoted. The one
    /// owner of that tag: `LiveIndex` serves the file with it and `aasa.changed` announces it.
    public static func aasaETag(_ bytes: [UInt8]) -> String { "\"" + SHA256.hexDigest(bytes).prefix(32) + "\"" }

    /// Records an App Store Connect apply's summary as an `asc.applied` (or `asc.testflight.applied`) event of the
    /// clip's team.
    public func recordASCApplied(clip: AppID, summary: JSONValue, event: WebhookEventType = .ascApplied) throws(RegistryError) {
        try write {
            try emitWebhookEvent(
                event, teams: [clip.team],
                data: .object([("clip", .string(clip.rawValue)), ("team", .string(clip.team.rawValue)), ("summary", summary)]))
        }
    }

    /// `msg_` and 128 random bits in hexadecimal: unique per event, whatever database it was written in.
    static func messageID() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): two calls, one per 64 bits
        let high = generator.next(), low = generator.next()
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "msg_" + hex(high) + hex(low)
    }

    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    // MARK: Endpoints

    func readEndpoint(_ row: Row) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: Int64(try row.int("id")), team: try row.optionalString("team_id").map { try TeamID($0) },
            url: WebhookTarget.normalized(stored: try row.string("url")),
            events: try WebhookEventPatterns(try row.string("events")), createdAt: try row.string("created_at"),
            state: WebhookEndpoint.State(rawValue: try row.string("state")) ?? .failing,
            failingSince: try row.optionalString("failing_since"), failure: try row.optionalString("failure"))
    }

    /// Endpoints one team (or the administrators) may have: each is sent to on a thread of its own while a request lasts,
    /// so the number is bounded; a receiver that fans out serves more.
    public static let maxWebhooksPerOwner = 20

    /// Adds an endpoint and returns it with its secret (`whsec_` and the base 64 of 32 random
    /// bytes), shown this once. The URL is checked and stored normalized (`WebhookTarget.normalize`);
    /// the same URL twice for the same owner, in any spelling, is a conflict. Nothing is written when it is refused.
    public func addWebhook(url given: String, events: WebhookEventPatterns, team: TeamID?, allowPrivateTargets: Bool)
        throws(RegistryError) -> WriteOutcome<(endpoint: WebhookEndpoint, secret: String)>
    {
        let url: String
        do { url = try WebhookTarget.normalize(given, allowPrivate: allowPrivateTargets) } catch {
            throw RegistryError.invalid(error.errors)
        }
        var generator = SystemRandomNumberGenerator()  // getrandom(2): a CSPRNG on Linux
        let secret = WebhookSignature.secret(
            key: (0..<WebhookSignature.keyBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return try writeOutcome {
            // Compared normalized: an endpoint stored before URLs were normalized keeps its text.
            for row in try db.query("SELECT id, url FROM webhook_endpoint WHERE team_id IS ?", [.text(team?.rawValue)])
            where WebhookTarget.normalized(stored: try row.string("url")) == url {
                let id = Int64(try row.int("id"))
                throw RegistryError.conflict("webhook \(id) already sends to this URL", existing: .webhook(id))
            }
            let owned = try db.query("SELECT count(*) AS n FROM webhook_endpoint WHERE team_id IS ?", [.text(team?.rawValue)])
            if try owned.first?.int("n") ?? 0 >= Self.maxWebhooksPerOwner {
                throw RegistryError.unprocessable(
                    "at most \(Self.maxWebhooksPerOwner) webhooks per team, and as many with no team: "
                        + "\(team.map { "team \($0.rawValue)" } ?? "the team-less ones") are full; remove one first")
            }
            let notes = try team.map(ensureTeam) ?? []
            try db.execute(
                "INSERT INTO webhook_endpoint(team_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(team?.rawValue), .text(url), .text(events.description), .text(secret), .text(timestamp())])
            let endpoint = try readEndpoint(
                try db.query("SELECT * FROM webhook_endpoint WHERE id = ?", [.integer(db.lastInsertRowID)]).first!)
            try recordChange(entity: .webhook, id: String(endpoint.id), action: .create, before: nil, after: AuditForm.webhook(endpoint))
            return WriteOutcome((endpoint, secret), created: true, notes: notes)
        }
    }

    /// The endpoints, all or one team's.
    public func webhooks(team: TeamID? = nil) throws(RegistryError) -> [WebhookEndpoint] {
        try guarded {
            try db.query("SELECT * FROM webhook_endpoint WHERE ?1 IS NULL OR team_id = ?1 ORDER BY id", [.text(team?.rawValue)])
                .map(readEndpoint)
        }
    }

    public func webhook(id: Int64) throws(RegistryError) -> WebhookEndpoint {
        try guarded {
            guard let row = try db.query("SELECT * FROM webhook_endpoint WHERE id = ?", [.integer(id)]).first else {
                throw RegistryError.notFound("webhook \(id)")
            }
            return try readEndpoint(row)
        }
    }

    /// The endpoint's secret, for signing.
    func webhookSecret(id: Int64) throws -> String? {
        try db.query("SELECT secret FROM webhook_endpoint WHERE id = ?", [.integer(id)]).first.map { try $0.string("secret") }
    }

    /// Removes an endpoint with the deliveries it had not received: they are never sent. Events
    /// no other endpoint waits for go with them.
    public func removeWebhook(id: Int64) throws(RegistryError) -> WriteOutcome<WebhookEndpoint> {
        try writeOutcome {
            let endpoint = try webhook(id: id)
            try db.execute("DELETE FROM webhook_delivery WHERE endpoint_id = ?", [.integer(id)])
            try db.execute("DELETE FROM webhook_endpoint WHERE id = ?", [.integer(id)])
            try db.execute(
                "DELETE FROM webhook_event WHERE NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.event_id = webhook_event.id)")
            try recordChange(entity: .webhook, id: String(id), action: .remove, before: AuditForm.webhook(endpoint), after: nil)
            return WriteOutcome(endpoint)
        }
    }

    /// Sends a `webhook.test` event to the endpoint (after what it still has to receive) and
    /// makes a failing endpoint active again, its waiting deliveries due at once. Returns the event's message id.
    public func testWebhook(id: Int64) throws(RegistryError) -> WriteOutcome<(endpoint: WebhookEndpoint, messageID: String)> {
        try writeOutcome {
            let before = try webhook(id: id)
            try reactivate(before)
            let event = try insertEvent(
                .webhookTest, team: before.team, data: .object([("webhook", .integer(id)), ("url", .string(before.url))]), for: [id])
            let message = try db.query("SELECT message_id FROM webhook_event WHERE id = ?", [.integer(event)]).first!.string("message_id")
            return WriteOutcome((try webhook(id: id), message))
        }
    }

    /// Makes a failing endpoint active again; its waiting deliveries are due at once.
    public func enableWebhook(id: Int64) throws(RegistryError) -> WriteOutcome<WebhookEndpoint> {
        try writeOutcome {
            let before = try webhook(id: id)
            try reactivate(before)
            return WriteOutcome(try webhook(id: id))
        }
    }

    private func reactivate(_ endpoint: WebhookEndpoint) throws {
        guard endpoint.state == .failing else { return }
        try db.execute(
            "UPDATE webhook_endpoint SET state = 'active', failing_since = NULL, failure = NULL WHERE id = ?", [.integer(endpoint.id)])
        try db.execute(
            """
            UPDATE webhook_delivery SET next_attempt_at = ?, attempts = 0, first_attempt_at = NULL
            WHERE endpoint_id = ? AND delivered_at IS NULL
            """,
            [.integer(Self.milliseconds(now())), .integer(endpoint.id)])
        try recordChange(
            entity: .webhook, id: String(endpoint.id), action: .update, before: AuditForm.webhook(endpoint),
            after: AuditForm.webhook(try webhook(id: endpoint.id)))
    }

    /// The endpoint's deliveries, newest first.
    public func webhookDeliveries(id: Int64, limit: Int = 100) throws(RegistryError) -> [WebhookDelivery] {
        try guarded {
            try db.query(
                """
                SELECT d.*, e.message_id, e.type, e.created_at FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
                WHERE d.endpoint_id = ? ORDER BY d.event_id DESC LIMIT ?
                """, [.integer(id), .integer(Int64(limit))]
            ).map(readDelivery)
        }
    }

    func readDelivery(_ row: Row) throws -> WebhookDelivery {
        let delivered = try row.optionalString("delivered_at")
        return WebhookDelivery(
            endpointID: Int64(try row.int("endpoint_id")), eventID: Int64(try row.int("event_id")), messageID: try row.string("message_id"),
            type: try row.string("type"), createdAt: try row.string("created_at"), attempts: try row.int("attempts"),
            nextAttemptAt: delivered == nil ? Int64(try row.int("next_attempt_at")) : nil,
            lastStatus: try row.optionalInt("last_status"), lastError: try row.optionalString("last_error"), deliveredAt: delivered)
    }

    // MARK: The delivery worker's side

    /// A delivery to make now: the event's bytes and where to send them.
    public struct DueWebhook: Sendable {
        public let endpointID: Int64
        public let eventID: Int64
        public let url: String
        public let secret: String
        public let messageID: String
        public let payload: [UInt8]
        public let attempts: Int
        public let firstAttemptAt: Int64?
    }

    /// For each active endpoint, its oldest delivery not yet made (the head of its line: an
    /// endpoint's events go in order), when that one is due by `now` (milliseconds).
    public func dueWebhooks(now: Int64) throws(RegistryError) -> [DueWebhook] {
        try guarded {
            try db.query(
                """
                SELECT w.id, w.url, w.secret, d.event_id, d.attempts, d.first_attempt_at, d.next_attempt_at, e.message_id, e.payload
                FROM webhook_endpoint w
                JOIN webhook_delivery d ON d.endpoint_id = w.id AND d.event_id =
                    (SELECT min(event_id) FROM webhook_delivery x WHERE x.endpoint_id = w.id AND x.delivered_at IS NULL)
                JOIN webhook_event e ON e.id = d.event_id
                WHERE w.state = 'active' AND d.next_attempt_at <= ? ORDER BY w.id
                """, [.integer(now)]
            ).map { row in
                DueWebhook(
                    endpointID: Int64(try row.int("id")), eventID: Int64(try row.int("event_id")), url: try row.string("url"),
                    secret: try row.string("secret"), messageID: try row.string("message_id"),
                    payload: Array(try row.string("payload").utf8),
                    attempts: try row.int("attempts"), firstAttemptAt: try row.optionalInt("first_attempt_at").map(Int64.init))
            }
        }
    }

    /// When the next head of an active endpoint's line is due (milliseconds), or nil when none waits; endpoints in
    /// `excluding` (being sent to now) are left out.
    public func nextWebhookDue(excluding: Set<Int64> = []) throws(RegistryError) -> Int64? {
        try guarded {
            try db.query(
                """
                SELECT w.id, d.next_attempt_at AS due FROM webhook_endpoint w
                JOIN webhook_delivery d ON d.endpoint_id = w.id AND d.event_id =
                    (SELECT min(event_id) FROM webhook_delivery x WHERE x.endpoint_id = w.id AND x.delivered_at IS NULL)
                WHERE w.state = 'active'
                """
            ).compactMap { row in excluding.contains(Int64(try row.int("id"))) ? nil : Int64(try row.int("due")) }.min()
        }
    }

    /// Forgets the deliveries made more than `days` days ago and then the events older than that with no delivery left,
    /// so the outbox does not grow for ever. A delivery not yet made (pending, or held by a failing endpoint) is kept
    /// whatever its age, and so is its event. Returns the deliveries forgotten.
    @discardableResult
    public func pruneWebhookHistory(olderThanDays days: Int) throws(RegistryError) -> Int {
        let cutoff = timestamp(now().addingTimeInterval(-Double(days) * 86_400))
        return try write {
            let deliveries = try db.execute(
                "DELETE FROM webhook_delivery WHERE delivered_at IS NOT NULL AND delivered_at < ?", [.text(cutoff)])
            try db.execute(
                """
                DELETE FROM webhook_event WHERE created_at < ?
                    AND NOT EXISTS (SELECT 1 FROM webhook_delivery WHERE webhook_delivery.event_id = webhook_event.id)
                """, [.text(cutoff)])
            return deliveries
        }
    }

    /// Records an attempt: delivered (a 2xx), or failed and due again after the schedule's next
    /// delay; when the schedule is spent the endpoint becomes failing. `unit` picks the jitter.
    public func recordWebhookAttempt(
        _ due: DueWebhook, status: Int?, error: String?, delivered: Bool, schedule: WebhookRetrySchedule, unit: Double
    ) throws(RegistryError) {
        let nowDate = now()
        let nowMs = Self.milliseconds(nowDate)
        try write {
            let key: [SQLValue] = [.integer(due.endpointID), .integer(due.eventID)]
            if delivered {
                try db.execute(
                    """
                    UPDATE webhook_delivery SET attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, ?),
                    last_status = ?, last_error = NULL, delivered_at = ? WHERE endpoint_id = ? AND event_id = ?
                    """, [.integer(nowMs), (status.map { SQLValue.integer(Int64($0)) } ?? .null), .text(timestamp())] + key)
                return
            }
            let attempts = due.attempts + 1
            let delay = schedule.delay(afterFailure: attempts, unit: unit)
            try db.execute(
                """
                UPDATE webhook_delivery SET attempts = ?, first_attempt_at = coalesce(first_attempt_at, ?), last_status = ?, last_error = ?,
                next_attempt_at = ? WHERE endpoint_id = ? AND event_id = ?
                """,
                [
                    .integer(Int64(attempts)), .integer(nowMs), (status.map { SQLValue.integer(Int64($0)) } ?? .null), .text(error),
                    .integer(nowMs + (delay ?? 0)),
                ]
                    + key)
            if delay == nil {
                let why =
                    "delivery of event \(due.messageID) failed \(attempts) times; last: \(error ?? status.map { "HTTP \($0)" } ?? "?")"
                let before = try webhook(id: due.endpointID)
                try db.execute(
                    "UPDATE webhook_endpoint SET state = 'failing', failing_since = ?, failure = ? WHERE id = ?",
                    [.text(timestamp()), .text(why), .integer(due.endpointID)])
                try recordChange(
                    entity: .webhook, id: String(due.endpointID), action: .update, before: AuditForm.webhook(before),
                    after: AuditForm.webhook(try webhook(id: due.endpointID)))
            }
        }
    }
}
