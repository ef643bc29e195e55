import Foundation
import Testing

/// `--server` pointed at something that is not the registry (found by hostile QA: a login page's
/// `200 text/html` made `publish` remove the published site and exit 0; a redirect carried the token
/// to another host). A Python server answers every request with one canned answer.
@Suite(.serialized) struct WrongServerTests {
    final class CannedServer {
        let server: PythonServer
        var port: Int { server.port }
        let log: String

        /// Every request answered `status` with `type` and `body`, or a redirect to `location`; each
        /// request's path and Authorization header appended to `log`.
        init(_ clipctl: Clipctl, status: Int, type: String?, body: String, location: String? = nil) throws {
            log = clipctl.file("canned-\(UUID().uuidString).log")
            server = try PythonServer(
                clipctl, script: "canned.py",
                """
                import http.server, sys
                class R(http.server.BaseHTTPRequestHandler):
                    def answer(self):
                        self.rfile.read(int(self.headers.get("Content-Length", "0")))
                        with open(sys.argv[1], "a") as f:
                            f.write(self.path + " " + str(self.headers.get("Authorization")) + "\\n")
                        body = \(String(reflecting: body)).encode()
                        self.send_response(\(status))
                        if \(String(reflecting: type ?? "")): self.send_header("Content-Type", \(String(reflecting: type ?? "")))
                        if \(String(reflecting: location ?? "")): self.send_header("Location", \(String(reflecting: location ?? "")))
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer
                    def log_message(self, *args):
                        pass
                s = http.server.HTTPServer(("127.0.0.1", 0), R)
                print(s.server_address[1], flush=True)
                s.serve_forever()
                """, arguments: [log])
        }

        var requests: [String] { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
    }

    /// A page that is not the API's, 200 or 502: exit 69, and `publish` leaves its folder as it was.
    @Test(arguments: [(200, "text/html"), (502, "text/html"), (404, "text/plain")])
    func anAnswerThatIsNotTheRegistrysIsRefused(status: Int, type: String) throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        #expect(try clipctl.run(["publish", "site"]).code == 0)
        let site = try FileManager.default.subpathsOfDirectory(atPath: clipctl.file("site")).sorted()
        let server = try CannedServer(clipctl, status: status, type: type, body: "<html>sign in</html>")
        let remote = ["--server", "http://127.0.0.1:\(server.port)", "--token", "secret"]
        for arguments in [["publish", "site"], ["list"], ["doctor"], ["show", "1"]] {
            let r = try clipctl.run(remote + arguments)
            #expect(
                r.code == 69 && r.err.contains("not the registry's JSON: is --server the registry's URL?"),
                "\(arguments): \(r.code) \(r.err)")
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: clipctl.file("site")).sorted() == site)
    }

    /// A port past 65535 is a usage error, not a server that cannot be reached (found by hostile QA: exit 69).
    @Test func aPortThatCannotBeIsAUsageError() throws {
        let r = try Clipctl().run(["--server", "http://127.0.0.1:99999", "--token", "secret", "list"])
        #expect(r.code == 64 && r.err.contains("--server takes a URL"), "\(r.code) \(r.err)")
    }

    /// JSON that is not a list answer is not an empty list.
    @Test func anotherServersJSONIsNotAnEmptyList() throws {
        let clipctl = try Clipctl()
        let server = try CannedServer(clipctl, status: 200, type: "application/json", body: #"{"hello":"world"}"#)
        let r = try clipctl.run(["--server", "http://127.0.0.1:\(server.port)", "--token", "secret", "list"])
        #expect(r.code == 1 && r.err.contains("a list answer without an items array") && r.out.isEmpty, "\(r.code) \(r.out) \(r.err)")
    }

    /// A redirect is not followed: the token goes nowhere else, and the command says where it pointed.
    @Test func aRedirectIsNotFollowedWithTheToken() throws {
        let clipctl = try Clipctl()
        let elsewhere = try CannedServer(clipctl, status: 200, type: "application/json", body: #"{"items":[],"nextCursor":null}"#)
        let server = try CannedServer(
            clipctl, status: 307, type: nil, body: "", location: "http://localhost:\(elsewhere.port)/v1/experiences")
        let r = try clipctl.run([
            "--server", "http://127.0.0.1:\(server.port)", "--token", "secret", "register", "https://bikesrental.example/x",
            "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S",
        ])
        #expect(r.code == 69 && r.err.contains("answered 307, a redirect to http://localhost:\(elsewhere.port)/v1/experiences"), "\(r.err)")
        #expect(server.requests.count == 1 && server.requests[0].hasSuffix("Bearer secret"), "\(server.requests)")
        #expect(elsewhere.requests.isEmpty, "\(elsewhere.requests)")
    }
}
