import ClipAPI
import ClipCore
import ClipStore
import Foundation
@testable import HTTP1
import SQLiteDB
import StrictJSON
import Locking
import Testing

/// How a test reaches the API. The API suites run under both, as Hummingbird's run under
/// `.router` and `.live`; the suites about the socket itself (ShutdownTests) are live only.
enum APITransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `ClipAPI.handle` called directly, with no socket and no server threads: the request head
    /// goes through the server's parser and the answer through its writer, so both transports
    /// see the same request and give the same observable answer (status, headers, body).
    case inProcess
    /// A real `HTTPServer` on 127.0.0.1, port 0, over TCP.
    case live

    var testDescription: String { rawValue }
}

/// Sends one request to the API and returns the answer as a client reads it.
struct APIClient: Sendable {
    private enum Route: Sendable {
        case inProcess(ClipAPI, HTTPLimits)
        case live(port: Int)
    }

    private let route: Route

    static func inProcess(_ api: ClipAPI, limits: HTTPLimits) -> APIClient { APIClient(route: .inProcess(api, limits)) }
    static func live(port: Int) -> APIClient { APIClient(route: .live(port: port)) }

    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeoutSeconds: Double = 10
    ) throws -> HTTPClient.Response {
        switch route {
        case .live(let port):
            return try HTTPClient.send(
                port: port, method: method, target: target, headers: headers, body: body,
                timeoutSeconds: timeoutSeconds)
        case .inProcess(let api, let limits):
            return Self.answer(api, limits, method, target, headers, body)
        }
    }

    /// What the server does with one request on a connection, minus the socket: the head as
    /// `HTTPClient` writes it, parsed by `RequestHeadParser` (a refusal answered as the server
    /// answers it), `ClipAPI.handle`, and the bytes `ResponseWriter` would send, read back.
    private static func answer(
        _ api: ClipAPI, _ limits: HTTPLimits, _ method: String, _ target: String,
        _ headers: [(String, String)], _ body: [UInt8]
    ) -> HTTPClient.Response {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        let response: HTTPResponse
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits) }
        }
        switch outcome {
        case .failure(let error):
            response = error.response
        case .success(.incomplete):
            preconditionFailure("an in-process request is always complete: \(head)")
        case .success(.complete(let parsed, let headLength)):
            let request = HTTPRequest(
                method: parsed.method, target: parsed.target, version: parsed.version, headers: parsed.headers,
                body: Array(bytes[headLength..<(headLength + parsed.contentLength)]))
            response = api.handle(request)
        }
        let written = ResponseWriter.serialize(response, includeBody: method != "HEAD", keepAlive: false)
        do {
            return try HTTPClient.parse(written, method: method)
        } catch {
            preconditionFailure("ResponseWriter wrote what HTTPClient cannot read: \(error)")
        }
    }
}

/// The API over a temporary database with two teams, reached through `transport`:
/// team A (ABCDE12345) owns experience 1 on a.example, team B (FGHIJ67890) owns experience 2 on b.example.
final class APIFixture: Sendable {
    let path: String
    let transport: APITransport
    let client: APIClient
    /// The server, for `.live` only.
    let server: HTTPServer?
    let admin: String
    let teamA: String
    let teamB: String
    let logLines = LogSink()

