import ClipAPI
import ClipCore
import ClipStore
import Foundation
import HTTP1
import SQLiteDB
import StrictJSON

/// A server on 127.0.0.1:0 over a temporary database with two teams:
/// team A (ABCDE12345) owns experience 1 on a.example, team B (FGHIJ67890) owns experience 2 on b.example.
final class APIFixture: @unchecked Sendable {
    let path: String
    let server: HTTPServer
    let port: Int
    let admin: String
    let teamA: String
    let teamB: String
    let logLines = LogSink()

    final class LogSink: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    init(limits: HTTPLimits = HTTPLimits(), drainSeconds: Double = 10) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.appendingPathComponent("clips.db").path
        let registry = try Registry(path: path)
        admin = try registry.createToken(name: "admin", team: nil).secret
        teamA = try registry.createToken(name: "team A", team: try TeamID("ABCDE12345")).secret
        teamB = try registry.createToken(name: "team B", team: try TeamID("FGHIJ67890")).secret
        _ = try registry.register(try JSONParser.parse(#"{"url":"https://a.example/store","clip":"ABCDE12345.com.a.app.Clip","title":"A store","subtitle":"Team A","localizations":{"FR":{"title":"Magasin A","subtitle":"Équipe A"}}}"#))
        _ = try registry.register(try JSONParser.parse(#"{"url":"https://b.example/shop","clip":"FGHIJ67890.com.b.app.Clip","title":"B shop","subtitle":"Team B"}"#))
        registry.close()
        let pool = try RegistryPool(path: path)
        let sink = logLines
        let api = ClipAPI(pool: pool, log: { sink.append($0) })
        var configuration = HTTPServer.Configuration(limits: limits)
        configuration.drainSeconds = drainSeconds
        server = HTTPServer(configuration: configuration, routes: api.routeTable, handler: { api.handle($0) })
        server.atDrainDeadline = { api.drainDeadlineReached(inFlight: $0) }
        port = try server.start()
    }

    deinit { server.stop(drainSeconds: 1) }

    @discardableResult
    func call(_ method: String, _ target: String, token: String? = nil, headers: [(String, String)] = [], json body: String? = nil) throws -> HTTPClient.Response {
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        if body != nil && !all.contains(where: { $0.0 == "Content-Type" }) { all.append(("Content-Type", "application/json")) }
        return try HTTPClient.send(port: port, method: method, target: target, headers: all, body: Array((body ?? "").utf8))
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

func q(_ s: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return s.addingPercentEncoding(withAllowedCharacters: allowed)!
}
