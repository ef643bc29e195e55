import Foundation
import StrictJSON
import TestSupport
import Testing

/// What an apply costs in the key's hourly requests (issue 32 item 4), against the fake App Store Connect processing each
/// image later than the first read after its commit comes: the figures are docs/app-store-connect.md#what-an-apply-costs,
/// read from that page, so the page and this test cannot disagree.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectBudgetProcessTests {
    /// A figure of the cost table: the number that begins the cell beside `step`.
    static func documented(_ step: String) throws -> Int {
        let page = try String(
            contentsOf: FakeAppStoreConnectProcess.repository.appendingPathComponent("docs/app-store-connect.md"), encoding: .utf8)
        let row = try #require(page.split(separator: "\n").first { $0.hasPrefix("| \(step) | ") }, "no row '\(step)' in the cost table")
        return try #require(Int(row.dropFirst(step.count + 5).prefix { $0.isNumber }), "\(row)")
    }

    /// Images take 3 s to process (0.6 s at the tests' wait scale of 0.2), longer than the 2 s an apply waits before its
    /// first read: the first image is read until it is done, and the others once each, after as long as it took.
    /// Before issue 32 every image was read twice (6 requests per new experience).
    @Test func aNewExperienceWithAnImageCostsTheDocumentedFigureWhenImagesTakeLongerThanTheFirstWait() throws {
        var clipctl = try Clipctl()
        let fake = try FakeASCProcess(
            folder: clipctl.directory, arguments: ["--page-size", "200", "--part-size", "1048576", "--processing-seconds", "0.6"])
        try AppStoreConnectProcessTests.prepare(&clipctl, fake)
        try AppStoreConnectConvergenceTests.registerDocks(clipctl, 1...20)
        #expect(try clipctl("asc", "link", AppStoreConnectConvergenceTests.clip).code == 0)
        let before = try AppStoreConnectConvergenceTests.requests(fake).count
        let applied = try clipctl("--json", "asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        let sent = try AppStoreConnectConvergenceTests.requests(fake).dropFirst(before)
        let reads = sent.filter { $0.method == "GET" && $0.path.hasPrefix("/v1/appClips/") }.count
        // 20 docks and /new created, /store updated by one PATCH.
        let perNew = try Self.documented("new experience with its header image")
        let learning = try Self.documented("learning how long an image takes (once per apply)")
        #expect(sent.count - reads - 1 <= 21 * perNew + learning, "\(sent.map { "\($0.method) \($0.path)" })")
        let report = try JSONParser.parse(Array(applied.out.utf8))["applied"]?.arrayValue?.first
        #expect(report?["requests"]?["byKind"]?["create"] == .integer(21))
        guard case .integer(let polls)? = report?["requests"]?["byKind"]?["image-poll"] else {
            Issue.record("no image-poll count: \(applied.out)")
            return
        }
        #expect(polls <= 21 + Int64(learning), "image reads: \(polls)")
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }
}
