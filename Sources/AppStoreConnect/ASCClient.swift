import Foundation
import StrictJSON
import Locking

/// The App Store Connect API client: bearer tokens from ASCTokenCache (a 401 gets one fresh token),
/// JSON:API documents through StrictJSON, pages followed by `links.next`, and ASCRetryPolicy for
/// 429, 5xx and timeouts. Knows ASC, not the registry. The flows it offers are in
/// ASCClient+AppClips.swift.
public final class ASCClient: Sendable {
    public static let defaultBaseURL = "https://api.appstoreconnect.apple.com"

    /// Waits a number of seconds; injected so retry tests do not sleep.
    public typealias Sleeper = @Sendable (Double) async -> Void
    /// A number in 0...1, the backoff jitter's source.
    public typealias Random = @Sendable () -> Double

    public static let systemSleeper: Sleeper = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    public struct Configuration: Sendable {
        public var policy: ASCRetryPolicy
        /// Seconds after a commit before the image is first read: its usual processing time, so that one read is
        /// usually enough (issue 24: every read spends the key's hourly budget). Once an image needed longer, later
        /// images are first read after as long as it needed (issue 32: 3 reads each when images take 3 s), at most
        /// `imageProcessingWaitLimit`, so that one slow image cannot slow every later one by more.
        public var imageProcessingWait: Double
        public var imageProcessingWaitLimit: Double
        /// The longest wait between later reads of an image being processed, and how many reads at most.
        public var imagePollInterval: Double
        public var imagePollAttempts: Int
        /// Attempts per upload operation (a failed part "can be resent until commit").
        public var uploadAttempts: Int
        /// `limit` asked for on collections (ASC's maximum is 200).
        public var pageLimit: Int
        /// Every wait this client (and an apply using it) chooses is multiplied by this: backoffs and image waits, not a
        /// `Retry-After` App Store Connect asks for. 1 in use; `CLIP_ASC_WAIT_SCALE` makes tests quick.
        public var waitScale: Double = 1

        public init(
            policy: ASCRetryPolicy = ASCRetryPolicy(), imageProcessingWait: Double = 2, imageProcessingWaitLimit: Double = 8,
            imagePollInterval: Double = 4, imagePollAttempts: Int = 60, uploadAttempts: Int = 4, pageLimit: Int = 200
        ) {
            self.policy = policy
            self.imageProcessingWait = imageProcessingWait
            self.imageProcessingWaitLimit = imageProcessingWaitLimit
            self.imagePollInterval = imagePollInterval
            self.imagePollAttempts = imagePollAttempts
            self.uploadAttempts = uploadAttempts
            self.pageLimit = pageLimit
        }
    }

    /// Scheme, host and port of the API; `links.next` must stay on it.
    let origin: String
    let tokens: ASCTokenCache
    let transport: any ASCTransport
    public let configuration: Configuration
    let sleeper: Sleeper
    let random: Random
    private let rateLimitSeen = Locked<ASCRateLimit?>(nil)
    private let requestsSent = Locked<[ASCRequestKind: Int]>([:])
    /// Seconds before an image's first read after its commit: `imageProcessingWait`, or what the slowest image since
    /// needed, up to `imageProcessingWaitLimit` (`waitUntilProcessed`).
    private let imageWait: Locked<Double>
    var firstImageWait: Double { imageWait.withLock { $0 } }
    func imageNeeded(_ seconds: Double) {
        imageWait.withLock { $0 = max($0, min(seconds, configuration.imageProcessingWaitLimit)) }
    }

    /// Requests sent so far by this client, retries and upload parts included, by kind.
    public var requestCounts: [ASCRequestKind: Int] { requestsSent.withLock { $0 } }

    func count(_ kind: ASCRequestKind) { requestsSent.withLock { $0[kind, default: 0] += 1 } }

    /// The `X-Rate-Limit` of the latest answer that had one: what is left of the key's hourly
    /// budget, which every tool using the same key shares (Apple, "Identifying Rate Limits").
    public var lastRateLimit: ASCRateLimit? { rateLimitSeen.withLock { $0 } }

    /// `baseURL` is `ASC_API_URL` or https://api.appstoreconnect.apple.com (scheme, host, port; no path).
    public init(
        baseURL: String = ASCClient.defaultBaseURL, tokens: ASCTokenCache, transport: any ASCTransport = URLSessionTransport(),
        configuration: Configuration = Configuration(), sleeper: @escaping Sleeper = ASCClient.systemSleeper,
        random: @escaping Random = { Double.random(in: 0...1) }
    ) throws(ASCClientError) {
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host,
            url.path.isEmpty || url.path == "/", url.query == nil
        else { throw .unreachable("the App Store Connect URL \(baseURL) is not http(s)://host[:port]") }
        origin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        self.tokens = tokens
        self.transport = transport
        self.configuration = configuration
        self.sleeper = sleeper
        self.random = random
        imageWait = Locked(configuration.imageProcessingWait)
    }

