import Foundation
import StrictJSON
import Testing

/// docs/schedules.md#app-store-connect against the fake App Store Connect: `clipctl serve`'s scheduler creates a scheduled
/// experience there at liveFrom minus the clip's lead, pushes a campaign's change at its start and its undoing at its
/// end, and removes the experience at liveUntil; `asc plan --at` says so beforehand and `asc status` lists each push.
@Suite(.enabled(if: FakeASCProcess.shouldRun), .serialized) struct AppStoreConnectScheduleProcessTests {
    static let clip = AppStoreConnectProcessTests.clip

    func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(250_000)
        }
        return try condition()
    }

    @Test func theSchedulerPushesAtLiveFromMinusTheLeadAtACampaignsEdgesAndRemovesAtTheEnd() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        let lead = try clipctl("asc", "lead", Self.clip, "4s")
        #expect(lead.code == 0 && lead.out.contains("0 h 0 min before liveFrom"), "\(lead.out)\(lead.err)")
        #expect(try clipctl("asc", "lead", Self.clip, "soon").code == 65)
        let start = Date()
        let summer = "https://bikesrental.example/summer"
        #expect(
            try clipctl(
                "register", summer, "--clip", Self.clip, "--title", "Summer", "--subtitle", "June to August", "--image", "rent.png",
                "--live-from",
                ScheduleProcessTests.fromNow(10), "--live-until", ScheduleProcessTests.fromNow(22)
            ).code == 0)
        #expect(
            try clipctl(
                "campaign", "add", "flash", "--team", "ABCDE12345", "--experience", "1", "--from", ScheduleProcessTests.fromNow(12),
                "--until", ScheduleProcessTests.fromNow(16), "--set", "title=Flash sale"
            ).code == 0)
        // Beforehand: nothing to push now; at liveFrom minus the lead, its creation; the schedule lists the pushes to come.
        #expect(!(try clipctl("asc", "plan").out.contains(summer)))
        #expect(try clipctl("asc", "plan", "--at", ScheduleProcessTests.fromNow(7)).out.contains("create   4   \(summer)"))
        let status = try clipctl("asc", "status").out
        #expect(
            status.contains("scheduled") && status.contains("create \(summer)") && status.contains("start of campaign flash"), "\(status)")

        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        #expect(try waitFor(20) { try fake.experiences()[summer] != nil }, "created ahead of its start")
        let created = Date().timeIntervalSince(start)
        #expect(created >= 5 && created < 10.5, "pushed at liveFrom minus the lead, not before: \(created) s")
        #expect(try waitFor(25) { try fake.experiences()["https://bikesrental.example/rent"]?["EN"] == "Flash sale" })
        #expect(try waitFor(25) { try fake.experiences()["https://bikesrental.example/rent"]?["EN"] == "Rent a bike" })
        #expect(try waitFor(25) { try fake.experiences()[summer] == nil }, "removed at its end")
        let pushed = try clipctl("asc", "status").out
        for line in ["pushed", "create \(summer)", "start of campaign flash", "end of campaign flash", "remove \(summer)"] {
            #expect(pushed.contains(line), "\(line): \(pushed)")
        }
        #expect(!pushed.contains("OVERDUE"))
        #expect(try fake.violations() == [])
    }

    @Test func anExperienceScheduledSoonerThanTheLeadIsPushedAtOnceAndAWindowTakenAwayToo() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        // The default lead is 48 hours: an experience that starts in an hour is due in App Store Connect now.
        let soon = "https://bikesrental.example/soon", later = "https://bikesrental.example/later"
        for (url, start) in [(soon, 3600), (later, 30 * 86_400)] {
            #expect(
                try clipctl(
                    "register", url, "--clip", Self.clip, "--title", "Soon", "--subtitle", "Starts shortly", "--image", "rent.png",
                    "--live-from", ScheduleProcessTests.fromNow(start)
                ).code == 0)
        }
        #expect(try waitFor(20) { try fake.experiences()[soon] != nil })
        #expect(try fake.experiences()[later] == nil, "a month ahead: not yet")
        // Its window taken away: held from now on.
        #expect(try clipctl("update", later, "--no-live-from").code == 0)
        #expect(try waitFor(20) { try fake.experiences()[later] != nil })
        #expect(try fake.violations() == [])
    }

    /// The kill switch (docs/schedules.md#app-store-connect): `deactivate` says what follows, and serve pushes the removal
    /// at once; `activate` and `remove` are pushed the same way.
    @Test func aDeactivationIsPushedAtOnceAndSaysHowLongDevicesMayLag() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        let rent = "https://bikesrental.example/rent"
        #expect(try fake.experiences()[rent] != nil)
        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        let off = try clipctl("deactivate", rent)
        #expect(off.code == 0)
        #expect(off.out.contains("is DEACTIVATED"), "\(off.out)")
        #expect(off.out.contains("pushes its removal to App Store Connect at once") && off.out.contains("48 hours or more"), "\(off.out)")
        #expect(try waitFor(20) { try fake.experiences()[rent] == nil }, "removed there by serve's scheduler")
        #expect(try clipctl("activate", rent).code == 0)
        #expect(try waitFor(20) { try fake.experiences()[rent] != nil }, "the undo is pushed too")
        #expect(try clipctl("remove", rent).code == 0)
        #expect(try waitFor(20) { try fake.experiences()[rent] == nil })
        let status = try clipctl("asc", "status").out
        #expect(status.contains("remove \(rent)") && status.contains("create \(rent)"), "\(status)")
        #expect(!status.contains("OVERDUE"), "\(status)")
        #expect(try fake.violations() == [])
    }

    /// `campaign add --push-ahead`: App Store Connect gets the campaign's change the clip's lead before its start, while
    /// the registry's own surfaces change at the start; the end is pushed ahead too.
    @Test func aCampaignPushedAheadReachesAppStoreConnectTheLeadBeforeItsStart() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        #expect(try clipctl("asc", "lead", Self.clip, "6s").code == 0)
        let rent = "https://bikesrental.example/rent"
        let start = Date()
        let added = try clipctl(
            "campaign", "add", "early", "--team", "ABCDE12345", "--experience", "1", "--from", ScheduleProcessTests.fromNow(14),
            "--until", ScheduleProcessTests.fromNow(28), "--set", "title=Early bird", "--push-ahead", "--json")
        #expect(added.code == 0 && added.out.contains(#""pushAhead": true"#), "\(added.out)\(added.err)")
        #expect(try clipctl("asc", "status").out.contains("start of campaign early, ahead"))
        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        #expect(try waitFor(20) { try fake.experiences()[rent]?["EN"] == "Early bird" })
        let ahead = Date().timeIntervalSince(start)
        #expect(ahead >= 7 && ahead < 14, "pushed the lead before its start, not before: \(ahead) s")
        #expect(!(try clipctl("show", "1").out.contains("Early bird")), "the registry's own card changes at the start")
        #expect(try waitFor(20) { try clipctl("show", "1").out.contains("Early bird") })
        #expect(try waitFor(20) { try fake.experiences()[rent]?["EN"] == "Rent a bike" })
        let back = Date().timeIntervalSince(start)
        #expect(back >= 21 && back < 28, "the end pushed the lead before it: \(back) s")
        #expect(try clipctl("asc", "status").out.contains("end of campaign early, ahead"))
        #expect(try fake.violations() == [])
    }
}
