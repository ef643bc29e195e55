public import ClipApp
import ClipCore
public import ClipStore
import Foundation
public import HTTP1
import StrictJSON
import Locking

/// One request as the handlers see it.
struct Context {
    let request: HTTPRequest
    let parameters: RouteParameters
    let query: [(name: String, value: String)]
    /// Who is calling, from the bearer token; `.anyone` without one, and on every public route.
    let caller: Caller
    let registry: Registry

    func query(_ name: String) -> String? { query.last { $0.name == name }?.value }

    /// The body's media type: `Content-Type` lower-cased, without parameters (RFC 9110 §8.3.1); "" when none was sent.
    var mediaType: String {
        request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    }

    /// The JSON body: `Content-Type: application/json` (else 415), well-formed (else 400 saying where).
    func jsonBody() throws -> JSONValue {
        let type = mediaType
        guard type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json")) else {
            throw Problem(status: 415, detail: "send the body as application/json (got \(type.isEmpty ? "no Content-Type" : type))")
        }
        guard !request.body.isEmpty else { throw Problem.badRequest("the request needs a JSON body") }
        do { return try JSONParser.parse(request.body) } catch {
            throw Problem.badRequest("malformed JSON: \(error.message) at line \(error.line), column \(error.column)")
        }
    }

    /// The body of a route that reads none: empty, or JSON (ignored); anything else is 415, as for
    /// the routes that read one.
    func noBody() throws {
        guard !request.body.isEmpty else { return }
        _ = try jsonBody()
    }

    /// The request's `If-Match` and `If-None-Match`, as an operation reads them.
    var preconditions: Arguments {
        var arguments = Arguments()
        arguments.ifMatch = EntityTagList(request.headers, "If-Match")
        arguments.ifNoneMatch = EntityTagList(request.headers, "If-None-Match")
        return arguments
    }
}

/// The HTTP API on a `RegistryPool`: routes, authentication (the bearer token gives the `Caller`; the
/// operation's `Session` applies the team scope), problem details, request ids, one log line per request,
/// metrics.
/// `@unchecked Sendable`: `registering` and `callers` are written only by `init` (which registers
/// the routes before the API can be shared) and only read afterwards; every other field is Sendable.
public final class ClipAPI: @unchecked Sendable {
    /// Handlers get the API as an argument rather than capturing it, so that the router (owned by
    /// the API) holds no reference back to it: no retain cycle (found by LeakSanitizer).
    typealias Handler = @Sendable (ClipAPI, Context) throws -> HTTPResponse

    let pool: RegistryPool
    private var registering = Router()
    /// Every route, frozen once `init` has registered them; each says whether it answers from memory.
    public private(set) var routeTable = RouteTable()
    let metrics = Metrics(fixedRoutes: ClipAPI.hotRouteTemplates)
    /// The newest change record seen by `cached` and its time in seconds since 1970.
    /// The `Last-Modified` of the public answers, following the store's commits.
    let lastChangeClock = LastChangeClock()
    private let log: @Sendable (String) -> Void
    /// Whether each request gets a log line (`serve --quiet` turns it off; errors are always logged).
    let logsRequests: Bool
    /// The hot routes' request lines, buffered (`AccessLog`); nil under `--quiet`.
    let accessLog: AccessLog?
    /// Set by the caller once the server runs, for the connection gauge; handlers may already be
    /// reading it then, so it sits behind a lock.
    public var connectionCount: @Sendable () -> Int {
        get { connectionCountSource.withLock { $0 } }
        set { connectionCountSource.withLock { $0 = newValue } }
    }
    private let connectionCountSource = Locked<@Sendable () -> Int>({ 0 })
    /// Who each route admits, by `METHOD template`: `.open` routes ignore credentials, the others need a token.
    private var callers: [String: CallerRule] = [:]
    /// `METHOD template` of the routes whose operations wait on other servers (`Operation.waitsOnOthers`).
    var waitingRoutes: Set<String> = []
    /// `max-age` of the public answers (`serve --public-max-age`).
    let publicMaxAge: Int
    /// How the `/v1/asc` operations reach App Store Connect, when the server was started with a key; an apply stops
    /// when the server does.
    let appStoreConnect: AppStoreConnectAccess?
    /// The server's App Store Connect access, stopping with the server (its scheduler pushes with it).
    public var appStoreConnectAccess: AppStoreConnectAccess? { appStoreConnect }

    /// The caching of the hot routes (`HotRoutes.swift`), as their registrations say.
    private(set) var resolvePolicy = CachePolicy(.noStore)
    private(set) var aasaPolicy = CachePolicy(.noStore)
    /// Hosts of served AASA requests, normalized (`HotRoutes.swift`).
    let normalizedHosts = NormalizedHosts()
    private var policies: [String: CachePolicy] = [:]

