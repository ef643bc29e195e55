import ClipCore
import ClipStore
import ClipWire
import Dispatch
import Foundation
import HTTP1
import StrictJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running Clip Registry server (`--server URL`, `--token`), over its HTTP API. Problem
/// answers become the same failures and exit codes as local mode; an unreachable server exits 69.
struct RemoteBackend: Backend {
    let base: String
    let token: String?
    /// Seconds to connect and between bytes of the answer (`CLIP_TIMEOUT`, default 30); then exit 69.
    let timeoutSeconds: Double

    init(server: String, token: String?, timeoutSeconds: Double = 30) throws {
        self.timeoutSeconds = timeoutSeconds
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw CommandFailure.usage("--server takes a URL such as http://127.0.0.1:8080 or https://registry.example")
        }
        base = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.token = token
    }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        var json: JSONValue { (try? JSONParser.parse([UInt8](body))) ?? .null }
    }

    final class Box: @unchecked Sendable {
        var data: Data?
        var response: HTTPURLResponse?
        var error: (any Error)?
    }

    /// One HTTP exchange, synchronously.
    func send(_ method: String, _ path: String, query: [(String, String?)] = [], body: Data? = nil, contentType: String = "application/json", accept: String = "application/json") throws -> Answer {
        var components = URLComponents(string: base + path)!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty { components.queryItems = items }
        // URLComponents leaves "+" and "&"-free values alone; encode what a form decoder would misread.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw CommandFailure.usage("cannot build a URL for \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        request.setValue(accept, forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        // swift-corelibs-foundation takes the idle timeout from the session's configuration.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        URLSession(configuration: configuration).dataTask(with: request) { data, response, error in
            box.data = data
            box.response = response as? HTTPURLResponse
            box.error = error
            done.signal()
        }.resume()
        done.wait()
        guard let response = box.response else {
            throw CommandFailure(code: ExitCode.unavailable, message: "cannot reach the server at \(base) (or it did not answer within \(timeoutSeconds) s): \(box.error?.localizedDescription ?? "no answer")")
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: response.statusCode, headers: headers, body: box.data ?? Data())
    }

    /// 2xx → the answer; a problem → the failure local mode would give.
    func checked(_ answer: Answer) throws -> Answer {
        guard !(200..<300).contains(answer.status) else { return answer }
        let problem = answer.json
        let detail = problem["detail"]?.stringValue ?? "the server answered \(answer.status)"
        let errors = problem["errors"]?.arrayValue?.compactMap(ProblemJSON.fieldError(json:)) ?? []
        switch answer.status {
        case 400, 413, 415, 422:
            let message = detail.hasPrefix("nothing imported") || errors.isEmpty ? detail : "invalid input"
            throw CommandFailure(code: ExitCode.invalidInput, message: message, fieldErrors: errors)
        case 409: throw CommandFailure(code: ExitCode.invalidInput, message: detail)
        case 401: throw CommandFailure(code: ExitCode.failure, message: "\(detail) (check --token or CLIP_TOKEN)")
        case 403: throw CommandFailure(code: ExitCode.failure, message: detail, fieldErrors: errors)
        default: throw CommandFailure(code: ExitCode.failure, message: detail)
        }
    }

    func call(_ method: String, _ path: String, query: [(String, String?)] = [], json body: JSONValue? = nil) throws -> JSONValue {
        try checked(try send(method, path, query: query, body: body.map { Data(JSONWriter.bytes($0)) })).json
    }

    /// An experience id from an id or a registered URL (any spelling).
    func experienceID(_ reference: String) throws -> Int64 {
        if let id = Int64(reference), id > 0 { return id }
        let url: NormalizedURL
        do { url = try NormalizedURL(reference) } catch {
            throw CommandFailure(code: ExitCode.invalidInput, message: "invalid input",
                                 fieldErrors: [FieldError(field: "experience", rule: "reference", message: "give an experience id or its URL (\(error.message))")])
        }
        if let match = try experiences(clip: nil, host: url.host, status: nil).first(where: { $0["url"]?.stringValue == url.canonical }),
            case .integer(let id)? = match["id"]
        {
            return id
        }
        throw CommandFailure(code: ExitCode.failure, message: "not found: experience with URL \(url.canonical)")
    }

    func register(_ body: JSONValue, image: [UInt8]?) throws -> JSONValue {
        if image != nil { throw CommandFailure.usage("--image is not available with --server: upload header images with clipctl on the database") }
        return try call("POST", "/v1/experiences", json: body)
    }

    func experiences(clip: String?, host: String?, status: String?) throws -> [JSONValue] {
        var items: [JSONValue] = []
        var cursor: String?
        repeat {
            let page = try call("GET", "/v1/experiences", query: [("clip", clip), ("host", host), ("status", status?.uppercased()), ("limit", "1000"), ("cursor", cursor)])
            items += page["items"]?.arrayValue ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        return items
    }

    func experience(_ reference: String) throws -> JSONValue { try call("GET", "/v1/experiences/\(try experienceID(reference))") }

    func update(_ reference: String, _ body: JSONValue, image: [UInt8]?) throws -> JSONValue {
        if image != nil { throw CommandFailure.usage("--image is not available with --server: upload header images with clipctl on the database") }
        return try call("PATCH", "/v1/experiences/\(try experienceID(reference))", json: body)
    }

    func setStatus(_ reference: String, _ status: ExperienceStatus) throws -> JSONValue {
        try call("PATCH", "/v1/experiences/\(try experienceID(reference))", json: ["status": .string(status.rawValue)])
    }

    func remove(_ reference: String) throws -> JSONValue {
        let id = try experienceID(reference)
        let current = try call("GET", "/v1/experiences/\(id)")
        _ = try call("DELETE", "/v1/experiences/\(id)")
        return current
    }

    func resolve(_ url: String, language: String?, explain: Bool) throws -> JSONValue {
        let answer = try send("GET", "/v1/resolve", query: [("url", url), ("language", language), ("explain", explain ? "true" : nil)])
        if answer.status == 404, answer.json["invocationURL"] != nil {
            // No match: the problem carries the resolution's members; rebuild the local answer.
            var members: [(key: String, value: JSONValue)] = [(key: "matched", value: .null), (key: "invocationURL", value: answer.json["invocationURL"]!)]
            let detail = answer.json["detail"]?.stringValue ?? ""
            members.append((key: "reason", value: .string(detail.hasPrefix("no match: ") ? String(detail.dropFirst(10)) : detail)))
            for key in ["notes", "explanation"] { if let v = answer.json[key] { members.append((key: key, value: v)) } }
            return .object(members)
        }
        return try checked(answer).json
    }

    func aasa(host: String) throws -> [UInt8] {
        [UInt8](try checked(try send("GET", "/v1/domains/\(QueryString.encodeComponent(host))/aasa")).body)
    }

    func banner(url: String, appArgument: String?, clip: String?) throws -> JSONValue {
        try call("GET", "/v1/banner", query: [("url", url), ("appArgument", appArgument), ("clip", clip)])
    }

    func importFile(format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?, progress: @escaping (Int) -> Void) throws -> JSONValue {
        var body = Data()
        while let chunk = try chunks() { body.append(contentsOf: chunk) }  // one request body
        let answer = try checked(try send("POST", "/v1/experiences/import", body: body, contentType: format == .csv ? "text/csv" : "application/x-ndjson"))
        return answer.json
    }

    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws {
        let answer = try checked(try send("GET", "/v1/experiences/export", query: [("format", format.rawValue), ("spreadsheetSafe", spreadsheetSafe ? "true" : nil)], accept: "*/*"))
        for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n") { try emit(String(line)) }
    }

    func saveApp(bundle: BundleID, team: TeamID, appStoreID: AppStoreID??, name: String?) throws -> (app: JSONValue, notes: [String]) {
        let path = "/v1/apps/\(QueryString.encodeComponent(bundle.rawValue))"
        let existing = try send("GET", path)
        if existing.status == 404 {
            let app = try call("POST", "/v1/apps", json: .object([
                "bundleId": .string(bundle.rawValue), "team": .string(team.rawValue),
                "appStoreId": (appStoreID ?? nil).map { .string($0.rawValue) }, "name": name.map(JSONValue.string),
            ]))
            return (app, ["created app \(bundle.rawValue)"])
        }
        let current = try checked(existing).json
        guard current["team"]?.stringValue == team.rawValue else {
            throw CommandFailure(code: ExitCode.invalidInput, message: "app \(bundle.rawValue) belongs to team \(current["team"]?.stringValue ?? "?"), not \(team.rawValue)")
        }
        var members: [(key: String, value: JSONValue)] = []
        if let appStoreID { members.append((key: "appStoreId", value: appStoreID.map { .string($0.rawValue) } ?? .null)) }
        if let name { members.append((key: "name", value: .string(name))) }
        let app = try call("PATCH", path, json: .object(members))
        return (app, app["version"] == current["version"] ? [] : ["updated app \(bundle.rawValue)"])
    }

    func apps(team: TeamID?) throws -> [JSONValue] {
        let items = try call("GET", "/v1/apps")["items"]?.arrayValue ?? []
        return items.filter { team == nil || $0["team"]?.stringValue == team?.rawValue }
    }

    func app(_ bundle: BundleID) throws -> JSONValue { try call("GET", "/v1/apps/\(QueryString.encodeComponent(bundle.rawValue))") }

    func addClip(_ clip: AppID) throws -> JSONValue {
        let answer = try send("POST", "/v1/clips", body: Data(JSONWriter.bytes(["clip": .string(clip.rawValue)])))
        if answer.status == 409 { return try call("GET", "/v1/clips/\(QueryString.encodeComponent(clip.bundleID.rawValue))") }
        return try checked(answer).json
    }

    func clips(app: BundleID?) throws -> [JSONValue] {
        (try call("GET", "/v1/clips")["items"]?.arrayValue ?? []).filter { app == nil || $0["app"]?.stringValue == app?.rawValue }
    }

    /// A clip's bundle ID from `TEAMID.bundle` or a bare bundle ID.
    static func clipBundle(_ reference: String) -> String {
        (try? AppID(reference)).map(\.bundleID.rawValue) ?? reference
    }

    func clip(_ reference: String) throws -> JSONValue { try call("GET", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(reference)))") }
    func removeClip(_ reference: String) throws { _ = try call("DELETE", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(reference)))") }

    func addDomain(clip: String, host: String) throws -> [String] {
        let answer = try checked(try send("PUT", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(clip)))/domains/\(QueryString.encodeComponent(host))"))
        return answer.status == 201 ? ["associated \(answer.json["host"]?.stringValue ?? host) with clip \(answer.json["clip"]?.stringValue ?? clip) (its AASA now lists the clip)"] : []
    }

    func removeDomain(clip: String, host: String) throws {
        _ = try call("DELETE", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(clip)))/domains/\(QueryString.encodeComponent(host))")
    }

    func domains(host: String?) throws -> [(host: String, clip: String)] {
        let pairs = try clips(app: nil).flatMap { clip in
            (clip["hosts"]?.arrayValue ?? []).compactMap(\.stringValue).map { (host: $0, clip: clip["clip"]?.stringValue ?? "") }
        }
        let wanted = try host.map { try Registry.normalizeHost($0) }
        return pairs.filter { wanted == nil || $0.host == wanted }.sorted { ($0.host, $0.clip) < ($1.host, $1.clip) }
    }

    func setDefault(clip: AppID, action: Action, localizations: [String: String], image: [UInt8]?) throws -> (experience: JSONValue, notes: [String]) {
        if image != nil { throw CommandFailure.usage("--image is not available with --server: upload header images with clipctl on the database") }
        var notes: [String] = []
        let created = try addClip(clip)
        notes += (created["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
        let path = "/v1/clips/\(QueryString.encodeComponent(clip.bundleID.rawValue))/default-experience"
        let answer = try checked(try send("PUT", path, body: Data(JSONWriter.bytes(.object([
            "action": .string(action.rawValue),
            "localizations": .object(localizations.sorted { $0.key < $1.key }.map { (key: $0.key, value: .object(["subtitle": .string($0.value)])) }),
        ])))))
        notes.append(answer.status == 201 ? "created the default experience of \(clip.rawValue)" : "updated the default experience of \(clip.rawValue)")
        return (answer.json, notes)
    }

    func defaultExperience(clip: String) throws -> JSONValue { try call("GET", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(clip)))/default-experience") }
    func removeDefault(clip: String) throws { _ = try call("DELETE", "/v1/clips/\(QueryString.encodeComponent(Self.clipBundle(clip)))/default-experience") }

    func hostOwnerships(host: String?) throws -> [JSONValue] {
        guard let host else { return try call("GET", "/v1/domains")["items"]?.arrayValue ?? [] }
        let answer = try send("GET", "/v1/domains/\(QueryString.encodeComponent(host))")
        return answer.status == 404 ? [] : [try checked(answer).json]
    }

    func assignHost(_ change: HostAssignment, host: String, team: TeamID) throws -> JSONValue {
        let path = "/v1/domains/\(QueryString.encodeComponent(host))"
        switch change {
        case .claim: return try call("PUT", path + "/owner", json: .object(["team": .string(team.rawValue)]))
        case .share: return try call("PUT", path + "/teams/\(team.rawValue)")
        case .unshare:
            _ = try call("DELETE", path + "/teams/\(team.rawValue)")
            var after = try hostOwnerships(host: host).first ?? .object(["host": .string(host), "owner": .null, "teams": .array([])])
            if case .object(var members) = after {
                members.append((key: "notes", value: .array([.string("team \(team.rawValue) no longer shares \(host)")])))
                after = .object(members)
            }
            return after
        }
    }

    func setApplinks(host: String, app: BundleID, components: JSONValue, defaults: JSONValue?, position: Int?) throws -> JSONValue {
        try call("PUT", "/v1/domains/\(QueryString.encodeComponent(host))/applinks/\(QueryString.encodeComponent(app.rawValue))", json: .object([
            "components": components, "defaults": defaults, "position": position.map { .integer(Int64($0)) },
        ]))
    }

    func removeApplinks(host: String, app: BundleID) throws {
        _ = try call("DELETE", "/v1/domains/\(QueryString.encodeComponent(host))/applinks/\(QueryString.encodeComponent(app.rawValue))")
    }

    func setApplinksFromExperiences(host: String, _ enabled: Bool) throws -> [JSONValue] {
        try call("PUT", "/v1/domains/\(QueryString.encodeComponent(host))/applinks-generation", json: .object(["fromExperiences": .bool(enabled)]))["unmatched"]?.arrayValue ?? []
    }

    func setApplinksSettings(host: String, defaults: JSONValue?, substitutionVariables: JSONValue?) throws {
        _ = try call("PUT", "/v1/domains/\(QueryString.encodeComponent(host))/applinks-settings", json: .object(["defaults": defaults, "substitutionVariables": substitutionVariables]))
    }

    func webcredentials(add: Bool, host: String, app: BundleID) throws {
        _ = try call(add ? "PUT" : "DELETE", "/v1/domains/\(QueryString.encodeComponent(host))/webcredentials/\(QueryString.encodeComponent(app.rawValue))")
    }

    func changes(since: Int64, limit: Int) throws -> [JSONValue] {
        try call("GET", "/v1/changes", query: [("since", String(since)), ("limit", String(min(limit, 1000)))])["items"]?.arrayValue ?? []
    }

    func createToken(name: String, team: TeamID?) throws -> JSONValue {
        try call("POST", "/v1/tokens", json: .object(["name": .string(name), "team": team.map { .string($0.rawValue) }]))
    }

    func tokens() throws -> [JSONValue] { try call("GET", "/v1/tokens")["items"]?.arrayValue ?? [] }

    func revokeToken(id: Int64) throws -> JSONValue {
        let token = try tokens().first { $0["id"] == .integer(id) }
        _ = try call("DELETE", "/v1/tokens/\(id)")
        return token ?? ["id": .integer(id)]
    }
}
