import ClipApp
import ClipCore
import ClipStore
import FileFormats
import Foundation
import StrictJSON
import Testing

/// The propagation watch on a manual clock (no sleeping): a change followed to the site and Apple's CDN on the
/// backing-off schedule, `aasa.propagated` with the delay, a restart that continues, a watch that gives up.
struct PropagationWatchTests {
    let registry: Registry
    /// A manual clock, in milliseconds.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var ms: Int64 = 1_800_000_000_000
        func withLock<T>(_ body: (inout Int64) -> T) -> T { lock.withLock { body(&ms) } }
    }
    let clock = Clock()
    let fetcher = DomainVerificationTests.Fetcher()
    let site = "https://bikes.example/.well-known/apple-app-site-association"
    let cdn = "https://cdn.test/a/v1/bikes.example"

    init() throws {
        registry = try temporaryRegistry()
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#))
        _ = try registry.addWebhook(
            url: "https://hooks.example/x", events: try WebhookEventPatterns("aasa.propagated"), team: nil, allowPrivateTargets: false)
        let file = try registry.aasa(host: "bikes.example")
        fetcher.answers[site] = DomainVerificationTests.json(file)
        fetcher.answers[cdn] = DomainVerificationTests.json(file)
    }

    func watch(_ schedule: PropagationSchedule = .standard) -> PropagationWatch {
        let clock = clock
        return PropagationWatch(outbound: fetcher.outbound, schedule: schedule, nowMs: { clock.withLock { $0 } })
    }

    func advance(_ seconds: Int64) { clock.withLock { $0 += seconds * 1000 } }

    func changeBikes() throws {
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/two","clip":"ABCDE12345.com.example.two.Clip","title":"T","subtitle":"S"}"#))
    }

    func events() throws -> [String] { try registry.webhookDeliveries(id: 1).map(\.type) }

    @Test func aChangeIsFollowedToTheSiteAndTheCDN() throws {
        let watch = watch()
        try watch.pass(registry)
        #expect(fetcher.asked.isEmpty, "a host found as it is, when the watch begins, is not followed")
        try changeBikes()
        let changed = clock.withLock { $0 }
        try watch.pass(registry)
        #expect(fetcher.asked.count == 3, "checked at once")
        #expect(try registry.propagation(host: "bikes.example")?.nextCheckMs == changed + 60_000)
        advance(30)
        try watch.pass(registry)
        #expect(fetcher.asked.count == 3, "not due yet")
        // The site serves the new file; Apple's CDN after 3 hours.
        fetcher.answers[site] = DomainVerificationTests.json(try registry.aasa(host: "bikes.example"))
        advance(30)
        try watch.pass(registry)
        var row = try #require(try registry.propagation(host: "bikes.example"))
        #expect(row.siteDelaySeconds == 60 && row.cdnDelaySeconds == nil && row.nextCheckMs == changed + 180_000)
        #expect(try events() == ["aasa.propagated"])
        let payload = try JSONParser.parse(try #require(try registry.dueWebhooks(now: .max).first).payload)
        #expect(payload["data"]?["where"]?.stringValue == "site" && payload["data"]?["delaySeconds"] == .integer(60), "\(payload)")
        #expect(payload["data"]?["etag"]?.stringValue == Registry.aasaETag(try registry.aasa(host: "bikes.example")))

        // A restart: a new watch on the same database continues, no second site event.
        let restarted = self.watch()
        var checks = 0
        while clock.withLock({ $0 }) < changed + 3 * 3600_000 {
            advance(60)
            try restarted.pass(registry)
            checks += 1
        }
        fetcher.answers[cdn] = DomainVerificationTests.json(try registry.aasa(host: "bikes.example"))
        for _ in 0..<(6 * 60) {
            advance(60)
            try restarted.pass(registry)
        }
        row = try #require(try registry.propagation(host: "bikes.example"))
        let cdnDelay = try #require(row.cdnDelaySeconds)
        #expect(cdnDelay >= 3 * 3600 && cdnDelay <= 3 * 3600 + 3600, "the first check after the CDN caught up: \(cdnDelay) s")
        #expect(row.nextCheckMs == nil && !row.gaveUp)
        #expect(try events() == ["aasa.propagated", "aasa.propagated"])
        // Backing off: a few checks in 9 hours, not one a minute.
        #expect(row.checks < 12, "\(row.checks)")

        // verify's answer carries the state; /metrics the delays.
        let out = try Verification.binding.perform(
            Arguments([("host", "bikes.example")]), Session(registry: registry, caller: .local, outbound: fetcher.outbound)
        ).json
        let state = try #require(out["items"]?.arrayValue?.first?["propagation"])
        #expect(state["siteDelaySeconds"] == .integer(60) && state["appleCDNDelaySeconds"] == .integer(cdnDelay), "\(state)")
        let metrics = PropagationMetrics.render(try registry.propagationDelays())
        #expect(metrics.contains("clipregistry_aasa_propagation_delay_seconds_bucket{where=\"site\",le=\"60\"} 1"))
        #expect(metrics.contains("clipregistry_aasa_propagation_delay_seconds_count{where=\"apple-cdn\"} 1"))
    }

    /// A write of this server that changed a host's file is noted at once, that host's file alone read again: the
    /// watch is told of it (`registryDidCommit`) rather than waiting for the change records' poll.
    @Test func aWriteItIsToldOfIsNotedWithoutReadingEveryFile() throws {
        let watch = watch()
        try watch.pass(registry)
        try changeBikes()
        try watch.pass(registry, readingEveryFile: false)
        #expect(fetcher.asked.isEmpty, "not told, and the change records not read")
        let observers = WriteObservers()
        observers.add(watch)
        registry.observers = observers
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/3","clip":"ABCDE12345.com.example.three.Clip","title":"T","subtitle":"S"}"#))
        try watch.pass(registry, readingEveryFile: false)
        #expect(fetcher.asked.count == 3, "checked at once")
        #expect(try registry.propagation(host: "bikes.example")?.digest == SHA256.hexDigest(try registry.aasa(host: "bikes.example")))
    }

    /// Started, the watch runs on a thread of its own, wakes when it is told of a write, and stops.
    @Test func aStartedWatchWakesOnAWriteAndStops() throws {
        let watch = watch()
        try watch.pass(registry)
        let observers = WriteObservers()
        observers.add(watch)
        registry.observers = observers
        watch.start(path: registry.path, pollSeconds: 3600) { Issue.record("\($0)") }
        try changeBikes()
        let deadline = Date().addingTimeInterval(10)
        while fetcher.asked.count < 3 && Date() < deadline { usleep(10_000) }
        #expect(fetcher.asked.count == 3, "checked once told, not after the hour's poll")
        watch.stop()
        watch.stop()
    }

    @Test func aChangeThatNeverArrivesIsGivenUpAfterTheWatchsTime() throws {
        let watch = watch(PropagationSchedule(intervals: [60, 3600], giveUpAfter: 24 * 3600))
        try watch.pass(registry)
        try changeBikes()
        for _ in 0..<(48 * 60) {
            try watch.pass(registry)
            advance(60)
        }
        let row = try #require(try registry.propagation(host: "bikes.example"))
        #expect(row.gaveUp && row.nextCheckMs == nil && row.siteDelaySeconds == nil)
        #expect(row.checks >= 20 && row.checks <= 26, "\(row.checks)")
        #expect(try events().isEmpty)
    }

    @Test func aSecondChangeBeforeTheFirstArrivedIsFollowedInstead() throws {
        let watch = watch()
        try watch.pass(registry)
        try changeBikes()
        try watch.pass(registry)
        advance(600)
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/3","clip":"ABCDE12345.com.example.three.Clip","title":"T","subtitle":"S"}"#))
        fetcher.answers[site] = DomainVerificationTests.json(try registry.aasa(host: "bikes.example"))
        try watch.pass(registry)
        let row = try #require(try registry.propagation(host: "bikes.example"))
        #expect(row.siteDelaySeconds == 0 && row.changedAtMs == clock.withLock { $0 }, "measured from the second change")
    }

    @Test func theScheduleIsReadFromTheEnvironment() throws {
        #expect(try PropagationSchedule.from(environment: [:]).get() == .standard)
        #expect(try PropagationSchedule.from(environment: ["CLIP_AASA_WATCH_SCHEDULE": "off"]).get() == nil)
        let short = try? PropagationSchedule.from(environment: ["CLIP_AASA_WATCH_SCHEDULE": "1,2.5", "CLIP_AASA_WATCH_FOR": "30s"]).get()
        #expect(short == PropagationSchedule(intervals: [1, 2.5], giveUpAfter: 30))
        // QA: 0.001 was taken, and the watch then checked a customer's site 15 times a second for 72 hours.
        for bad in ["", "1,,2", "-1", "x", "1e9", "0.001", "60,0.5"] {
            guard case .failure(let p) = PropagationSchedule.from(environment: ["CLIP_AASA_WATCH_SCHEDULE": bad]) else {
                Issue.record("\(bad) accepted")
                continue
            }
            #expect(p.message.hasPrefix("CLIP_AASA_WATCH_SCHEDULE"))
        }
    }

    /// A server stopping while many hosts are due: the pass ends after the hosts under way, not after all of them.
    @Test func aStoppingServerEndsThePassAfterTheHostsUnderWay() throws {
        for i in 0..<12 {
            _ = try registry.register(
                try JSONParser.parse(
                    #"{"url":"https://h\#(i).example/","clip":"ABCDE12345.com.example.h\#(i).Clip","title":"T","subtitle":"S"}"#))
        }
        let watch = watch()
        try watch.pass(registry)
        let now = clock.withLock { $0 }
        try registry.savePropagations(
            try registry.propagations().map { row in
                var due = row
                due.nextCheckMs = now
                return due
            })
        try watch.pass(registry, stopping: { true })
        #expect(fetcher.asked.isEmpty, "stopped before any host")
        var batches = 0
        try watch.pass(
            registry,
            stopping: {
                batches += 1; return batches > 1
            })
        #expect(fetcher.asked.count == Outbound.hostsAtOnce * 3, "\(fetcher.asked.count)")
        #expect(try registry.propagations().filter { $0.nextCheckMs == now }.count == 13 - Outbound.hostsAtOnce)
    }
}
