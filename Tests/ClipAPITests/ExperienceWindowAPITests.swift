import ClipAPI
import ClipApp
import ClipCore
import ClipStore
import Foundation
import HTTP1
import Locking
import StrictJSON
import TestSupport
import Testing

/// docs/rules.md#experiences-in-time over real sockets: a clock the test moves (the pool's `now`, a seam only code can
/// set) takes a scheduled experience from scheduled to live to ended through the hot resolve route and the ordinary
/// one, with the fallback candidate in between; `at=` answers the same without moving the clock.
@Suite(.serialized) struct ExperienceWindowAPITests {
    final class Clock: Sendable {
        let date = Locked(Date(timeIntervalSince1970: 0))
        func set(_ text: String) throws {
            let instant = try Instant.parse(text, field: "clock", zone: ZoneNames.none)
            date.withLock { $0 = Date(timeIntervalSince1970: Double(instant.seconds)) }
        }
        var now: @Sendable () -> Date { { self.date.withLock { $0 } } }
    }

    static func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    static func setUp() throws -> (URL, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipwindow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("r.db").path
        let registry = try Registry(path: path)
        let clip = "ABCDE12345.com.example.bikes.Clip"
        _ = try registry.register([
            "url": "https://ride.example/station", "clip": .string(clip), "title": "Station", "subtitle": "All year",
        ])
        _ = try registry.register([
            "url": "https://ride.example/station/7", "clip": .string(clip), "title": "Summer", "subtitle": "Summer card",
            "liveFrom": "2027-06-01T00:00 Europe/Paris", "liveUntil": "2027-09-01T00:00 Europe/Paris",
        ])
        return (dir, path)
    }

    func winner(_ answer: HotRoutesTests.Answer) throws -> String? {
        try JSONParser.parse(answer.text)["experience"]?["title"]?.stringValue
    }

    @Test(arguments: [true, false]) func theWindowOpensAndClosesAtItsInstants(hot: Bool) throws {
        let (dir, path) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = Clock()
        let served = try HotRoutesTests.Served(path: path, hot: hot, now: clock.now)
        defer { served.server.stop(drainSeconds: 1) }
        let resolve = "GET /v1/resolve?url=\(Self.q("https://ride.example/station/7?bike=3"))"
        for (moment, expected) in [
            ("2027-05-31T21:59:59Z", "Station"), ("2027-05-31T22:00:00Z", "Summer"), ("2027-08-31T21:59:59Z", "Summer"),
            ("2027-08-31T22:00:00Z", "Station"),
        ] {
            try clock.set(moment)
            #expect(try winner(HotRoutesTests.exchange(port: served.port, resolve, [])) == expected, "at \(moment)")
            // The same moment asked for with `at=` while the clock stands elsewhere.
            try clock.set("2026-01-01T00:00Z")
            let asked = try HotRoutesTests.exchange(port: served.port, resolve + "&at=\(Self.q(moment))", [])
            #expect(try winner(asked) == expected, "at=\(moment)")
        }
        try clock.set("2027-05-01T00:00Z")
        let explained = try JSONParser.parse(HotRoutesTests.exchange(port: served.port, resolve + "&explain", []).text)
        let skipped = explained["explanation"]?.arrayValue?.first { $0["outcome"]?.stringValue == "scheduled" }
        #expect(skipped?["detail"]?.stringValue == "skipped: starts 2027-05-31T22:00:00Z")
        let refused = try HotRoutesTests.exchange(port: served.port, resolve + "&at=2027-03-28T02:30%20Europe%2FParis", [])
        #expect(refused.head.hasPrefix("HTTP/1.1 422"))
        #expect(refused.text.contains("instant.gap"))
    }

    @Test func showAndListAnswerTheStateAtTheirMoment() throws {
        let (dir, path) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = Clock()
        try clock.set("2027-07-01T00:00Z")
        let registry = try Registry(path: path, now: clock.now)
        let served = try HotRoutesTests.Served(path: path, hot: true, now: clock.now)
        defer { served.server.stop(drainSeconds: 1) }
        let token = try registry.createToken(name: "t", team: nil).value.secret
        let auth = [("Authorization", "Bearer \(token)")]
        let shown = try JSONParser.parse(HotRoutesTests.exchange(port: served.port, "GET /v1/experiences/2", auth).text)
        #expect(shown["state"] == "live")
        #expect(shown["liveFrom"] == "2027-05-31T22:00:00Z")
        let later = try JSONParser.parse(HotRoutesTests.exchange(port: served.port, "GET /v1/experiences?at=2027-09-01T00:00Z", auth).text)
        #expect(later["items"]?.arrayValue?.compactMap { $0["state"]?.stringValue } == ["live", "ended"])
    }

    /// A campaign the scheduler (serve's `ScheduleRunner`, on its own pool) starts and ends as the clock moves: the hot
    /// route and the ordinary one answer its card in between, and the old card after it (docs/schedules.md#campaigns).
    @Test(arguments: [true, false]) func aCampaignFlipsWhatTheRoutesAnswer(hot: Bool) throws {
        let (dir, path) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = Clock()
        try clock.set("2027-05-01T00:00Z")
        let registry = try Registry(path: path, now: clock.now)
        _ = try registry.addCampaign(
            Registry.CampaignDraft(
                team: try TeamID("ABCDE12345"), name: "flash", selector: nil, experiences: [1],
                changes: ["subtitle": "Flash sale"], restore: nil,
                startsAt: try Instant.parse("2027-05-10T00:00Z", field: "t", zone: ZoneNames.none),
                endsAt: try Instant.parse("2027-05-11T00:00Z", field: "t", zone: ZoneNames.none)))
        let served = try HotRoutesTests.Served(path: path, hot: hot, now: clock.now)
        defer { served.server.stop(drainSeconds: 1) }
        let runner = ScheduleRunner(pool: try RegistryPool(path: path, now: clock.now)) { _, _ in }
        let resolve = "GET /v1/resolve?url=\(Self.q("https://ride.example/station?bike=3"))"
        func subtitle() throws -> String? {
            try JSONParser.parse(HotRoutesTests.exchange(port: served.port, resolve, []).text)["experience"]?["subtitle"]?.stringValue
        }
        #expect(try subtitle() == "All year")
        let ahead = try HotRoutesTests.exchange(port: served.port, resolve + "&at=2027-05-10T12:00Z", [])
        #expect(try JSONParser.parse(ahead.text)["experience"]?["subtitle"] == "Flash sale", "at= answers with the campaign applied")
        try clock.set("2027-05-10T00:00:00Z")
        #expect(try runner.pass().map(\.kind) == [.campaignStart])
        #expect(try subtitle() == "Flash sale")
        try clock.set("2027-05-11T00:00:01Z")
        #expect(try runner.pass().map(\.kind) == [.campaignEnd])
        #expect(try subtitle() == "All year")
        #expect(try runner.pass().isEmpty)
    }
}
