@testable import ClipWebhooks
import ClipCore
import ClipStore
import Foundation
import HTTP1
import Locking
import StrictJSON
import SystemCrypto
import Testing

/// Signing a delivery, and the delivery worker against receivers that fail, hang, redirect and come back.
struct WebhookSigningTests {
    /// Standard Webhooks' own example (the reference libraries' test vector): our HMAC over our signed content.
    @Test func theStandardWebhooksExampleSignature() throws {
        let key = try #require(WebhookSignature.key(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let content = WebhookSignature.signedContent(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        #expect(WebhookSignature.header(hmac: try HMAC.sha256(key: key, message: content)) == expected)
        #expect(
            try WebhookSignature.header(
                key: key, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
                == expected)
    }
}

/// A receiver on 127.0.0.1 whose answers the test scripts, recording what it was sent.
final class Receiver: Sendable {
    struct Received: Sendable {
        let id: String
        let timestamp: String
        let signature: String
        let body: [UInt8]
        let target: String
    }
    final class Script: Sendable {
        let received = Locked<[Received]>([])
        let answers: Locked<[HTTPResponse]>
        let hangs: Locked<[Double]>
        init(_ answers: [HTTPResponse], _ hangs: [Double]) {
            self.answers = Locked(answers)
            self.hangs = Locked(hangs)
        }
    }
    let script: Script
    let server: HTTPServer
    let port: Int

    init(answers: [HTTPResponse], hangSeconds: [Double] = []) throws {
        let script = Script(answers, hangSeconds)
        self.script = script
        server = HTTPServer(configuration: HTTPServer.Configuration()) { request in
            script.received.withLock {
                $0.append(
                    Received(
                        id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "",
                        signature: request.headers["webhook-signature"] ?? "", body: request.body, target: request.target))
            }
            let hang = script.hangs.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            if hang > 0 { Thread.sleep(forTimeInterval: hang) }
            return script.answers.withLock { $0.isEmpty ? HTTPResponse(status: 200, text: "ok") : $0.removeFirst() }
        }
        port = try server.start()
    }

    var requests: [Received] { script.received.withLock { $0 } }

    deinit { server.stop(drainSeconds: 1) }
}

