import Foundation
import Locking
import TestSupport
import Testing
@testable import HTTP1

/// The slowloris attack of issue 24: one unauthenticated client holds a thousand connections that
/// each send one byte of a request head every 0.3 s and never finish it, and a well-behaved client
/// beside it must keep getting its answers, every one within a second (docs/architecture.md, "Limits
/// and slow clients"). Real sockets on 127.0.0.1, in process; each test takes a few seconds.
@Suite(.serialized) struct SlowHeaderFloodTests {
    /// Below the cap (the default one, from the descriptor limit and memory): the flood is simply
    /// held, and nothing is refused.
    @Test func aThousandSlowHeadsBesideANormalClientAtTheDefaultCap() throws {
        try Self.needDescriptors(2 * 1_500 + 200)
        let limits = HTTPLimits()
        #expect(limits.maxConnections >= 1_500, "the default cap holds the flood and the client: \(limits.maxConnections)")
        let t = try TestServer(limits: limits)
        let flood = try SlowHeadFlood(port: t.port, dripping: 1_000, held: 400)
        defer { flood.stop() }
        Thread.sleep(forTimeInterval: 0.3)
        let report = NormalClient.run(port: t.port, seconds: 2.5)
        #expect(report.failures.count == 0, "\(report.failures.count) failures, the first: \(report.failures.prefix(5))")
        #expect(report.answered >= 10, "the client made progress: \(report.answered) answers")
        #expect(report.slowest < 1, "every answer within a second: the slowest took \(report.slowest) s")
        #expect(flood.closedByServer == 0, "below the cap no slow head is closed before its deadline")
    }

