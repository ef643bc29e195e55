import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Dispatch
import Foundation
import HTTP1
import StrictJSON
import Locking
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running Clip Registry server (`--server URL`, `--token`), over its HTTP API. Problem
/// answers become the same failures and exit codes as local mode; an unreachable server exits 69.
struct RemoteServer {
    let base: String
    let token: String?
    /// Seconds to connect and between bytes of the answer (`CLIP_TIMEOUT`, default 30); then exit 69.
    let timeoutSeconds: Double

    init(server: String, token: String?, timeoutSeconds: Double = 30) throws {
        self.timeoutSeconds = timeoutSeconds
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw CommandFailure.usage("--server takes a URL such as http://127.0.0.1:8080 or https://registry.example")
        }
        // The scheme is case-insensitive (RFC 3986 §3.1); the URL loader takes it only lower-cased.
        let lowered = scheme + server.dropFirst(scheme.count)
        base = lowered.hasSuffix("/") ? String(lowered.dropLast()) : lowered
        self.token = token
    }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        var json: JSONValue { (try? JSONParser.parse([UInt8](body))) ?? .null }
    }

    /// What the URLSession callback hands to the waiting caller.
    struct Exchange: Sendable {
        var data: Data?
        var response: HTTPURLResponse?
        var error: (any Error)?
    }

    /// One HTTP exchange, synchronously.
    func send(
        _ method: String, _ path: String, query: [(String, String?)] = [], body: Data? = nil, contentType: String = "application/json",
        accept: String = "application/json", headers extra: [(String, String)] = []
    ) throws -> Answer {
        var components = URLComponents(string: base + path)!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty { components.queryItems = items }
        // URLComponents leaves "+" and "&"-free values alone; encode what a form decoder would misread.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw CommandFailure.usage("cannot build a URL for \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        request.setValue(accept, forHTTPHeaderField: "Accept")
        for (name, value) in extra { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let box = Locked(Exchange())
        let done = DispatchSemaphore(value: 0)
        // swift-corelibs-foundation takes the idle timeout from the session's configuration.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        URLSession(configuration: configuration).dataTask(with: request) { data, response, error in
            box.withLock { $0 = Exchange(data: data, response: response as? HTTPURLResponse, error: error) }
            done.signal()
        }.resume()
        done.wait()
        let exchange = box.withLock { $0 }
        guard let response = exchange.response else {
            throw CommandFailure(
                code: ExitCode.unavailable,
                message:
                    "cannot reach the server at \(base) (or it did not answer within \(timeoutSeconds) s): \(exchange.error?.localizedDescription ?? "no answer")"
            )
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: response.statusCode, headers: headers, body: exchange.data ?? Data())
    }

    /// 2xx → the answer; a problem → the failure local mode would give.
    func checked(_ answer: Answer) throws -> Answer {
        guard !(200..<300).contains(answer.status) else { return answer }
        let problem = ProblemJSON.problem(json: answer.json)
        let detail = problem.detail ?? "the server answered \(answer.status)"
        let errors = problem.errors
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

    func call(
        _ method: String, _ path: String, query: [(String, String?)] = [], json body: JSONValue? = nil, headers: [(String, String)] = []
    ) throws -> Answer {
        try checked(try send(method, path, query: query, body: body.map { Data(JSONWriter.bytes($0)) }, headers: headers))
    }

    /// Reads an answer with one of ClipWire's readers; an answer of another shape fails the command.
    func decode<T>(_ value: JSONValue, _ read: (JSONValue) throws(WireError) -> T) throws -> T {
        do { return try read(value) } catch { throw CommandFailure(code: ExitCode.failure, message: "\(error) from \(base)") }
    }

    /// The `items` of a list answer, each read with `read`.
    func items<T>(_ answer: Answer, _ read: (JSONValue) throws(WireError) -> T) throws -> [T] {
        try ListJSON.items(json: answer.json).map { try decode($0, read) }
    }

    static func component(_ s: String) -> String { QueryString.encodeComponent(s) }

    /// `POST /v1/images` with the bytes, for `team` (an admin token names it; a team token's own is implied).
    func uploadImage(_ image: [UInt8], team: String?) throws -> (sha256: String, warnings: [FieldError]) {
        // Too large to send: refused here as on a database (the server's body limit would answer first, otherwise).
        if image.count > HeaderImage.maxBytes {
            do { _ = try HeaderImage(bytes: image) } catch { throw RegistryError.invalid(error.errors) }
        }
        let type = image.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
        let answer = try checked(try send("POST", "/v1/images", query: [("team", team)], body: Data(image), contentType: type))
        guard let uploaded = HeaderImageJSON.uploaded(json: answer.json) else {
            throw CommandFailure(code: ExitCode.failure, message: "the server's answer to POST /v1/images is not an image from \(base)")
        }
        return (uploaded.sha256, uploaded.warnings)
    }
}