@Suite(.serialized) struct WebhookWorkerTests {
    func setUp(_ url: (Int) -> String, port: Int, events: String = "experience.*") throws -> (path: String, secret: String, id: Int64) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("clips.db").path
        let registry = try Registry(path: path)
        defer { registry.close() }
        let added = try registry.addWebhook(
            url: url(port), events: try WebhookEventPatterns(events), team: nil, allowPrivateTargets: true
        ).value
        return (path, added.secret, added.endpoint.id)
    }

    func worker(_ path: String, schedule: [Int64] = [50, 100, 200], timeout: Double = 0.5, allowPrivate: Bool = true) -> WebhookWorker {
        var c = WebhookWorker.Configuration()
        c.schedule = WebhookRetrySchedule(delaysMilliseconds: schedule)
        c.timeoutSeconds = timeout
        c.allowPrivateTargets = allowPrivate
        c.pollSeconds = 0.05
        return WebhookWorker(path: path, configuration: c, log: { _ in })
    }

    func register(_ path: String, _ urls: [String]) throws {
        let registry = try Registry(path: path)
        defer { registry.close() }
        for url in urls {
            _ = try registry.register(
                try JSONParser.parse(#"{"url":"\#(url)","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#))
        }
    }

    /// 500, a hang past the timeout, then 200: every event arrives in order, signed, a retry with its first webhook-id.
    @Test func failsTimesOutAndComesBack() throws {
        let receiver = try Receiver(
            answers: [HTTPResponse(status: 500, text: "no"), HTTPResponse(status: 200, text: "late")], hangSeconds: [0, 1.5])
        let (path, secret, id) = try setUp({ "http://127.0.0.1:\($0)/hook?x=1" }, port: receiver.port)
        try register(path, ["https://a.example/1", "https://a.example/2", "https://a.example/3"])
        let w = worker(path)
        w.start()
        defer { w.stop() }
        let registry = try Registry(path: path)
        defer { registry.close() }
        let deadline = Date().addingTimeInterval(20)
        while try registry.webhookDeliveries(id: id).contains(where: { $0.deliveredAt == nil }) && Date() < deadline { usleep(20_000) }
        let requests = receiver.requests
        #expect(requests.count >= 5)  // 500, timeout, then the three delivered
        // Order: the first event until it is delivered, then the second, then the third.
        var distinct: [String] = []
        for r in requests where distinct.last != r.id { distinct.append(r.id) }
        #expect(distinct.count == 3, "\(requests.map(\.id))")
        #expect(Set(requests.prefix(3).map(\.id)).count == 1)
        let key = try #require(WebhookSignature.key(secret: secret))
        for r in requests {
            let expected = WebhookSignature.header(
                hmac: try HMAC.sha256(
                    key: key, message: WebhookSignature.signedContent(id: r.id, timestamp: Int64(r.timestamp)!, body: r.body)))
            #expect(r.signature == expected)
            #expect(r.target == "/hook?x=1")
            #expect(abs(Int64(r.timestamp)! - Int64(Date().timeIntervalSince1970)) < 60)
        }
        let urls = try requests.map { try JSONParser.parse(String(decoding: $0.body, as: UTF8.self))["data"]?["url"]?.stringValue ?? "" }
        var inOrder: [String] = []
        for u in urls where inOrder.last != u { inOrder.append(u) }
        #expect(inOrder == ["https://a.example/1", "https://a.example/2", "https://a.example/3"])
        let deliveries = try registry.webhookDeliveries(id: id)
        #expect(deliveries.allSatisfy { $0.deliveredAt != nil })
        #expect(deliveries.last?.attempts ?? 0 >= 3)
    }

    /// Endpoints are sent to side by side: three that hang past the timeout do not hold up another's delivery.
    @Test func aHangingEndpointHoldsUpNoOther() throws {
        let hanging = try Receiver(answers: [], hangSeconds: [8, 8, 8, 8, 8, 8])
        let prompt = try Receiver(answers: [])
        let (path, _, _) = try setUp({ "http://127.0.0.1:\($0)/slow1" }, port: hanging.port)
        let registry = try Registry(path: path)
        defer { registry.close() }
        for n in 2...3 {
            _ = try registry.addWebhook(
                url: "http://127.0.0.1:\(hanging.port)/slow\(n)", events: try WebhookEventPatterns("experience.*"), team: nil,
                allowPrivateTargets: true)
        }
        let fast = try registry.addWebhook(
            url: "http://127.0.0.1:\(prompt.port)/fast", events: try WebhookEventPatterns("experience.*"), team: nil,
            allowPrivateTargets: true
        ).value.endpoint
        // Each hanging request lasts its 6 s timeout: one of them ahead of the prompt endpoint would hold it that long.
        let w = worker(path, timeout: 6)
        w.start()
        defer { w.stop() }
        let started = Date()
        try register(path, ["https://a.example/1"])
        w.wake()
        while try registry.webhookDeliveries(id: fast.id).contains(where: { $0.deliveredAt == nil }), Date().timeIntervalSince(started) < 20
        {
            usleep(20_000)
        }
        #expect(prompt.requests.count == 1)
        // One after the other, the three hanging endpoints would have taken 3 × 6 s first; 5 s leaves room for a busy machine.
        #expect(Date().timeIntervalSince(started) < 5, "the prompt endpoint waited on the hanging ones")
    }

    /// A redirect is a failure, not followed, reported with its Location; a spent schedule makes the endpoint failing.
    @Test func aRedirectIsNotFollowed() throws {
        let trap = try Receiver(answers: [])
        let redirect = HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "http://127.0.0.1:\(trap.port)/admin")]), body: [])
        let receiver = try Receiver(answers: [redirect, redirect, redirect])
        let (path, _, id) = try setUp({ "http://127.0.0.1:\($0)/hook" }, port: receiver.port)
        try register(path, ["https://a.example/1"])
        let w = worker(path, schedule: [20, 20])
        w.start()
        defer { w.stop() }
        let registry = try Registry(path: path)
        defer { registry.close() }
        let deadline = Date().addingTimeInterval(20)
        while try registry.webhook(id: id).state == .active && Date() < deadline { usleep(20_000) }
        let endpoint = try registry.webhook(id: id)
        #expect(endpoint.state == .failing)
        #expect(
            endpoint.failure?.contains("redirect to http://127.0.0.1:\(trap.port)/admin not followed") == true, "\(endpoint.failure ?? "")")
        #expect(trap.requests.isEmpty)
        #expect(receiver.requests.count == 3)
    }

    /// At delivery the target is checked again: a loopback receiver is refused unless private targets are allowed.
    @Test func aPrivateTargetIsRefusedAtDelivery() throws {
        let receiver = try Receiver(answers: [])
        let (path, _, id) = try setUp({ "http://localhost:\($0)/hook" }, port: receiver.port)
        try register(path, ["https://a.example/1"])
        let w = worker(path, schedule: [10_000], allowPrivate: false)
        w.start()
        let registry = try Registry(path: path)
        defer { registry.close() }
        let deadline = Date().addingTimeInterval(10)
        while try registry.webhookDeliveries(id: id).first?.attempts ?? 0 == 0 && Date() < deadline { usleep(20_000) }
        w.stop()
        #expect(receiver.requests.isEmpty)
        #expect(try registry.webhookDeliveries(id: id).first?.lastError?.contains("refused") == true)
    }
}
