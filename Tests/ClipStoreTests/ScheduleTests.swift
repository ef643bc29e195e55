import ClipCore
import DoctorAndPublish
import Foundation
import SQLiteDB
import StrictJSON
import Synchronization
import TestSupport
import Testing
@testable import ClipStore

/// docs/schedules.md: the scheduler applies each window edge and each campaign start and end once, in one transaction
/// with its change records and events, late when nothing ran at its time; campaigns set back exactly what they changed.
/// The clock is the store's `now` (a seam only code sets), moved by the test.
@Suite struct ScheduleTests {
    final class Clock: Sendable {
        let seconds = Mutex<Int64>(0)
        func set(_ text: String) throws {
            let instant = try Instant.parse(text, field: "clock", zone: ZoneNames.none)
            seconds.withLock { $0 = instant.seconds }
        }
        var now: @Sendable () -> Date { { Date(timeIntervalSince1970: Double(self.seconds.withLock { $0 })) } }
    }

    static let everything = try! WebhookEventPatterns("*")

    func setUp(_ start: String = "2027-05-01T00:00:00Z") throws -> (Registry, Clock, String) {
        let clock = Clock()
        try clock.set(start)
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path, now: clock.now)
        return (registry, clock, path)
    }

    func events(_ registry: Registry, endpoint: Int64) throws -> [String] {
        try registry.webhookDeliveries(id: endpoint, limit: 1000).reversed().map(\.type)
    }

    func payloads(_ path: String, _ type: String) throws -> [JSONValue] {
        try Connection(path: path).query("SELECT payload FROM webhook_event WHERE type = ? ORDER BY id", [.text(type)]).map {
            try JSONParser.parse(try $0.string("payload"))["data"] ?? .null
        }
    }

    @Test func aWindowOpensAndClosesOnceEachWithItsEventsAndAMissedEdgeIsLate() throws {
        let (registry, clock, path) = try setUp()
        let endpoint = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false
        )
        .value.endpoint.id
        _ = try registry.register(
            try experienceJSON("https://ride.example/summer", extra: #","liveFrom":"2027-06-01T00:00Z","liveUntil":"2027-09-01T00:00Z""#))
        // Open since its creation: no edge after the write that set it, nothing to announce.
        _ = try registry.register(try experienceJSON("https://ride.example/now", extra: #","liveFrom":"2027-04-01T00:00Z""#))
        #expect(try registry.runSchedule().isEmpty)
        let upcoming = try registry.upcomingFlips(team: nil)
        #expect(upcoming.map(\.kind) == [.experienceLive, .experienceEnded] && upcoming.allSatisfy { $0.subject == 1 })

        try clock.set("2027-06-01T00:00:01Z")
        let opened = try registry.runSchedule()
        #expect(opened.map(\.kind) == [.experienceLive] && opened[0].delaySeconds == 1 && !opened[0].isLate)
        #expect(try registry.runSchedule().isEmpty, "applied once")
        // Nothing ran across the end: the next sweep applies it, late, with its delay.
        try clock.set("2027-09-01T02:00:00Z")
        let closed = try registry.runSchedule()
        #expect(closed.map(\.kind) == [.experienceEnded] && closed[0].isLate && closed[0].delaySeconds == 7200)
        #expect(try registry.runSchedule().isEmpty)
        let announced = try events(registry, endpoint: endpoint).filter { $0.hasPrefix("experience.") && $0 != "experience.created" }
        #expect(announced == ["experience.live", "experience.ended"])
        let ended = try payloads(path, "experience.ended")
        #expect(ended.first?["late"] == .bool(true) && ended.first?["delaySeconds"] == .integer(7200))
        #expect(ended.first?["url"] == .string("https://ride.example/summer"))
        #expect(try registry.appliedFlips(team: nil).map(\.kind) == [.experienceEnded, .experienceLive])
    }

    @Test func aDeactivatedOrRemovedExperienceAnnouncesNothingAndAWindowMovedBackIsNotAnnouncedTwice() throws {
        let (registry, clock, _) = try setUp()
        _ = try registry.register(try experienceJSON("https://ride.example/a", extra: #","liveFrom":"2027-06-01T00:00Z""#))
        _ = try registry.register(try experienceJSON("https://ride.example/b", extra: #","liveFrom":"2027-06-01T00:00Z""#))
        _ = try registry.register(try experienceJSON("https://ride.example/c", extra: #","liveFrom":"2027-06-01T00:00Z""#))
        _ = try registry.setStatus("1", .deactivated)
        try registry.remove("2")
        try clock.set("2027-06-02T00:00:00Z")
        #expect(try registry.runSchedule().map(\.subject) == [3])
        // The window set again to the same start, after it: that write made it live, no edge is left to announce.
        _ = try registry.update("3", with: try JSONParser.parse(#"{"liveFrom":null}"#))
        _ = try registry.update("3", with: try JSONParser.parse(#"{"liveFrom":"2027-06-01T00:00Z"}"#))
        try clock.set("2027-06-03T00:00:00Z")
        #expect(try registry.runSchedule().isEmpty)
    }

    func station(_ n: Int, region: String) throws -> JSONValue {
        try experienceJSON(
            "https://ride.example/s/\(n)", title: "Station \(n)", subtitle: "Rent a bike", extra: #","labels":{"region":"\#(region)"}"#)
    }

    func draft(
        _ name: String, where selector: String? = "label.region=idf", experiences: [Int64] = [], changes: String,
        restore: String? = nil, from: String = "2027-06-01T00:00:00Z", until: String? = "2027-09-01T00:00:00Z"
    ) throws -> Registry.CampaignDraft {
        Registry.CampaignDraft(
            team: try TeamID("ABCDE12345"), name: name, selector: try selector.map { try ExperienceSelector($0) }, experiences: experiences,
            changes: try JSONParser.parse(changes), restore: try restore.map { try JSONParser.parse($0) },
            startsAt: Instant(canonical: Array(from.utf8))!, endsAt: until.map { Instant(canonical: Array($0.utf8))! })
    }

    @Test func aCampaignOver300StationsFlipsAtItsStartAndSetsBackExactlyWhatItChangedAtItsEnd() throws {
        let (registry, clock, path) = try setUp()
        let endpoint = try registry.addWebhook(
            url: "https://hooks.example.com/in", events: Self.everything, team: nil, allowPrivateTargets: false
        )
        .value.endpoint.id
        for n in 1...300 { _ = try registry.register(try station(n, region: "idf")) }
        for n in 301...310 { _ = try registry.register(try station(n, region: "lyon")) }
        let campaign = try registry.addCampaign(
            try draft("summer-2027", changes: #"{"subtitle":"Summer: first ride free","category":"TRANSIT"}"#)
        )
        .value
        #expect(campaign.state == .scheduled)
        let preview = try registry.campaignPreview(campaign)
        let summer = try JSONParser.parse(#"{"subtitle":"Summer: first ride free","category":"TRANSIT"}"#)
        #expect(preview.count == 300 && preview[0].after == summer)
        let records = {
            try Connection(path: path).query("SELECT count(*) AS n FROM change_record WHERE entity = 'experience'").first!.int("n")
        }
        let recordsBefore = try records()

        try clock.set("2027-06-01T00:00:00Z")
        let started = try registry.runSchedule()
        #expect(started.map(\.kind) == [.campaignStart] && started[0].detail?["changed"] == .integer(300))
        #expect(try records() == recordsBefore + 300, "one change record per experience")
        #expect(try registry.experience("1").defaultCard.subtitle == "Summer: first ride free")
        #expect(try registry.experience("301").defaultCard.subtitle == "Rent a bike", "another region is not in it")
        #expect(try registry.campaign("summer-2027", team: nil).state == .running)
        // Someone changes one station's subtitle during the campaign: their change is kept at the end.
        _ = try registry.update("7", with: try JSONParser.parse(#"{"subtitle":"Closed for works"}"#))
        // A station labelled during the campaign was not selected at its start: it is not changed at the end either.
        _ = try registry.update("301", with: try JSONParser.parse(#"{"labels":{"region":"idf"}}"#))

        try clock.set("2027-09-01T00:00:00Z")
        let ended = try registry.runSchedule()
        #expect(ended.map(\.kind) == [.campaignEnd] && ended[0].detail?["reverted"] == .integer(300))
        #expect(try records() == recordsBefore + 300 + 2 + 300)
        let one = try registry.experience("1")
        #expect(one.defaultCard.subtitle == "Rent a bike" && one.businessCategory == nil && one.version == 3)
        let seven = try registry.experience("7")
        #expect(
            seven.defaultCard.subtitle == "Closed for works" && seven.businessCategory == nil, "only the member changed meanwhile is kept")
        let kept = try JSONParser.parse(#"[{"id":7,"members":["subtitle"]}]"#)
        #expect(ended[0].detail?["kept"] == kept)
        #expect(try registry.experience("301").defaultCard.subtitle == "Rent a bike")
        #expect(try registry.runSchedule().isEmpty)
        let types = try events(registry, endpoint: endpoint)
        #expect(types.filter { $0 == "campaign.started" }.count == 1 && types.filter { $0 == "campaign.ended" }.count == 1)
        #expect(types.filter { $0 == "experience.updated" }.count == 300 + 2 + 300)
    }

    @Test func overlappingCampaignsOnTheSameMemberOfTheSameExperienceAreRefusedWithBothNamed() throws {
        let (registry, _, path) = try setUp()
        for n in 1...3 { _ = try registry.register(try station(n, region: n == 3 ? "lyon" : "idf")) }
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#))
        let before = try snapshot(path)
        #expect(throws: RegistryError.self) {
            try registry.addCampaign(try draft("promo", experiences: [], changes: #"{"subtitle":"Promo"}"#))
        }
        do {
            _ = try registry.addCampaign(
                try draft(
                    "promo", where: nil, experiences: [2, 3], changes: #"{"subtitle":"Promo"}"#, from: "2027-08-01T00:00:00Z", until: nil))
            Issue.record("an overlapping campaign was added")
        } catch RegistryError.conflict(let message, _) {
            #expect(
                message.contains("promo") && message.contains("summer") && message.contains("subtitle") && message.contains("such as 2"))
        }
        #expect(try snapshot(path) == before, "a refused campaign writes nothing")
        // Another member, another time, or other experiences: accepted.
        _ = try registry.addCampaign(try draft("titles", changes: #"{"title":"Summer station"}"#))
        _ = try registry.addCampaign(try draft("autumn", changes: #"{"subtitle":"Autumn"}"#, from: "2027-09-01T00:00:00Z", until: nil))
        _ = try registry.addCampaign(try draft("lyon", where: "label.region=lyon", changes: #"{"subtitle":"Lyon"}"#))
        // Not a campaign's member, an empty selection, a window that ends before it starts, a name twice: refused.
        for bad in [
            try draft("x", changes: #"{"url":"https://ride.example/other"}"#),
            try draft("x", changes: #"{"subtitle":"A"}"#, from: "2027-03-01T00:00:00Z", until: "2027-04-01T00:00:00Z"),
            try draft("x", changes: #"{"subtitle":"A"}"#, from: "2027-09-01T00:00:00Z", until: "2027-06-01T00:00:00Z"),
            try draft("lyon", where: "label.region=lyon", changes: #"{"title":"A"}"#, from: "2028-01-01T00:00:00Z", until: nil),
            try draft("bad name!", changes: #"{"title":"A"}"#, from: "2028-01-01T00:00:00Z", until: nil),
            try draft("long", changes: #"{"title":"\#(String(repeating: "x", count: 31))"}"#, from: "2028-01-01T00:00:00Z", until: nil),
        ] {
            let unchanged = try snapshot(path)
            #expect(throws: RegistryError.self) { try registry.addCampaign(bad) }
            #expect(try snapshot(path) == unchanged)
        }
    }

    @Test func aCampaignStartedEarlyEndedEarlyOrCancelledIsAppliedOnceAndItsScheduledTimesThenDoNothing() throws {
        let (registry, clock, _) = try setUp()
        for n in 1...2 { _ = try registry.register(try station(n, region: "idf")) }
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#, restore: #"{"subtitle":"After summer"}"#))
        _ = try registry.addCampaign(try draft("never", changes: #"{"title":"Never"}"#))
        let started = try registry.startCampaign("summer", team: nil).value
        #expect(started.campaign.state == .running && started.flip?.by == "hand")
        #expect(try registry.experience("1").defaultCard.subtitle == "Summer")
        #expect(throws: RegistryError.self) { try registry.startCampaign("summer", team: nil) }
        #expect(throws: RegistryError.self) { try registry.endCampaign("never", team: nil, cancel: false) }
        _ = try registry.endCampaign("never", team: nil, cancel: true)
        let other = try TeamID("ZZZZZ99999")
        #expect(throws: RegistryError.notFound("campaign summer")) { try registry.endCampaign("summer", team: other, cancel: false) }
        try clock.set("2027-06-01T00:00:00Z")
        #expect(try registry.runSchedule().isEmpty, "started by hand, cancelled: their start does nothing")
        #expect(try registry.experience("1").defaultTitle == "Station 1")
        let ended = try registry.endCampaign("summer", team: nil, cancel: false).value
        #expect(ended.campaign.state == .ended && ended.flip?.detail?["reverted"] == .integer(2))
        #expect(try registry.experience("2").defaultCard.subtitle == "After summer", "the end values given")
        try clock.set("2027-09-02T00:00:00Z")
        #expect(try registry.runSchedule().isEmpty)
    }

    /// docs/schedules.md#campaigns, undo: `campaign revert` sets back what `end` kept (a change made during the
    /// campaign), one change record per experience it changes; twice is once; one that never started is refused and the
    /// file is left byte-identical.
    @Test func aCampaignRevertSetsBackWhatTheEndKeptOnceAndRefusesOneThatNeverStarted() throws {
        let (registry, clock, path) = try setUp()
        for n in 1...3 { _ = try registry.register(try station(n, region: "idf")) }
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#))
        _ = try registry.addCampaign(try draft("autumn", changes: #"{"title":"Autumn"}"#, from: "2027-10-01T00:00:00Z", until: nil))
        let records = {
            try Connection(path: path).query("SELECT count(*) AS n FROM change_record WHERE entity = 'experience'").first!.int("n")
        }
        func file() -> [Data] {
            ["", "-wal"].map { (try? Data(contentsOf: URL(fileURLWithPath: path + $0))) ?? Data() }
        }
        let untouched = file()
        #expect(throws: RegistryError.self) { try registry.revertCampaign("autumn", team: nil) }
        #expect(file() == untouched, "a refused revert writes nothing")

        try clock.set("2027-06-01T00:00:00Z")
        _ = try registry.runSchedule()
        _ = try registry.update("2", with: try JSONParser.parse(#"{"subtitle":"Edited in July"}"#))
        try clock.set("2027-09-01T00:00:00Z")
        _ = try registry.runSchedule()
        #expect(try registry.experience("1").defaultCard.subtitle == "Rent a bike")
        #expect(try registry.experience("2").defaultCard.subtitle == "Edited in July", "end keeps a change made during it")
        let before = try records()
        let reverted = try registry.revertCampaign("summer", team: nil).value
        #expect(reverted.end == nil && reverted.reverted == [2] && reverted.unchanged == [1, 3] && reverted.kept.isEmpty)
        #expect(try registry.experience("2").defaultCard.subtitle == "Rent a bike", "revert sets it back too")
        #expect(try records() == before + 1, "one change record for the one experience changed")
        let again = try registry.revertCampaign("summer", team: nil).value
        let recordsAfter = try records()
        #expect(again.reverted.isEmpty && again.unchanged == [1, 2, 3] && recordsAfter == before + 1)
        #expect(throws: RegistryError.notFound("campaign summer")) { try registry.revertCampaign("summer", team: try TeamID("ZZZZZ99999")) }
    }

    /// A running campaign reverted ends first; a member another running campaign holds is left alone, and named.
    @Test func aRunningCampaignRevertedEndsFirstAndLeavesAMemberAnotherCampaignHolds() throws {
        let (registry, clock, _) = try setUp()
        for n in 1...2 { _ = try registry.register(try station(n, region: "idf")) }
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#, until: "2027-07-01T00:00:00Z"))
        try clock.set("2027-06-01T00:00:00Z")
        _ = try registry.runSchedule()
        try clock.set("2027-07-01T00:00:00Z")
        _ = try registry.runSchedule()
        _ = try registry.addCampaign(
            try draft("july", where: nil, experiences: [1], changes: #"{"subtitle":"July"}"#, from: "2027-07-02T00:00:00Z", until: nil))
        try clock.set("2027-07-02T00:00:00Z")
        _ = try registry.runSchedule()
        let reverted = try registry.revertCampaign("summer", team: nil).value
        #expect(reverted.kept.map(\.id) == [1] && reverted.kept[0].reason == "campaign july holds it")
        #expect(try registry.experience("1").defaultCard.subtitle == "July")
        let running = try registry.revertCampaign("july", team: nil).value
        #expect(running.end?.kind == .campaignEnd && running.campaign.state == .ended && running.unchanged == [1])
        #expect(try registry.experience("1").defaultCard.subtitle == "Rent a bike")
    }

    /// A campaign whose end has passed would only be two late flips undoing each other: refused, and nothing written. A
    /// selector that matches nothing yet is taken, with a warning: it is read again at the start.
    @Test func aCampaignThatEndedIsRefusedAndOneSelectingNothingYetChangesWhatItSelectsAtItsStart() throws {
        let (registry, clock, path) = try setUp()
        _ = try registry.register(try station(1, region: "lyon"))
        func file() -> [Data] { ["", "-wal"].map { (try? Data(contentsOf: URL(fileURLWithPath: path + $0))) ?? Data() } }
        let untouched = file()
        #expect(
            throws: RegistryError.invalid([
                FieldError(field: "endsAt", rule: "campaign.past", message: "2027-04-01T00:00:00Z has passed: the campaign would never run")
            ])
        ) {
            try registry.addCampaign(
                try draft("past", changes: #"{"subtitle":"Past"}"#, from: "2027-03-01T00:00:00Z", until: "2027-04-01T00:00:00Z"))
        }
        #expect(file() == untouched)
        let added = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#))
        #expect(added.warnings.map(\.rule) == ["campaign.empty"])
        for n in 2...3 { _ = try registry.register(try station(n, region: "idf")) }
        try clock.set("2027-06-01T00:00:00Z")
        let started = try registry.runSchedule()
        #expect(started.first?.detail?["changed"] == .integer(2))
        #expect(
            try registry.experience("3").defaultCard.subtitle == "Summer" && registry.experience("1").defaultCard.subtitle == "Rent a bike")
    }

    /// docs/schedules.md#app-store-connect: a campaign pushed ahead is, for App Store Connect, in force the lead before
    /// its start and over the lead before its end; one that is not, at its times; the scheduler's pushes say when.
    @Test func aCampaignPushedAheadIsHeldByAppStoreConnectTheLeadBeforeItsEdges() throws {
        let (registry, clock, _) = try setUp()
        for n in 1...2 { _ = try registry.register(try station(n, region: "idf")) }
        var ahead = try draft("summer", experiences: [1], changes: #"{"subtitle":"Summer"}"#)
        ahead.selector = nil
        ahead.pushAhead = true
        #expect(try registry.addCampaign(ahead).value.pushAhead)
        var plain = try draft("summer-2", where: nil, experiences: [2], changes: #"{"subtitle":"Summer"}"#)
        plain.pushAhead = false
        _ = try registry.addCampaign(plain)
        let lead: Int64 = 48 * 3600
        func subtitles(_ at: String) throws -> [String] {
            let all = try registry.experiences(Registry.ListFilter())
            return try registry.projected(all, at: Instant(canonical: Array(at.utf8))!, aheadSeconds: lead).map(\.defaultCard.subtitle)
        }
        #expect(try subtitles("2027-05-29T23:59:59Z") == ["Rent a bike", "Rent a bike"])
        #expect(try subtitles("2027-05-30T00:00:00Z") == ["Summer", "Rent a bike"], "the lead before its start")
        #expect(try subtitles("2027-06-01T00:00:00Z") == ["Summer", "Summer"])
        let own = try registry.projected(
            try registry.experiences(Registry.ListFilter()), at: Instant(canonical: Array("2027-05-30T00:00:00Z".utf8))!)
        #expect(own.map(\.defaultCard.subtitle) == ["Rent a bike", "Rent a bike"], "the registry's own surfaces: at its time")
        let clip = try AppID("ABCDE12345.com.example.bikes.Clip")
        let due = try registry.ascPushesDue(
            clip: clip, leadSeconds: lead, after: Instant(canonical: Array("2027-05-29T00:00:00Z".utf8))!,
            through: Instant(canonical: Array("2027-08-31T00:00:00Z".utf8))!)
        #expect(due.map(\.name) == ["start of campaign summer, ahead", "end of campaign summer, ahead"])
        #expect(due.map(\.dueAt.description) == ["2027-05-30T00:00:00Z", "2027-08-30T00:00:00Z"])
        try clock.set("2027-06-01T00:00:00Z")
        _ = try registry.runSchedule()
        #expect(try subtitles("2027-08-30T00:00:00Z") == ["Rent a bike", "Summer"], "its end, the lead before it")
    }

    @Test func twoRunnersOnOneDatabaseApplyEachFlipOnce() throws {
        let (registry, clock, path) = try setUp()
        for n in 1...20 {
            _ = try registry.register(
                try experienceJSON("https://ride.example/w/\(n)", extra: #","liveFrom":"2027-06-01T00:00:\#(String(format: "%02d", n))Z""#))
        }
        for n in 1...5 { _ = try registry.register(try station(n, region: "idf")) }
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer"}"#, until: nil))
        try clock.set("2027-06-01T00:01:00Z")
        let applied = Mutex<[ScheduledFlip]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let flips = (try? Registry(path: path, now: clock.now).runSchedule()) ?? []
            applied.withLock { $0 += flips }
        }
        let all = applied.withLock { $0 }
        #expect(all.count == 21 && Set(all.map { "\($0.kind.rawValue) \($0.subject)" }).count == 21)
        #expect(try registry.appliedFlips(team: nil, limit: 1000).count == 21)
        #expect(try registry.experience("21").version == 2, "the campaign changed it once")
    }
}

extension ScheduleTests {
    /// "What will it serve then?": what `resolve`, `list` and `publish` say at a moment before it comes is what the
    /// registry serves once the clock is there and the scheduler has run.
    @Test func theAnswersAtAMomentAreWhatIsServedWhenTheClockGetsThere() throws {
        let (registry, clock, _) = try setUp()
        _ = try registry.register(try experienceJSON("https://ride.example/s", clip: "ABCDE12345.com.example.bikes.Clip"))
        _ = try registry.addDomain(clip: "ABCDE12345.com.example.bikes.Clip", host: "ride.example")
        for n in 1...3 { _ = try registry.register(try station(n, region: "idf")) }
        _ = try registry.register(
            try experienceJSON("https://ride.example/s/summer", extra: #","liveFrom":"2027-06-15T00:00Z","liveUntil":"2027-08-15T00:00Z""#))
        _ = try registry.addCampaign(try draft("summer", changes: #"{"subtitle":"Summer","title":"Summer station"}"#))
        func answer(at: Instant?) throws -> [String] {
            var lines: [String] = []
            for url in ["https://ride.example/s/1", "https://ride.example/s/summer/x"] {
                if case .advanced(let e, _) = try registry.resolve(url, at: at).match {
                    lines.append("\(url) → \(e.id) \(e.defaultCard.title) | \(e.defaultCard.subtitle)")
                }
            }
            let listed = try registry.experiences()
            let projected = try at.map { try registry.projected(listed, at: $0) } ?? listed
            for e in projected {
                lines.append("list \(e.id) \(e.defaultCard.subtitle)")
            }
            lines.append("banners \(try registry.publication(at: at).banners.map(\.experienceID))")
            return lines
        }
        for moment in [
            "2027-05-31T23:59:59Z", "2027-06-01T00:00:00Z", "2027-06-20T00:00:00Z", "2027-08-31T23:59:59Z", "2027-09-01T00:00:00Z",
        ] {
            let at = Instant(canonical: Array(moment.utf8))!
            let predicted = try answer(at: at)
            try clock.set(moment)
            try registry.runSchedule()
            #expect(try answer(at: nil) == predicted, "at \(moment)")
        }
        #expect(try answer(at: nil).contains("https://ride.example/s/summer/x → 1 Rent a bike | Tap to unlock"))
    }
}

extension AdvancedExperience {
    fileprivate var defaultTitle: String { defaultCard.title }
}