    /// The base URL the environment names (`ASC_API_URL`), or Apple's.
    public static func baseURL(environment: [String: String]) -> String {
        environment["ASC_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultBaseURL
    }

    // MARK: - Requests

    /// A path with its query, each name and value percent-encoded (`filter[bundleId]` →
    /// `filter%5BbundleId%5D`); commas stay, as ASC's list parameters are comma-separated
    /// (`style: form, explode: false`).
    static func target(_ path: String, _ query: [(String, String)] = []) -> String {
        guard !query.isEmpty else { return path }
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~,")
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return path + "?" + query.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// One API call with the retry policy and the 401 refresh; `target` is a path (`/v1/…?…`) or an
    /// absolute URL on the API's origin (a next link). Returns the JSON of a 2xx answer (nil for 204).
    func call(_ method: String, _ target: String, body: JSONValue? = nil) async throws(ASCClientError) -> JSONValue? {
        let urlText = target.hasPrefix("/") ? origin + target : target
        guard urlText.hasPrefix(origin + "/"), let url = URL(string: urlText) else { throw .foreignLink(target) }
        let path = url.path
        var token: ASCToken
        do { token = try tokens.token() } catch { throw .token(error) }
        var attempt = 1
        var rateLimitWaits = 0
        var refreshed = false
        while true {
            // A caller that stopped waiting (a server's drain) is not followed by more requests.
            if Task.isCancelled { throw .cancelled }
            var headers: [(name: String, value: String)] = [("Authorization", token.authorization), ("Accept", "application/json")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let request = ASCHTTPRequest(method: method, url: url, headers: headers, body: body.map { JSONWriter.bytes($0) })
            let outcome: ASCRetryPolicy.Outcome
            var lastErrors: [ASCErrorItem] = []
            var rateLimit: ASCRateLimit?
            count(ASCRequestKind(method: method, path: path, body: body))
            do {
                let response = try await transport.send(request)
                let document = response.body.isEmpty ? nil : try? JSONParser.parse(response.body)
                if let seen = ASCRateLimit(header: response.headers["x-rate-limit"]) { rateLimitSeen.withLock { $0 = seen } }
                switch response.status {
                case 200..<300:
                    if response.status != 204, document == nil {
                        throw ASCClientError.invalidResponse("\(method) \(path) answered \(response.status) without JSON")
                    }
                    return document
                case 401:
                    guard !refreshed else { throw ASCClientError.unauthorized(errors: ASCErrorItem.list(from: document)) }
                    refreshed = true
                    do { token = try tokens.token(replacing: token) } catch { throw ASCClientError.token(error) }
                    continue
                case 429:
                    rateLimit = ASCRateLimit(header: response.headers["x-rate-limit"])
                    outcome = .rateLimited(retryAfter: ASCRetryPolicy.retryAfterSeconds(response.headers["retry-after"]))
                case 500..<600:
                    lastErrors = ASCErrorItem.list(from: document)
                    outcome = .serverError(status: response.status)
                default:
                    throw ASCClientError.rejected(
                        status: response.status, method: method, path: path, errors: ASCErrorItem.list(from: document))
                }
            } catch let error as ASCClientError {
                throw error
            } catch let error as ASCTransportError {
                outcome = try Self.outcome(of: error)
            } catch {
                throw .unreachable("\(error)")
            }
            let decision = configuration.policy.decision(
                after: outcome, method: method, attempt: attempt, rateLimitWaits: rateLimitWaits, random: random)
            switch (decision, outcome) {
            case (.retry(let seconds), .rateLimited(let retryAfter)):
                await sleeper(retryAfter == nil ? seconds * configuration.waitScale : seconds)
                rateLimitWaits += 1
            case (.retry(let seconds), _):
                await sleeper(seconds * configuration.waitScale)
                attempt += 1
            case (.giveUp, _):
                throw Self.givingUp(after: outcome, method: method, path: path, attempts: attempt, errors: lastErrors, rateLimit: rateLimit)
            }
        }
    }

    /// What a transport failure means for the retry policy; unreachable is no outcome, it ends the call.
    static func outcome(of error: ASCTransportError) throws(ASCClientError) -> ASCRetryPolicy.Outcome {
        switch error {
        case .timedOut: return .timedOut
        // The request went out and no answer came back: as ambiguous as a timeout (RFC 9110 §9.2.2).
        case .noAnswer: return .noAnswer
        case .unreachable: throw .unreachable(error.description)
        }
    }

    /// The error a call ends with when the policy gives up after `outcome`: a POST that may have
    /// happened is "outcome unknown", never a plain failure (RFC 9110 §9.2.2: POST is not idempotent).
    static func givingUp(
        after outcome: ASCRetryPolicy.Outcome, method: String, path: String, attempts: Int, errors: [ASCErrorItem], rateLimit: ASCRateLimit?
    ) -> ASCClientError {
        switch outcome {
        case .rateLimited(let retryAfter):
            return .rateLimited(retryAfterSeconds: retryAfter, rateLimit: rateLimit)
        case .serverError(let status):
            if method == "POST" { return .outcomeUnknown(method: method, path: path, reason: "HTTP \(status)") }
            return .serverError(status: status, attempts: attempts, errors: errors)
        case .timedOut:
            if method == "POST" { return .outcomeUnknown(method: method, path: path, reason: "no answer in time") }
            return .timedOut(attempts: attempts)
        case .noAnswer:
            if method == "POST" {
                return .outcomeUnknown(method: method, path: path, reason: "the connection was closed without an answer")
            }
            return .timedOut(attempts: attempts)
        }
    }

    /// One document (GET, or the answer of a POST/PATCH).
    func document(_ method: String, _ target: String, body: JSONValue? = nil) async throws(ASCClientError) -> JSONAPIDocument {
        guard let json = try await call(method, target, body: body) else {
            throw .invalidResponse("\(method) \(target) answered without a document")
        }
        return try JSONAPIDocument(json)
    }

    /// Every page of a collection: `links.next` followed until absent (the document-level link,
    /// not a relationship's). A link that leaves the origin or comes back again stops the walk.
    func pages(_ target: String) async throws(ASCClientError) -> [JSONAPIDocument] {
        var pages: [JSONAPIDocument] = []
        var next: String? = target
        var seen: Set<String> = []
        while let link = next {
            guard seen.insert(link).inserted else { throw .invalidResponse("links.next repeats \(link)") }
            let page = try await document("GET", link)
            pages.append(page)
            next = page.nextLink
        }
        return pages
    }
}