    /// Above the cap: the connections that have sent the least for the longest make room, never a
    /// kept-alive client between its requests (idle less than a second) or a body that is
    /// arriving.
    @Test func aThousandSlowHeadsAboveTheCapMakeRoomForANormalClient() throws {
        try Self.needDescriptors(2 * 1_500 + 200)
        var limits = HTTPLimits()
        limits.maxConnections = 200
        let t = try TestServer(limits: limits)
        // A body arriving at a steady pace, sent over the whole test: never the one to make room.
        let upload = try RawClient(port: t.port)
        let bodyBytes = 60 * 1024
        upload.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(bodyBytes)\r\n\r\n")
        let uploadFD = upload.fd
        let uploading = Thread {
            let chunk = [UInt8](repeating: 66, count: 1024)
            for _ in 0..<(bodyBytes / 1024) {
                _ = chunk.withUnsafeBytes { send(uploadFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Thread.sleep(forTimeInterval: 0.06)
            }
        }
        uploading.start()
        let flood = try SlowHeadFlood(port: t.port, dripping: 1_000, held: 400)
        defer { flood.stop() }
        // Room is made only from connections that have waited a second or more.
        Thread.sleep(forTimeInterval: 1.2)
        let report = NormalClient.run(port: t.port, seconds: 2.5)
        #expect(report.failures.count == 0, "\(report.failures.count) failures, the first: \(report.failures.prefix(5))")
        #expect(report.answered >= 10, "the client made progress: \(report.answered) answers")
        #expect(report.slowest < 1, "every answer within a second: the slowest took \(report.slowest) s")
        #expect(flood.closedByServer >= 800, "the dripping beyond the cap were refused or made room: \(flood.closedByServer)")
        let answer = upload.readResponses(1, seconds: 5).first ?? ""
        #expect(body(answer) == "PUT /upload \(bodyBytes)", "the upload kept its connection: \(answer)")
    }

    /// The test process holds both ends of every connection: the soft descriptor limit is raised
    /// to the hard one (as `clipctl serve` does), and a hard limit below `count` fails plainly.
    static func needDescriptors(_ count: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_cur >= count, "needs \(count) descriptors (ulimit -Hn is \(limit.rlim_max))")
    }
}

/// Connections that each send one more byte of a request head every 0.3 s (spread over the
/// period) and never finish it, from one thread, until stopped; and, interleaved with them,
/// connections that send a request (answered 200, as a 401 would be) and are then held open.
final class SlowHeadFlood: @unchecked Sendable {
    static let head = Array("GET /flood HTTP/1.1\r\nHost: x\r\nX-Drip: ".utf8)
    private let sockets: [Int32]
    private let held: [Int32]
    private let state = Locked<(stopped: Bool, closed: Int)>((false, 0))
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, dripping: Int, held: Int) throws {
        var sockets: [Int32] = [], kept: [Int32] = []
        for i in 0..<(dripping + held) {
            if (i % 3 == 2 && kept.count < held) || sockets.count == dripping {
                let fd = try Self.connect(port: port)
                _ = Array("GET /held HTTP/1.1\r\nHost: x\r\n\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                kept.append(fd)
            } else {
                sockets.append(try Self.connect(port: port))
            }
        }
        self.sockets = sockets
        self.held = kept
        Thread { [self] in drip() }.start()
    }

    /// Dripping connections the server closed (refused over the cap, or closed to make room).
    var closedByServer: Int { state.withLock { $0.closed } }

    func stop() {
        state.withLock { $0.stopped = true }
        done.wait()
        (sockets + held).forEach { close($0) }
    }

    private func drip() {
        var sent = [Int](repeating: 0, count: sockets.count)
        var open = [Bool](repeating: true, count: sockets.count)
        let slices = 10
        while !state.withLock({ $0.stopped }) {
            for slice in 0..<slices {
                for i in stride(from: slice, to: sockets.count, by: slices) where open[i] {
                    var byte = sent[i] < Self.head.count ? Self.head[sent[i]] : UInt8(ascii: "a")
                    if send(sockets[i], &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == 1 {
                        sent[i] += 1
                    } else {
                        open[i] = false
                        state.withLock { $0.closed += 1 }
                    }
                }
                Thread.sleep(forTimeInterval: 0.3 / Double(slices))
            }
        }
        done.signal()
    }

    static func connect(port: Int) throws -> Int32 {
        let client = try RawClient(port: port)
        return dup(client.fd)  // RawClient closes its own descriptor when released
    }
}

/// A well-behaved client: a new connection per request, and a kept-alive one between them; every
/// answer must be 200 and its time is measured.
enum NormalClient {
    struct Report {
        var answered = 0
        var slowest = 0.0
        var failures: [String] = []
    }

    static func run(port: Int, seconds: Double) -> Report {
        var report = Report()
        let end = RawClient.now() + seconds
        var kept: RawClient?
        var round = 0
        while RawClient.now() < end {
            round += 1
            let started = RawClient.now()
            do {
                let client = try RawClient(port: port)
                client.send("GET /normal/\(round) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                record(client.readAll(seconds: 3), "GET /normal/\(round) 0", since: started, into: &report)
            } catch {
                report.failures.append("connect: \(error)")
            }
            let keptStarted = RawClient.now()
            do {
                let client = try kept ?? RawClient(port: port)
                kept = client
                client.send("GET /kept/\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
                record(client.readResponses(1, seconds: 3).first ?? "", "GET /kept/\(round) 0", since: keptStarted, into: &report)
            } catch {
                report.failures.append("connect: \(error)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return report
    }

    static func record(_ answer: String, _ expected: String, since started: Double, into report: inout Report) {
        report.slowest = max(report.slowest, RawClient.now() - started)
        if statusLine(answer) == "HTTP/1.1 200 OK" && body(answer) == expected {
            report.answered += 1
        } else {
            report.failures.append("\(expected): \(statusLine(answer).isEmpty ? "no answer" : statusLine(answer))")
        }
    }
}

extension RawClient {
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The default cap: the smaller of what descriptors and a quarter of memory allow, at least 256.
struct ConnectionBudgetTests {
    @Test func theCapIsTheSmallerOfDescriptorsAndMemory() {
        let gib: UInt64 = 1 << 30
        #expect(ConnectionBudget(descriptors: 20_000, memoryBytes: 24 * gib).maxConnections == 19_744, "descriptors bound it")
        #expect(
            ConnectionBudget(descriptors: 524_288, memoryBytes: 1 * gib).maxConnections == 4_096, "memory bounds it: 1 GiB ÷ 4 ÷ 64 KiB")
        #expect(ConnectionBudget(descriptors: 1_024, memoryBytes: 64 * gib).maxConnections == 768)
        #expect(ConnectionBudget(descriptors: 300, memoryBytes: 64 * gib).maxConnections == 256, "never below the old cap")
        #expect(ConnectionBudget(descriptors: 0, memoryBytes: 0).maxConnections == 256)
    }

    @Test func theSoftDescriptorLimitIsRaisedToTheHardOne() {
        ConnectionBudget.raiseDescriptorLimit()
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #expect(limit.rlim_cur == limit.rlim_max)
        let budget = ConnectionBudget.current()
        #expect(budget.descriptors == Int(clamping: limit.rlim_max))
        #expect(budget.memoryBytes > 0)
        #expect(HTTPLimits().maxConnections == budget.maxConnections)
    }
}
