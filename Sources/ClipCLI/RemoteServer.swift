import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import OutboundHTTP
import StrictJSON

/// A running Clip Registry server (`clipctl --server URL`, `--token`), over its HTTP API: the remote session a
/// command sends its operations' requests to. A problem answer (RFC 9457, read as `ProblemJSON`) becomes the failure
/// and exit code local mode gives (`checked`); an unreachable server, or an answer that is not the registry's, exits 69.
struct RemoteServer {
    let base: String
    let token: String?
    /// Seconds to connect and between bytes of the answer (`CLIP_TIMEOUT`, default 30); then exit 69.
    let timeoutSeconds: Double

    init(server: String, token: String?, timeoutSeconds: Double = 30) throws(CommandFailure) {
        self.timeoutSeconds = timeoutSeconds
        // A port is 0…65535 (RFC 6335 §6); a larger one is a typo, not a server that cannot be reached.
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
            (url.port ?? 0) <= 65535
        else {
            throw .usage("--server takes a URL such as http://127.0.0.1:8080 or https://registry.example")
        }
        // The scheme is case-insensitive (RFC 3986 §3.1); the URL loader takes it only lower-cased.
        let lowered = scheme + server.dropFirst(scheme.count)
        base = lowered.hasSuffix("/") ? String(lowered.dropLast()) : lowered
        self.token = token
    }

    struct Answer {
        let status: Int
        /// Names lower-cased.
        let headers: [String: String]
        let body: [UInt8]
        var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    }

    /// One HTTP exchange, synchronously, through `OutboundHTTP.send` (libcurl): a redirect is not followed.
    func send(
        _ method: String, _ path: String, query: [(String, String?)] = [], body: [UInt8]? = nil,
        contentType: String = "application/json", accept: String = "application/json", headers extra: [(String, String)] = []
    ) throws(CommandFailure) -> Answer {
        var components = URLComponents(string: base + path)!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty { components.queryItems = items }
        // URLComponents leaves "+" and "&"-free values alone; encode what a form decoder would misread.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw CommandFailure.usage("cannot build a URL for \(path)") }
        var headers: [(name: String, value: String)] = [("Accept", accept)]
        for (name, value) in extra {
            // One field of a name: the binding's (a code's `Accept: image/png`) over the default.
            headers.removeAll { $0.name.lowercased() == name.lowercased() }
            headers.append((name, value))
        }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        // Without a body no Content-Type (an empty value: not curl's form type either), and no `Expect: 100-continue`.
        headers += [("Content-Type", body == nil ? "" : contentType), ("Expect", "")]
        let sent: OutboundHTTP.Response
        switch OutboundHTTP.send(method, to: url.absoluteString, headers: headers, body: body ?? [], idleSeconds: timeoutSeconds) {
        case .success(let answer): sent = answer
        case .failure(.refused(let why)), .failure(.unreachable(let why)):
            // No answer: exit 69 (sysexits.h's EX_UNAVAILABLE).
            throw CommandFailure(
                code: ExitCode.unavailable,
                message: "cannot reach the server at \(base) (or it did not answer within \(timeoutSeconds) s): \(why)")
        }
        if let redirect = sent.redirect {
            // Not followed: the request would carry the token to wherever the redirect points.
            throw CommandFailure(
                code: ExitCode.unavailable,
                message: "the server at \(base) answered \(sent.status), a redirect to \(redirect.location ?? "nowhere"); "
                    + "give --server the registry's own URL (clipctl does not follow redirects, which would carry the token)")
        }
        return Answer(status: sent.status, headers: sent.headers, body: sent.body)
    }

    /// Whether the answer is JSON (`application/json`, or a `+json` type such as RFC 9457's
    /// `application/problem+json`): the API's answers are, but for the bytes an operation answers.
    static func isJSON(_ answer: Answer) -> Bool {
        let type = answer.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// An answer that is not the API's (an HTML page of a proxy, another web server): exit 69, as a server
    /// not reached, so that nothing is done on its account (`publish` removes nothing).
    func notTheRegistry(_ answer: Answer) -> CommandFailure {
        let type = answer.headers["content-type"] ?? "no Content-Type"
        return CommandFailure(
            code: ExitCode.unavailable,
            message:
                "the server at \(base) answered \(answer.status) with \(type), not the registry's JSON: is --server the registry's URL?")
    }

    /// 2xx → the answer; a problem → the failure local mode would give.
    func checked(_ answer: Answer) throws(CommandFailure) -> Answer {
        guard answer.status == 204 || Self.isJSON(answer) else { throw notTheRegistry(answer) }
        guard !(200..<300).contains(answer.status) else { return answer }
        let problem = ProblemJSON.problem(json: answer.json)
        let detail = problem.detail ?? "the server answered \(answer.status)"
        let errors = problem.errors
        // Exit codes: docs/application-layer.md#clipctl (65 invalid input, 1 failure).
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

    /// `POST /v1/images` with the bytes, for `team` (an admin token names it; a team token's own is implied).
    func uploadImage(_ image: [UInt8], team: String?) throws -> (sha256: String, warnings: [FieldError]) {
        // Too large to send: refused here as on a database (the server's body limit would answer first, otherwise).
        if image.count > HeaderImage.maxBytes {
            do { _ = try HeaderImage(bytes: image) } catch { throw RegistryError.invalid(error.errors) }
        }
        let type = image.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
        let answer = try checked(try send("POST", "/v1/images", query: [("team", team)], body: image, contentType: type))
        guard let uploaded = HeaderImageJSON.uploaded(json: answer.json) else {
            throw CommandFailure(code: ExitCode.failure, message: "the server's answer to POST /v1/images is not an image from \(base)")
        }
        return (uploaded.sha256, uploaded.warnings)
    }
}

extension RemoteServer {
    /// A binding's request sent to the server: its answer as JSON, or as bytes for an output of bytes
    /// (`OperationContentOutput`); an answer that is not the output (`Binding.isOutput`) is the failure
    /// local mode would give.
    func answer(
        _ binding: Binding,
        _ request: (path: String, query: [(name: String, value: String)], body: JSONValue?, headers: [(name: String, value: String)]),
        stream: BodyStream? = nil
    ) throws -> OperationAnswer {
        // A body read as it goes is sent whole, in one request, as its media type.
        let body = try stream.map { try $0.rest() } ?? request.body.map { JSONWriter.bytes($0) }
        let sent = try send(
            binding.method, request.path, query: request.query.map { ($0.name, $0.value) }, body: body,
            contentType: stream?.type ?? "application/json", headers: request.headers.map { ($0.name, $0.value) })
        // An operation of bytes answers its own (a preview's 404 page); a failure's body is still checked (`checked`).
        guard sent.status == 204 || binding.answersContent || Self.isJSON(sent) else { throw notTheRegistry(sent) }
        if binding.serverCall.unavailableStatuses.contains(sent.status) {
            let detail = ProblemJSON.problem(json: sent.json).detail
            throw CommandFailure(code: ExitCode.unavailable, message: detail ?? "the server answered \(sent.status)")
        }
        var answer = OperationAnswer(
            json: binding.answersContent ? .null : sent.json, status: sent.status,
            headers: sent.headers.map { (name: $0.key, value: $0.value) })
        if binding.answersContent { answer.content = OperationContent(bytes: sent.body, type: sent.headers["content-type"] ?? "") }
        answer.origin = base
        guard binding.isOutput(answer) else {
            _ = try checked(sent)
            throw CommandFailure(code: ExitCode.failure, message: "the server answered \(sent.status) from \(base)")
        }
        return answer
    }
}
