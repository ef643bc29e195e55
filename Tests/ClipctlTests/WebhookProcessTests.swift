import Foundation
import StrictJSON
import Testing

/// A receiver in Python on 127.0.0.1 (port 0, printed first) that answers every POST 200 after
/// `delay` seconds and appends "webhook-id url" to `log`: slow enough that a kill finds deliveries pending.
final class PythonReceiver {
    let server: PythonServer
    var port: Int { server.port }
    let log: String

    init(_ clipctl: Clipctl, delay: Double) throws {
        log = clipctl.file("received.log")
        server = try PythonServer(
            clipctl, script: "receiver.py",
            """
            import http.server, json, sys, time
            class R(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    time.sleep(\(delay))
                    url = json.loads(body)["data"].get("url", "")
                    with open(sys.argv[1], "a") as f:
                        f.write(self.headers["webhook-id"] + " " + url + "\\n")
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args):
                    pass
            s = http.server.HTTPServer(("127.0.0.1", 0), R)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """, arguments: [log])
    }

    /// Each request as (webhook-id, url), in the order received.
    var received: [(id: String, url: String)] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
            let parts = $0.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
}

@Suite(.serialized) struct WebhookProcessTests {
    /// `kill -9` of the server with deliveries pending, then a restart: every event is delivered,
    /// in order, none lost; a delivery sent again carries the webhook-id it had.
    @Test func killNineWithPendingDeliveriesLosesNothing() throws {
        let clipctl = try Clipctl()
        let receiver = try PythonReceiver(clipctl, delay: 0.05)
        let add = try clipctl(
            "webhook", "add", "http://127.0.0.1:\(receiver.port)/hook", "--events", "experience.*", "--allow-private-targets")
        #expect(add.code == 0, "\(add.err)")
        #expect(add.out.hasPrefix("whsec_"))
        let count = 40
        let urls = (1...count).map { "https://shop.example/item/\($0)" }
        try clipctl.write(
            "items.ndjson",
            urls.map { #"{"url":"\#($0)","clip":"ABCDE12345.com.example.app.Clip","title":"Item","subtitle":"Buy it"}"# }
                .joined(separator: "\n") + "\n")
        #expect(try clipctl("import", "items.ndjson").code == 0)

        let arguments = ["--allow-private-targets", "--webhook-retry-schedule", "50,100,200"]
        var server = try ServeProcess(clipctl, database: clipctl.file("clips.db"), arguments: arguments)
        var deadline = Date().addingTimeInterval(30)
        while receiver.received.count < 5 && Date() < deadline { usleep(5_000) }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        let beforeRestart = Set(receiver.received.map(\.id)).count
        #expect(beforeRestart >= 5 && beforeRestart < count, "\(beforeRestart) delivered before the kill")

        server = try ServeProcess(clipctl, database: clipctl.file("clips.db"), arguments: arguments)
        deadline = Date().addingTimeInterval(60)
        while Set(receiver.received.map(\.id)).count < count && Date() < deadline { usleep(20_000) }
        let received = receiver.received
        // None lost.
        #expect(Set(received.map(\.url)) == Set(urls))
        // Duplicates only with the same webhook-id: one id per event, one event per id.
        var urlOfID: [String: String] = [:]
        for r in received {
            #expect(urlOfID[r.id] == nil || urlOfID[r.id] == r.url, "\(r.id) was sent for two events")
            urlOfID[r.id] = r.url
        }
        #expect(urlOfID.count == count)
        // In order: events first reached the receiver in the order of the import.
        var firstSeen: [String] = []
        for r in received where !firstSeen.contains(r.url) { firstSeen.append(r.url) }
        #expect(firstSeen == urls)
        #expect(server.stop() == 0)
        let deliveries = try clipctl("webhook", "deliveries", "1", "--limit", "1000", "--json")
        let list = try JSONParser.parse(deliveries.out)
        guard case .array(let items) = list else { Issue.record("deliveries: \(deliveries.out)"); return }
        #expect(items.count == count)
        #expect(items.allSatisfy { $0["state"]?.stringValue == "delivered" })
    }

    /// The CLI on the database: list, test, deliveries, remove; hostile adds refused with exit 65 and nothing written.
    @Test func theCommandsOnTheDatabase() throws {
        let clipctl = try Clipctl()
        #expect(try clipctl("webhook", "add", "https://hooks.example.com/in", "--events", "experience.*,aasa.changed").code == 0)
        let before = try clipctl("--json", "webhook", "list").out
        for url in [
            "file:///etc/passwd", "http://169.254.169.254/", "http://[::ffff:127.0.0.1]/", "http://0x7f000001/", "http://127.0.0.1/",
        ] {
            let r = try clipctl("webhook", "add", url, "--events", "*")
            #expect(r.code == 65, "\(url): \(r.code) \(r.err)")
        }
        #expect(try clipctl("webhook", "add", "https://hooks.example.com/in", "--events", "*").code == 65)  // the same URL again
        // Another spelling of it, and a fragment, which is never sent (docs/rules.md#webhook-urls).
        #expect(try clipctl("webhook", "add", "HTTPS://Hooks.Example.com:443/in", "--events", "*").code == 65)
        let fragment = try clipctl("webhook", "add", "https://hooks.example.com/other#x", "--events", "*")
        #expect(fragment.code == 65 && fragment.err.contains("cannot have a #fragment"), "\(fragment.err)")
        #expect(try clipctl("webhook", "add", "https://x.example.com/", "--events", "nothing").code == 65)
        #expect(try clipctl("webhook", "add", "https://x.example.com/").code == 64)  // --events is required
        #expect(try clipctl("--json", "webhook", "list").out == before)
        #expect(
            try clipctl("webhook", "list").out.contains("admin            active   https://hooks.example.com/in  experience.*,aasa.changed")
        )
        #expect(try clipctl("webhook", "test", "1").out.contains("queued webhook.test"))
        #expect(try clipctl("webhook", "deliveries", "1").out.contains("webhook.test  pending, 0 attempts"))
        #expect(try clipctl("webhook", "remove", "1").out.contains("removed webhook 1"))
        #expect(try clipctl("webhook", "remove", "1").code == 1)
        let spelled = try clipctl("webhook", "add", "HTTP://Hooks.Example.com:80", "--events", "*")
        #expect(spelled.code == 0, "\(spelled.err)")
        #expect(try clipctl("webhook", "list").out.contains("  http://hooks.example.com/  *"), "listed as it is called")
        #expect(try clipctl("webhook", "deliveries", "x").code == 64)
    }
}
