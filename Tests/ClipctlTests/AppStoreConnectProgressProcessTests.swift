import Foundation
import StrictJSON
import TestSupport
import Testing

/// `clipctl asc apply --progress auto|plain|none` (issue 32 item 6: 299 creates took 13 minutes with nothing on standard
/// error). The built clipctl as a process, whose standard error is a pipe, not a terminal, as in a CI log.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectProgressProcessTests {
    static let clip = AppStoreConnectProcessTests.clip

    /// The plain progress lines on standard error.
    static func progressLines(_ err: String) -> [String] {
        err.split(separator: "\n").map(String.init).filter { $0.hasPrefix("asc apply \(clip): ") }
    }

    @Test func standardErrorThatIsNotATerminalGetsAPlainLineNowAndThenWithCountRateAndTimeLeft() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        try AppStoreConnectConvergenceTests.registerDocks(clipctl, 1...12)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        // 13 creates of about a second each: longer than the 10 s between two lines.
        try fake.inject([["kind": "stall", "seconds": .double(0.8), "times": 100, "method": "POST", "path": "appClipAdvancedExperiences$"]])
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        let lines = Self.progressLines(applied.err)
        // 1 update and 13 creates.
        #expect(lines.first == "asc apply \(Self.clip): 0/14 steps done", "\(applied.err)")
        #expect(lines.count >= 3, "a line when it starts, one after 10 s, one at the end: \(applied.err)")
        let middle = lines.dropFirst().dropLast()
        #expect(
            middle.allSatisfy {
                $0.range(of: #"^asc apply \S+: ([1-9]|1[0-3])/14 steps done, \d+\.\d/min, about \d+ s left$"#, options: .regularExpression)
                    != nil
            },
            "\(lines)")
        #expect(
            lines.last?.range(of: #": 14/14 steps done in \d+ s, \d+\.\d/min$"#, options: .regularExpression) != nil, "\(lines)")
        // Plain lines only: not each step, no carriage return or escape sequence a log would show as noise.
        #expect(!applied.err.contains("[1/"), "\(applied.err)")
        #expect(!applied.err.contains("\r") && !applied.err.contains("\u{1B}"))
        #expect(applied.out.contains("requests: "))
        #expect(try fake.violations() == [])
    }

    @Test func progressNoneSaysNothingAndAnUnknownChoiceIsAUsageErrorBeforeAnyRequest() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let refused = try clipctl("asc", "apply", "--yes", "--progress", "fast")
        #expect(refused.code == 64)
        #expect(refused.err.contains("--progress is one of auto, plain, none, not fast"), "\(refused.err)")
        #expect(try fake.writes() == 0)

        let quiet = try clipctl("asc", "apply", "--yes", "--progress", "none")
        #expect(quiet.code == 0, "\(quiet.err)")
        #expect(quiet.err.isEmpty, "\(quiet.err)")
        #expect(quiet.out.contains("requests: "))
        #expect(try fake.writes() > 0)
        #expect(try fake.violations() == [])
    }
}