    final class LogSink: Sendable {
        private let lines = Locked<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    init(_ transport: APITransport, limits: HTTPLimits = HTTPLimits(), drainSeconds: Double = 10, publicMaxAge: Int = 60) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.appendingPathComponent("clips.db").path
        self.transport = transport
        let registry = try Registry(path: path)
        admin = try registry.createToken(name: "admin", team: nil).value.secret
        teamA = try registry.createToken(name: "team A", team: try TeamID("ABCDE12345")).value.secret
        teamB = try registry.createToken(name: "team B", team: try TeamID("FGHIJ67890")).value.secret
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://a.example/store","clip":"ABCDE12345.com.a.app.Clip","title":"A store","subtitle":"Team A","localizations":{"FR":{"title":"Magasin A","subtitle":"Équipe A"}}}"#
            ))
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://b.example/shop","clip":"FGHIJ67890.com.b.app.Clip","title":"B shop","subtitle":"Team B"}"#))
        registry.close()
        let pool = try RegistryPool(path: path)
        let sink = logLines
        let api = ClipAPI(pool: pool, publicMaxAge: publicMaxAge, log: { sink.append($0) })
        switch transport {
        case .inProcess:
            server = nil
            client = .inProcess(api, limits: limits)
        case .live:
            var configuration = HTTPServer.Configuration(limits: limits)
            configuration.drainSeconds = drainSeconds
            configuration.answerBeforeBody = { api.answerBeforeBody($0) }
            let server = HTTPServer(configuration: configuration, routes: api.routeTable, handler: { api.handle($0) })
            server.atDrainDeadline = { api.drainDeadlineReached(inFlight: $0) }
            client = .live(port: try server.start())
            self.server = server
        }
    }

    deinit { server?.stop(drainSeconds: 1) }

    @discardableResult
    func call(_ method: String, _ target: String, token: String? = nil, headers: [(String, String)] = [], json body: String? = nil) throws
        -> HTTPClient.Response
    {
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        if body != nil && !all.contains(where: { $0.0 == "Content-Type" }) { all.append(("Content-Type", "application/json")) }
        return try client.send(method, target, headers: all, body: Array((body ?? "").utf8))
    }

    /// A request with a raw body of `contentType` (an image upload).
    func send(_ method: String, _ target: String, token: String?, contentType: String?, bytes: [UInt8]) throws -> HTTPClient.Response {
        var all: [(String, String)] = []
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        if let contentType { all.append(("Content-Type", contentType)) }
        return try client.send(method, target, headers: all, body: bytes)
    }

    func jsonOf(_ response: HTTPClient.Response) throws -> JSONValue { try JSONParser.parse(response.body) }

    /// A dump of every table (as ClipStoreTests' `snapshot`), to prove a refused request changed
    /// nothing; a token's `last_used_at` is left out (authentication's bookkeeping, not the request's).
    func snapshot() throws -> [String] {
        let db = try Connection(path: path)
        var lines: [String] = []
        for table in try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map({ try $0.string("name") }) {
            let columns = table == "api_token" ? "id, name, team_id, secret_sha256, created_at, revoked_at" : "*"
            for row in try db.query("SELECT \(columns) FROM \(table)") { lines.append("\(table): \(row.values)") }
        }
        return lines
    }

    /// The body as JSON, or null when it is not JSON (for use inside expectations).
    func parsed(_ response: HTTPClient.Response) -> JSONValue { (try? JSONParser.parse(response.body)) ?? .null }
}

/// Both transports must give the same answer to the same request: a check of the in-process
/// transport itself, so that a suite passing in process means what it says.
@Suite struct APITransportTests {
    @Test func bothTransportsGiveTheSameAnswers() throws {
        let inProcess = try APIFixture(.inProcess), live = try APIFixture(.live)
        var limits = HTTPLimits()
        limits.maxBodyBytes = 10
        let small = try APIFixture(.inProcess, limits: limits), smallLive = try APIFixture(.live, limits: limits)
        let id = ("X-Request-Id", "same")
        let requests: [(APIFixture, APIFixture, String, String, [(String, String)], String?)] = [
            (inProcess, live, "GET", "/healthz", [id], nil),
            (inProcess, live, "HEAD", "/.well-known/apple-app-site-association", [("Host", "a.example"), id], nil),
            (inProcess, live, "GET", "https://a.example/apple-app-site-association", [("Host", "b.example"), id], nil),
            // Refused by the head parser:
            (inProcess, live, "GET", "/.well-known/apple-app-site-association", [("Host", "a.example:abc")], nil),
            (inProcess, live, "GET", "/v1/resolve?url=%zz", [id], nil),
            (inProcess, live, "PUT", "/v1/resolve", [id], "{}"),
            (small, smallLive, "POST", "/v1/experiences", [], String(repeating: " ", count: 11)),  // 413, from the head parser
        ]
        for (a, b, method, target, headers, body) in requests {
            let one = try a.call(method, target, headers: headers, json: body)
            let other = try b.call(method, target, headers: headers, json: body)
            #expect(one.status == other.status && one.body == other.body, "\(method) \(target): \(one.text) ≠ \(other.text)")
            // The same fields in the same order; a generated request id, and the time of each fixture's
            // writes (Last-Modified: the two registries were written a moment apart), differ in value only.
            let fields = { (r: HTTPClient.Response) in
                r.headers.fields.map { "\($0.name): \(["X-Request-Id", "Last-Modified"].contains($0.name) ? "" : $0.value)" }
            }
            #expect(fields(one) == fields(other), "\(method) \(target)")
        }
    }
}

func q(_ s: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return s.addingPercentEncoding(withAllowedCharacters: allowed)!
}
