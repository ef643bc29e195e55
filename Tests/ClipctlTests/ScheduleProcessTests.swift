import Foundation
import Testing

/// docs/schedules.md through the built `clipctl`: a campaign the server's scheduler starts and ends on time, a server
/// killed (-9) across a due time that applies the flip once at its restart and records it late, and `schedule run` for
/// setups without a server.
@Suite(.serialized) struct ScheduleProcessTests {
    static let clip = "ABCDE12345.com.example.bikes.Clip"

    /// A UTC time `seconds` from now, as the registry writes one.
    static func fromNow(_ seconds: Int) -> String {
        utc().string(from: Date().addingTimeInterval(Double(seconds)))
    }

    static func utc() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }

    /// Sleeps until a moment `fromNow` gave has passed, plus `margin` seconds: a loaded machine may take longer than the
    /// test planned to reach the line, so a test waits for the time itself, not for a number of seconds.
    static func sleepPast(_ time: String, margin: Double = 1) {
        guard let date = utc().date(from: time) else { preconditionFailure("not a time fromNow gave: \(time)") }
        let left = date.timeIntervalSinceNow + margin
        if left > 0 { usleep(useconds_t(left * 1_000_000)) }
    }

    func register(_ clipctl: Clipctl, stations: Int) throws {
        for n in 1...stations {
            let r = try clipctl(
                "register", "https://ride.example/s/\(n)", "--clip", Self.clip, "--title", "Station \(n)", "--subtitle", "Rent a bike",
                "--label", "region=idf")
            try #require(r.code == 0, "\(r.err)")
        }
    }

    func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(200_000)
        }
        return try condition()
    }

    @Test func theServersSchedulerStartsAndEndsACampaignOnTimeWhileTheCLIWritesBeside() throws {
        let clipctl = try Clipctl()
        try register(clipctl, stations: 3)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let added = try clipctl(
            "campaign", "add", "flash", "--team", "ABCDE12345", "--where", "label.region=idf", "--from", Self.fromNow(4), "--until",
            Self.fromNow(8), "--set", "subtitle=Flash sale")
        try #require(added.code == 0, "\(added.err)")
        #expect(
            try waitFor(10) { try clipctl("show", "1").out.contains("Flash sale") }, "the server's scheduler started it")
        // The CLI writes beside the running server; the end still comes once.
        #expect(try clipctl("update", "2", "--title", "Station two").code == 0)
        #expect(try waitFor(10) { try clipctl("campaign", "show", "flash").out.contains(": ended, from") })
        let listed = try clipctl("campaign", "list").out
        #expect(listed.contains("ENDED") && !listed.contains("(started") && !listed.contains("ended 20"), "on time: \(listed)")
        let one = try clipctl("show", "1").out, two = try clipctl("show", "2").out
        #expect(!one.contains("Flash sale") && !two.contains("Flash sale"))
        #expect(two.contains("Station two"), "a member the campaign did not change is kept")
        let history = try clipctl("history", "1").out
        #expect(history.components(separatedBy: "subtitle:").count - 1 == 2, "one record at the start, one at the end: \(history)")
        let schedule = try JSONSerialization.jsonObject(with: Data(try clipctl("schedule", "list", "--json").out.utf8)) as? [String: Any]
        let applied = schedule?["applied"] as? [[String: Any]] ?? []
        #expect(applied.map { $0["kind"] as? String } == ["campaign.end", "campaign.start"], "\(applied)")
        #expect(applied.allSatisfy { $0["by"] as? String == "schedule" && $0["late"] as? Bool == false })
    }

    @Test func aServerKilledAcrossADueTimeAppliesTheFlipOnceAtItsRestartAndRecordsItLate() throws {
        let clipctl = try Clipctl()
        try register(clipctl, stations: 2)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        let start = Self.fromNow(4)
        #expect(
            try clipctl(
                "campaign", "add", "late", "--team", "ABCDE12345", "--experience", "1", "--experience", "2", "--from", start,
                "--set", "subtitle=Late start"
            ).code == 0)
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        Self.sleepPast(start, margin: 8)  // later than docs/schedules.md's 5 s, after which a flip counts as late
        let before = try clipctl("show", "1").out
        #expect(!before.contains("Late start"), "nothing ran at its time")
        let restarted = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = restarted.stop() }
        #expect(try waitFor(10) { try clipctl("show", "1").out.contains("Late start") })
        sleep(2)
        let listed = try clipctl("schedule", "list").out
        #expect(listed.contains("campaign.start  1  late") && listed.contains("LATE by"), "\(listed)")
        #expect(listed.components(separatedBy: "campaign.start").count - 1 == 1, "applied once: \(listed)")
        #expect(try clipctl("history", "1").out.components(separatedBy: "Late start").count - 1 == 1)
        #expect(try String(contentsOfFile: clipctl.file("serve-stderr.log"), encoding: .utf8).contains("LATE by"))
    }

    @Test func scheduleRunAppliesWhatFellDueOnceWithoutAServer() throws {
        let clipctl = try Clipctl()
        try register(clipctl, stations: 1)
        let liveFrom = Self.fromNow(6)
        #expect(
            try clipctl(
                "register", "https://ride.example/summer", "--clip", Self.clip, "--title", "Summer", "--subtitle", "Soon", "--live-from",
                liveFrom
            ).code == 0)
        let due = try clipctl("schedule", "list").out
        #expect(due.contains("experience.live  2  https://ride.example/summer"), "\(due)")
        Self.sleepPast(liveFrom)
        let ran = try clipctl("schedule", "run")
        #expect(ran.code == 0 && ran.out.contains("applied 1 flip") && ran.out.contains("experience.live  2"), "\(ran.out)")
        #expect(try clipctl("schedule", "run").out.contains("nothing was due"))
        // Another team's token, or a team token at all, may not run every team's schedule.
        let token = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "t").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let refused = try clipctl("--server", "http://127.0.0.1:\(server.port)", "--token", token, "schedule", "run")
        #expect(refused.code != 0)
    }

    /// `campaign revert` through the built `clipctl`, on the database and through a server (`--server`): what `end` kept
    /// is set back; a campaign that never started is refused.
    @Test func campaignRevertSetsBackWhatTheEndKeptOnTheDatabaseAndThroughAServer() throws {
        let clipctl = try Clipctl()
        try register(clipctl, stations: 2)
        let added = try clipctl(
            "campaign", "add", "flash", "--team", "ABCDE12345", "--where", "label.region=idf", "--from", Self.fromNow(3600),
            "--set", "subtitle=Flash sale")
        try #require(added.code == 0, "\(added.err)")
        let never = try clipctl("campaign", "revert", "flash")
        #expect(never.code != 0 && never.err.contains("never started"), "\(never.err)")
        #expect(try clipctl("campaign", "start", "flash").code == 0)
        #expect(try clipctl("update", "2", "--subtitle", "Edited meanwhile").code == 0)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let token = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "t").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let reverted = try clipctl("--server", "http://127.0.0.1:\(server.port)", "--token", token, "campaign", "revert", "flash")
        #expect(reverted.code == 0, "\(reverted.err)")
        #expect(
            reverted.out.contains("campaign flash ended") && reverted.out.contains("reverted: experiences set back 1, already so 1"),
            "\(reverted.out)")
        #expect(try clipctl("show", "2").out.contains("Rent a bike"), "the change made meanwhile is set back too")
        let listed = try clipctl("campaign", "list").out
        #expect(
            listed.contains("ENDED") && listed.contains("(started ") && listed.contains(", ended "), "started and ended by hand: \(listed)")
        let json = try clipctl("campaign", "revert", "flash", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect((object?["unchanged"] as? [Int]) == [1, 2] && (object?["reverted"] as? [Int]) == [], "\(json.out)")
    }
}