    /// Whether webhooks may be added for loopback, private and other non-public addresses (`serve --allow-private-targets`).
    let allowsPrivateWebhookTargets: Bool
    /// How operations that look outside fetch (`verify`); nil: they answer 422.
    let outbound: Outbound?

    public init(
        pool: RegistryPool, logsRequests: Bool = true, appStoreConnect: AppStoreConnectAccess? = nil, publicMaxAge: Int = 60,
        allowsPrivateWebhookTargets: Bool = false, outbound: Outbound? = nil,
        logBatch: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)? = nil, log: @escaping @Sendable (String) -> Void
    ) {
        self.pool = pool
        self.allowsPrivateWebhookTargets = allowsPrivateWebhookTargets
        self.outbound = outbound
        self.publicMaxAge = publicMaxAge
        self.appStoreConnect = appStoreConnect.map { access in
            var stopping = access
            stopping.shouldStop = { pool.isInterrupted }
            return stopping
        }
        self.log = log
        self.logsRequests = logsRequests
        // `logBatch` takes whole lines, each ending in "\n"; without it, each line goes to `log` on its own.
        let batch =
            logBatch ?? { bytes in
                for line in bytes.split(separator: 0x0A) { log(String(decoding: line, as: UTF8.self)) }
            }
        accessLog = logsRequests ? AccessLog(write: batch) : nil
        registerRoutes()
        resolvePolicy = policies[Self.resolveTemplate]!
        aasaPolicy = policies[Self.aasaTemplates[0]]!
        precondition(Self.aasaTemplates.allSatisfy { policies[$0] == aasaPolicy }, "the AASA routes are cached alike")
        routeTable = registering.freeze()
        registering = Router()
        pool.observers.add(lastChangeClock)
    }

    /// The (method, template) pairs that need a bearer token.
    public var protectedRoutes: [(method: String, template: String)] {
        routeTable.routes.filter { needsToken("\($0.method) \($0.template)") }.map { ($0.method, $0.template) }
    }

    /// Every (method, template) served, for the OpenAPI check.
    public var routes: [(method: String, template: String)] { routeTable.routes.map { ($0.method, $0.template) } }

    /// Whether the route `METHOD template` needs a bearer token (every route but the `.open` ones).
    func needsToken(_ route: String) -> Bool { callers[route].map { $0 != .open } ?? false }

    /// Registers a route (during `init` only). `fromMemory`: whether its handler answers without
    /// blocking, so the server may run it on its event loop (see `answersFromMemory`). `callers`: an
    /// `.open` route answers anyone and ignores credentials; any other needs a token here, and the
    /// operation admits the caller further (`Session.admit`). Token routes are never stored by caches,
    /// whatever `caching` says.
    func add(
        _ method: String, _ template: String, _ callers: CallerRule, fromMemory: MemoryAnswer = .never,
        caching: RouteCaching = .shared(vary: []), _ handler: @escaping Handler
    ) {
        self.callers["\(method) \(template)"] = callers
        let policy: CachePolicy
        switch (callers, caching) {
        case (.token, _), (.admin, _), (.open, .never): policy = CachePolicy(.noStore)
        case (.open, .immutable): policy = CachePolicy(.immutable)
        case (.open, .shared(let vary)): policy = CachePolicy(.publicFor(seconds: publicMaxAge), vary: vary)
        }
        if method == "GET" { policies[template] = policy }
        let needsToken = callers != .open
        registering.add(method, template, fromMemory: fromMemory) { [unowned self] request, parameters in
            self.cached(self.run(request, parameters, template: template, needsToken: needsToken, handler), request, policy)
        }
    }

    /// The answer with the route's caching fields and validators, or its `304` (`CachePolicy`):
    /// the tag is the answer's own or a hash of its bytes (`ContentTag`); the last modification the newest change
    /// record, the latest moment anything a public answer shows could have changed.
    func cached(_ response: HTTPResponse, _ request: HTTPRequest, _ policy: CachePolicy) -> HTTPResponse {
        let now = Int64(Date().timeIntervalSince1970)
        guard policy.freshness != .noStore, response.status == 200 else {
            return policy.apply(to: response, request: request, entityTag: "", lastModified: nil, now: now)
        }
        let tag = response.headers["ETag"] ?? ContentTag.of(response.body)
        let changed = (try? pool.index.lastChange()).flatMap { lastChangeSeconds($0) }
        return policy.apply(to: response, request: request, entityTag: tag, lastModified: changed, now: now)
    }

    /// `seconds(iso8601:)` of the newest change record, parsed once per record rather than per
    /// answer (ISO 8601 parsing was 4% of a resolve request's instructions under callgrind).
    func lastChangeSeconds(_ change: (id: Int64, at: String)) -> Int64? { lastChangeClock.seconds(change) }

    /// Whole seconds since 1970 of a stored ISO 8601 time; nil when there is none.
    static func seconds(iso8601 text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        let date =
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        return date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Requests answered from memory, without blocking, as their routes say (the served AASA,
    /// resolve without an explanation, and liveness). The server runs these on its event loop
    /// and the rest on its blocking pool, so reads never wait behind a write.
    public func answersFromMemory(_ request: HTTPRequest) -> Bool { routeTable.answersFromMemory(request) }

    /// The answer to a request whose body has not arrived, when it cannot depend on that body
    /// (`HTTPServer.Configuration.answerBeforeBody`): no route for its path (404) or method (405),
    /// a malformed path (400), or a route that needs a bearer token sent without `Authorization`
    /// (401). nil: the route needs the body. Answered, logged and counted as `handle` would.
    /// Whether the request's route waits on other servers: the server runs it on its outbound lane
    /// (`HTTPServer.Configuration.waitsOnOthers`).
    public func waitsOnOthers(_ request: HTTPRequest) -> Bool {
        guard case .found(let route, _) = routeTable.match(method: request.method, path: request.path) else { return false }
        return waitingRoutes.contains("\(route.method) \(route.template)")
    }

    public func answerBeforeBody(_ head: HTTPRequest) -> HTTPResponse? {
        switch routeTable.match(method: head.method, path: head.path) {
        case .notFound, .methodNotAllowed, .badPath:
            return handle(head)
        case .found(let route, _):
            guard needsToken("\(route.method) \(route.template)"), head.headers["Authorization"] == nil else { return nil }
            return handle(head)
        }
    }

    /// The answer, on the server's event loop, to a request whose route answers from memory
    /// (`HTTPServer`'s `answerInline`); nil sends it to the blocking pool. The route is matched
    /// once: asking `answersFromMemory` and then `handle` matched it twice (callgrind: 4% of an
    /// AASA request).
    public func answerFromMemory(_ request: HTTPRequest) -> HTTPResponse? {
        let match = routeTable.match(method: request.method, path: request.path)
        guard case .found(let route, _) = match, route.fromMemory.holds(for: request) else { return nil }
        return handle(request, match)
    }

    /// The server's handler.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        handle(request, routeTable.match(method: request.method, path: request.path))
    }

    private func handle(_ request: HTTPRequest, _ match: RouteTable.Match) -> HTTPResponse {
        let started = monotonicSeconds()
        let requestID = RequestID.echoing(request.headers["X-Request-Id"])
        var response: HTTPResponse
        var route = "unmatched"
        switch match {
        case .found(let matched, let parameters):
            route = matched.template
            response = matched.handler(request, parameters)
        case .notFound:
            response = Problem.notFound("no route for \(request.method) \(String(request.path).prefix(200))").response
        case .methodNotAllowed(let allow):
            response =
                Problem(
                    status: 405, detail: "\(request.method) is not allowed here; allowed: \(allow.joined(separator: ", "))",
                    headers: [("Allow", allow.joined(separator: ", "))]
                ).response
        case .badPath:
            response = Problem.badRequest("the path has a malformed percent-encoding, invalid UTF-8 or NUL").response
        }
        response.headers.set("X-Request-Id", requestID)
        let seconds = monotonicSeconds() - started
        metrics.record(route: route, method: request.method, status: response.status, seconds: seconds)
        // One structured line per request; no query, body or Authorization (they may hold secrets).
        guard logsRequests else { return response }
        logLine(
            JSONWriter.string(
                .object([
                    "time": .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
                    "level": response.status >= 500 ? "error" : "info",
                    "msg": "request",
                    "requestId": .string(requestID),
                    "method": .string(request.method),
                    "route": .string(route),
                    "status": .integer(Int64(response.status)),
                    "durationMs": .double((seconds * 1e5).rounded() / 100),
                    "remote": .string(request.remoteAddress),
                ])))
        return response
    }

    /// A line written straight to the log, after every line the hot routes buffered before it (`AccessLog`).
    func logLine(_ line: String) {
        accessLog?.flush()
        log(line)
    }

    /// Hands on the hot routes' buffered request lines: at a graceful stop, after the server has
    /// stopped, so that none is lost; and before the caller writes to the log itself.
    public func flushLog() { accessLog?.flush() }

    /// Logs a request the server refused before routing (framing errors, 408, 503).
    public func observeRefusal(_ request: HTTPRequest, _ response: HTTPResponse) {
        metrics.record(route: "refused", method: request.method, status: response.status, seconds: 0)
        guard logsRequests else { return }
        logLine(
            JSONWriter.string(
                .object([
                    "time": .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
                    "level": "warning", "msg": "refused", "status": .integer(Int64(response.status)),
                    "remote": .string(request.remoteAddress),
                ])))
    }

    /// The server's drain window ended with `count` requests in flight (`HTTPServer.atDrainDeadline`):
    /// their database work is interrupted, so they roll back and answer 503 (each then gets its
    /// request line with that status), and the cut-off is logged.
    public func drainDeadlineReached(inFlight count: Int) {
        logLine(
            JSONWriter.string(
                .object([
                    "time": .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
                    "level": "warning", "msg": "drain deadline: interrupting requests in flight", "inFlight": .integer(Int64(count)),
                ])))
        pool.interruptWork()
    }

    private func run(_ request: HTTPRequest, _ parameters: RouteParameters, template: String, needsToken: Bool, _ handler: Handler)
        -> HTTPResponse
    {
        guard let query = QueryString.parse(request.query) else {
            return Problem.badRequest("the query string has a malformed percent-encoding or invalid UTF-8").response
        }
        // Answered without a registry: `answerBeforeBody` sends this from the event loop.
        if needsToken && request.headers["Authorization"] == nil {
            return Problem.unauthorized("this route needs Authorization: Bearer TOKEN").response
        }
        do {
            return try pool.with(actor: "api") { registry in
                var caller = Caller.anyone
                // Public routes ignore credentials: the AASA, resolve and banner answer anyone alike.
                if needsToken, request.headers["Authorization"] != nil {
                    guard let secret = Self.bearerSecret(request), let token = try registry.authenticate(secret) else {
                        throw Problem.unauthorized("the bearer token is unknown, malformed or revoked")
                    }
                    caller = token.team.map { .team($0, tokenID: token.id) } ?? .admin(tokenID: token.id)
                    registry.actor = "token:\(token.id)"
                }
                do {
                    return try handler(
                        self, Context(request: request, parameters: parameters, query: query, caller: caller, registry: registry))
                } catch RegistryError.hostRefused(let refusal) where caller.team == nil {
                    // Administrators learn who holds the host; teams never do (Problem.init).
                    throw Problem.forbidden(refusal.description)
                }
            }
        } catch let problem as Problem {
            return logged(problem).response
        } catch let error as RegistryError {
            return logged(Problem(error)).response
        } catch let error as OperationError {
            return Problem(error).response
        } catch {
            logLine("{\"level\":\"error\",\"msg\":\"unexpected\",\"detail\":\(JSONWriter.string(.string("\(error)")))}")
            return Problem(status: 500, detail: "internal error").response
        }
    }
}

