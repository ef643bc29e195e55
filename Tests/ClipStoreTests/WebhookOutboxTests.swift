import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// The outbox: an event is written in the transaction of its change, for the endpoints that want it only.
struct WebhookOutboxTests {
    static let everything = try! WebhookEventPatterns("*")

    func count(_ path: String, _ table: String) throws -> Int {
        try Connection(path: path).query("SELECT count(*) AS n FROM \(table)").first!.int("n")
    }

    func events(_ registry: Registry, endpoint: Int64) throws -> [String] {
        try registry.webhookDeliveries(id: endpoint, limit: 1000).reversed().map(\.type)
    }

    @Test func aWebhookURLIsStoredNormalizedAndItsOtherSpellingsAreDuplicates() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let added = try registry.addWebhook(
            url: "HTTPS://Hooks.Example.com:443/in", events: Self.everything, team: nil, allowPrivateTargets: false)
        #expect(added.value.endpoint.url == "https://hooks.example.com/in")
        let stored = try Connection(path: path).query("SELECT url FROM webhook_endpoint").map { try $0.string("url") }
        #expect(stored == ["https://hooks.example.com/in"])
        let before =
            try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        for spelling in ["https://hooks.example.com/in", "https://HOOKS.example.com/in", "hTTps://hooks.example.com:443/in"] {
            #expect {
                try registry.addWebhook(url: spelling, events: Self.everything, team: nil, allowPrivateTargets: false)
            } throws: { error in
                guard case RegistryError.conflict(_, let existing) = error else { return false }
                return existing == .webhook(added.value.endpoint.id)
            }
        }
        #expect {
            try registry.addWebhook(
                url: "https://hooks.example.com/other#x", events: Self.everything, team: nil, allowPrivateTargets: false)
        } throws: { "\($0)".contains("#fragment") }
        let after =
            try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        #expect(before == after, "a refused add writes nothing")
        // An endpoint stored as given by an earlier version: listed as called, and still a duplicate.
        let db = try Connection(path: path)
        try db.execute(
            "INSERT INTO webhook_endpoint(team_id, url, events, secret, created_at) VALUES (NULL, 'HTTP://Old.Example.com:80/in#frag', '*', 'whsec_x', '2026-01-01T00:00:00Z')"
        )
        db.close()
        #expect(try registry.webhooks().map(\.url) == ["https://hooks.example.com/in", "http://old.example.com/in"])
        #expect(throws: RegistryError.self) {
            try registry.addWebhook(url: "http://old.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false)
        }
    }

    @Test func noEndpointNoOutboxRow() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikes.example/rent"))
        _ = try registry.importExperiences(
            (1...50).map {
                #"{"url":"https://bikes.example/r\#($0)","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#
            }
            .joined(separator: "\n"), format: .ndjson)
        #expect(try count(path, "webhook_event") == 0)
        #expect(try count(path, "webhook_delivery") == 0)
    }

    @Test func everyChangeHasItsEventInOrder() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let hook = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false
        ).value.endpoint
        let created = try registry.register(try experienceJSON("https://bikes.example/rent")).value
        _ = try registry.update("\(created.id)", with: try JSONParser.parse(#"{"title":"New"}"#))
        _ = try registry.setStatus("\(created.id)", .deactivated)
        _ = try registry.remove("\(created.id)")
        #expect(
            try events(registry, endpoint: hook.id) == [
                "experience.created", "aasa.changed", "experience.updated", "experience.updated", "experience.deleted",
            ])
        let first = try #require(try Connection(path: path).query("SELECT payload FROM webhook_event ORDER BY id LIMIT 1").first)
        let payload = try JSONParser.parse(try first.string("payload"))
        #expect(payload["type"]?.stringValue == "experience.created")
        #expect(payload["data"]?["url"]?.stringValue == "https://bikes.example/rent")
        #expect(payload["data"]?["team"]?.stringValue == "ABCDE12345")
    }

    /// An `experience.updated` event says which members changed (docs/operations.md#webhooks); an
    /// update that changes nothing sends nothing.
    @Test func anUpdatesEventNamesTheChangedMembers() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let hook = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: try WebhookEventPatterns("experience.updated"), team: nil,
            allowPrivateTargets: false
        ).value.endpoint
        let created = try registry.register(try experienceJSON("https://bikes.example/rent")).value
        _ = try registry.update("\(created.id)", with: try JSONParser.parse(#"{"subtitle":"Ride in seconds"}"#))
        _ = try registry.update("\(created.id)", with: try JSONParser.parse(#"{"subtitle":"Ride in seconds"}"#))
        _ = try registry.update("\(created.id)", with: try JSONParser.parse(#"{"title":"E-bikes","category":"BIKES"}"#))
        _ = try registry.setStatus("\(created.id)", .deactivated)
        let changed = try Connection(path: path).query("SELECT payload FROM webhook_event ORDER BY id").map { row in
            try JSONParser.parse(try row.string("payload"))["data"]?["changed"]
        }
        #expect(
            changed == [
                .array([.string("subtitle")]), .array([.string("title"), .string("category")]), .array([.string("status")]),
            ])
        #expect(try events(registry, endpoint: hook.id).count == 3)
    }

    /// The ETag of aasa.changed is the one the server serves the host's AASA with.
    @Test func aasaChangedNamesTheServedETag() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: try WebhookEventPatterns("aasa.changed"), team: nil, allowPrivateTargets: false)
        _ = try registry.register(try experienceJSON("https://bikes.example/rent"))
        let row = try #require(try Connection(path: path).query("SELECT payload FROM webhook_event").first)
        let data = try #require(try JSONParser.parse(try row.string("payload"))["data"])
        let served = try #require(try LiveIndex(path: path).aasa(host: "bikes.example"))
        #expect(data["host"]?.stringValue == "bikes.example")
        #expect(data["etag"]?.stringValue == served.etag)
    }

    @Test func aRolledBackImportLeavesNoEvent() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addWebhook(url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false)
        let before = try snapshot(path)
        let lines = [
            #"{"url":"https://bikes.example/a","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#,
            #"{"url":"not a url","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#,
        ]
        #expect(throws: RegistryError.self) { try registry.importExperiences(lines.joined(separator: "\n"), format: .ndjson) }
        #expect(try snapshot(path) == before)
        #expect(try count(path, "webhook_event") == 0)
    }

    @Test func aTeamsEndpointSeesOnlyItsTeam() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let teamA = try TeamID("ABCDE12345")
        let a = try registry.addWebhook(
            url: "https://a.example.net/in", events: Self.everything, team: teamA, allowPrivateTargets: false
        ).value.endpoint
        let admin = try registry.addWebhook(
            url: "https://admin.example.net/in", events: try WebhookEventPatterns("experience.*"), team: nil, allowPrivateTargets: false
        ).value.endpoint
        _ = try registry.register(try experienceJSON("https://bikes.example/rent"))
        _ = try registry.register(try experienceJSON("https://other.example/x", clip: "FGHIJ67890.com.other.app.Clip"))
        #expect(try events(registry, endpoint: a.id) == ["experience.created", "aasa.changed"])
        #expect(try events(registry, endpoint: admin.id) == ["experience.created", "experience.created"])
    }

    @Test func refusedAddsChangeNothing() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addWebhook(url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false)
        let before = try snapshot(path)
        for url in [
            "file:///etc/passwd", "gopher://x.example/", "http://169.254.169.254/", "http://[::ffff:127.0.0.1]/", "http://0x7f000001/",
            "http://2130706433/", "https://exa\u{200B}mple.com/", String(repeating: "https://a.example/", count: 500), "",
        ] {
            #expect(throws: RegistryError.self) {
                try registry.addWebhook(url: url, events: Self.everything, team: nil, allowPrivateTargets: false)
            }
        }
        // The same URL twice for the same owner.
        #expect {
            try registry.addWebhook(url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false)
        } throws: { error in
            if case RegistryError.conflict(_, let existing) = error { return existing == .webhook(1) }
            return false
        }
        #expect(try snapshot(path) == before)
    }

    /// Head of line: the worker is offered an endpoint's oldest undelivered event only; a spent
    /// schedule makes the endpoint failing, and enabling it offers the same event again.
    @Test func retriesHeadOfLineFailingAndEnabling() throws {
        let path = temporaryDatabasePath()
        let clock = TestClock()
        let registry = try Registry(path: path, now: { clock.now })
        let hook = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: try WebhookEventPatterns("experience.*"), team: nil, allowPrivateTargets: false
        ).value.endpoint
        _ = try registry.register(try experienceJSON("https://bikes.example/a"))
        _ = try registry.register(try experienceJSON("https://bikes.example/b"))
        let schedule = WebhookRetrySchedule(delaysMilliseconds: [1_000, 2_000])
        var due = try registry.dueWebhooks(now: Registry.milliseconds(clock.now))
        #expect(due.count == 1)
        let head = due[0]
        try registry.recordWebhookAttempt(head, status: 500, error: "HTTP 500", delivered: false, schedule: schedule, unit: 0.5)
        #expect(try registry.dueWebhooks(now: Registry.milliseconds(clock.now)).isEmpty)
        #expect(try registry.nextWebhookDue() == Registry.milliseconds(clock.now) + 1_000)
        clock.advance(1.0)
        due = try registry.dueWebhooks(now: Registry.milliseconds(clock.now))
        #expect(due.map(\.messageID) == [head.messageID])  // the same event, not the next
        try registry.recordWebhookAttempt(due[0], status: nil, error: "timeout", delivered: false, schedule: schedule, unit: 0.5)
        clock.advance(2.0)
        due = try registry.dueWebhooks(now: Registry.milliseconds(clock.now))
        try registry.recordWebhookAttempt(due[0], status: 503, error: "HTTP 503", delivered: false, schedule: schedule, unit: 0.5)
        let failing = try registry.webhook(id: hook.id)
        #expect(failing.state == .failing)
        #expect(failing.failure?.contains("HTTP 503") == true)
        clock.advance(100)
        #expect(try registry.dueWebhooks(now: Registry.milliseconds(clock.now)).isEmpty)
        #expect(try registry.enableWebhook(id: hook.id).value.state == .active)
        due = try registry.dueWebhooks(now: Registry.milliseconds(clock.now))
        #expect(due.map(\.messageID) == [head.messageID])
        try registry.recordWebhookAttempt(due[0], status: 204, error: nil, delivered: true, schedule: schedule, unit: 0)
        due = try registry.dueWebhooks(now: Registry.milliseconds(clock.now))
        #expect(due.count == 1 && due[0].messageID != head.messageID)
        let deliveries = try registry.webhookDeliveries(id: hook.id)
        #expect(deliveries.map { $0.deliveredAt != nil } == [false, true])
    }

    /// Each owner has at most `maxWebhooksPerOwner` endpoints; one more is refused and changes nothing.
    @Test func anOwnersEndpointsAreBounded() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let team = try TeamID("ABCDE12345")
        for n in 1...Registry.maxWebhooksPerOwner {
            _ = try registry.addWebhook(
                url: "https://h\(n).example.com/in", events: Self.everything, team: team, allowPrivateTargets: false)
        }
        let before = try snapshot(path)
        #expect(throws: RegistryError.self) {
            try registry.addWebhook(url: "https://more.example.com/in", events: Self.everything, team: team, allowPrivateTargets: false)
        }
        #expect(try snapshot(path) == before)
        // Another owner is not affected.
        _ = try registry.addWebhook(url: "https://more.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false)
    }

    /// Retention: what was delivered long ago goes, with its event; what is not delivered stays, however old.
    @Test func deliveredHistoryIsForgottenAfterTheRetention() throws {
        let path = temporaryDatabasePath()
        let clock = TestClock()
        let registry = try Registry(path: path, now: { clock.now })
        let patterns = try WebhookEventPatterns("experience.*")
        let delivering = try registry.addWebhook(url: "https://a.example.com/in", events: patterns, team: nil, allowPrivateTargets: false)
        let down = try registry.addWebhook(url: "https://b.example.com/in", events: patterns, team: nil, allowPrivateTargets: false)
        _ = try registry.register(try experienceJSON("https://bikes.example/old"))
        for due in try registry.dueWebhooks(now: Registry.milliseconds(clock.now)) where due.endpointID == delivering.value.endpoint.id {
            try registry.recordWebhookAttempt(due, status: 200, error: nil, delivered: true, schedule: .standard, unit: 0)
        }
        clock.advance(31 * 86_400)
        _ = try registry.register(try experienceJSON("https://bikes.example/new"))
        for due in try registry.dueWebhooks(now: Registry.milliseconds(clock.now)) where due.endpointID == delivering.value.endpoint.id {
            try registry.recordWebhookAttempt(due, status: 200, error: nil, delivered: true, schedule: .standard, unit: 0)
        }
        #expect(try count(path, "webhook_delivery") == 4)
        #expect(try registry.pruneWebhookHistory(olderThanDays: 30) == 1)
        // The old event stays while the endpoint that is down has not had it; the new one is within the retention.
        #expect(try count(path, "webhook_event") == 2)
        #expect(try registry.webhookDeliveries(id: down.value.endpoint.id).count == 2)
        #expect(try registry.webhookDeliveries(id: delivering.value.endpoint.id).count == 1)
        _ = try registry.removeWebhook(id: down.value.endpoint.id)
        #expect(try registry.pruneWebhookHistory(olderThanDays: 30) == 0)
        #expect(try count(path, "webhook_event") == 1)
        clock.advance(31 * 86_400)
        #expect(try registry.pruneWebhookHistory(olderThanDays: 30) == 1)
        #expect(try count(path, "webhook_event") == 0 && count(path, "webhook_delivery") == 0)
    }

    @Test func removingDropsWhatWasNotDelivered() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let hook = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false
        ).value.endpoint
        _ = try registry.register(try experienceJSON("https://bikes.example/a"))
        #expect(try count(path, "webhook_delivery") == 2)
        _ = try registry.removeWebhook(id: hook.id)
        #expect(try count(path, "webhook_delivery") == 0)
        #expect(try count(path, "webhook_event") == 0)
        #expect(throws: RegistryError.self) { try registry.removeWebhook(id: hook.id) }
    }
}

/// A clock the test moves.
final class TestClock {
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    func advance(_ seconds: Double) { now = now.addingTimeInterval(seconds) }
}
