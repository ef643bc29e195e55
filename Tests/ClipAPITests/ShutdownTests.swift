import ClipAPI
import ClipCore
import ClipStore
import Dispatch
import Foundation
import HTTP1
import SQLiteDB
import Testing

/// A shutdown never lies: a request whose handler started is answered before `stop` returns
/// (after which the process may exit), and one cut off at the drain deadline rolls back. Live
/// only: it is about the server (its drain window), not the API.
struct ShutdownTests {
    final class Answer: @unchecked Sendable {
        var response: HTTPClient.Response?
        let done = DispatchSemaphore(value: 0)
    }

    @Test func anImportOutlastingTheDrainWindowIsRolledBackAndAnswered503() throws {
        let f = try APIFixture(.live, drainSeconds: 0.2)
        // Another writer holds the write lock, so the import is still under way at the deadline.
        let blocker = try Connection(path: f.path)
        try blocker.execute("BEGIN IMMEDIATE")
        let lines = (0..<3).map { #"{"url":"https://a.example/new/\#($0)","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"# }
        let answer = Answer()
        let client = f.client, admin = f.admin
        Thread.detachNewThread {
            answer.response = try? client.send(
                "POST", "/v1/experiences/import",
                headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/x-ndjson")],
                body: Array(lines.joined(separator: "\n").utf8), timeoutSeconds: 20)
            answer.done.signal()
        }
        usleep(300_000)  // let the import reach the lock
        try #require(f.server).stop()
        // The process could exit now: the answer must already be written.
        let answeredInTime = answer.done.wait(timeout: .now() + 1) == .success
        try blocker.execute("ROLLBACK")
        if !answeredInTime { _ = answer.done.wait(timeout: .now() + 10) }
        #expect(answeredInTime, "no answer when stop returned")
        #expect(answer.response?.status == 503)
        #expect(answer.response?.headers["Retry-After"] == "1")
        // Nothing of the import was written.
        let registry = try Registry(path: f.path)
        var exported = 0
        try registry.export(format: .ndjson) { _ in exported += 1 }
        #expect(exported == 2)
        #expect(f.logLines.all.contains { $0.contains("drain deadline") && $0.contains(#""inFlight":1"#) })
        #expect(f.logLines.all.contains { $0.contains(#""route":"/v1/experiences/import""#) && $0.contains(#""status":503"#) })
    }
    /// The drain deadline in the middle of a long import (no lock in its way): the whole import
    /// rolls back and answers 503, never 422 with the interrupted lines blamed one by one.
    @Test func anImportCutOffMidWayIsA503NotBadLines() throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 32 << 20
        let f = try APIFixture(.live, limits: limits, drainSeconds: 0.2)
        let lines = (0..<150_000).map {
            #"{"url":"https://a.example/new/\#($0)","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#
        }
        let answer = Answer()
        let client = f.client, admin = f.admin
        Thread.detachNewThread {
            answer.response = try? client.send(
                "POST", "/v1/experiences/import",
                headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/x-ndjson")],
                body: Array(lines.joined(separator: "\n").utf8), timeoutSeconds: 60)
            answer.done.signal()
        }
        usleep(500_000)  // the body is in and the import under way
        try #require(f.server).stop()
        _ = answer.done.wait(timeout: .now() + 30)
        #expect(answer.response?.status == 503, "\(answer.response?.status ?? 0): \(answer.response?.text.prefix(300) ?? "")")
        #expect(answer.response?.headers["Retry-After"] == "1")
        #expect(answer.response?.text.contains("SQLite") == false)
        let registry = try Registry(path: f.path)
        var exported = 0
        try registry.export(format: .ndjson) { _ in exported += 1 }
        #expect(exported == 2)
    }
}