extension ClipAPI {
    /// The problem, its log line written first when it hides what failed from the client (`Problem.logDetail`).
    func logged(_ problem: Problem) -> Problem {
        if let detail = problem.logDetail {
            logLine("{\"level\":\"error\",\"msg\":\"storage\",\"detail\":\(JSONWriter.string(.string(detail)))}")
        }
        return problem
    }
}

extension ClipAPI {
    /// The secret of an `Authorization: Bearer …` header (RFC 6750 §2.1), or nil when there is none or it is malformed.
    static func bearerSecret(_ request: HTTPRequest) -> String? {
        guard let authorization = request.headers["Authorization"] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}

// MARK: Response helpers

func json(_ value: JSONValue, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
    var response = HTTPResponse(status: status, contentType: "application/json", body: JSONWriter.bytes(value))
    for (name, value) in headers { response.headers.add(name, value) }
    return response
}

/// The `Last-Modified` of the public answers: the newest change record's time, parsed once per record
/// rather than per answer (ISO 8601 parsing was 4% of a resolve request's instructions under
/// callgrind), and at once after each commit (a `WriteObserver`).
final class LastChangeClock: WriteObserver {
    private let parsed = Locked<(id: Int64, at: String, seconds: Int64?)?>(nil)

    func seconds(_ change: (id: Int64, at: String)) -> Int64? {
        if let known = parsed.withLock({ $0 }), known.id == change.id, known.at == change.at { return known.seconds }
        let seconds = ClipAPI.seconds(iso8601: change.at)
        parsed.withLock { $0 = (change.id, change.at, seconds) }
        return seconds
    }

    func registryDidCommit(_ account: WriteAccount) {
        if let change = account.lastChange { _ = seconds((change.id, change.at)) }
    }
}
