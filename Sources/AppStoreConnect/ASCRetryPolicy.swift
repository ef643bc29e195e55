import StrictJSON

/// When the client sends a request again, and after how long. Pure: the client asks it, then
/// sleeps through the injected sleeper, so tests decide time.
///
/// - 429 (`RATE_LIMIT_EXCEEDED`): wait `Retry-After` when ASC sends it (RFC 9110 §10.2.3, seconds),
///   otherwise back off exponentially; any method, since a refused request did nothing. Apple,
///   "Identifying Rate Limits": the limit is per key over a rolling hour, so waits can be long.
/// - 5xx, no answer in time, and a connection closed without an answer: back off and retry a bounded number of times, for every method but
///   POST: a create that timed out may have happened (fastlane re-reads after a 504 PATCH for the
///   same reason), so its caller re-reads instead of creating twice. A PATCH sets fields to values
///   and is safe to repeat.
/// - Anything else is final.
public struct ASCRetryPolicy: Sendable {
    /// Attempts in all for 5xx answers and timeouts (the first included).
    public var maximumAttempts: Int
    /// 429 answers waited out before giving up.
    public var maximumRateLimitWaits: Int
    /// Backoff: `base * 2^(n-1)`, capped, then jittered by ± `jitter` of itself.
    public var baseDelay: Double
    public var maximumDelay: Double
    public var jitter: Double
    /// A `Retry-After` longer than this is not waited for: the client reports the limit instead.
    public var longestRetryAfter: Double

    /// `longestRetryAfter` is two minutes: a key whose budget is spent for longer is reported (a command exits 69, a
    /// server answers 503 with Retry-After) rather than waited for with a request held open.
    public init(
        maximumAttempts: Int = 4, maximumRateLimitWaits: Int = 8, baseDelay: Double = 1, maximumDelay: Double = 60, jitter: Double = 0.25,
        longestRetryAfter: Double = 120
    ) {
        self.maximumAttempts = maximumAttempts
        self.maximumRateLimitWaits = maximumRateLimitWaits
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.longestRetryAfter = longestRetryAfter
    }

    public enum Outcome: Sendable {
        case rateLimited(retryAfter: Double?)
        case serverError(status: Int)
        case timedOut
        /// The connection was closed after the request went out, before any answer.
        case noAnswer
    }

    public enum Decision: Equatable, Sendable {
        case retry(afterSeconds: Double)
        case giveUp
    }

    /// What to do after `outcome`, given how many attempts (`attempt`, from 1) and 429 waits were
    /// made so far; `random` returns a number in 0...1 (the jitter's source).
    public func decision(
        after outcome: Outcome, method: String, attempt: Int, rateLimitWaits: Int, random: () -> Double
    ) -> Decision {
        switch outcome {
        case .rateLimited(let retryAfter):
            guard rateLimitWaits < maximumRateLimitWaits else { return .giveUp }
            if let retryAfter {
                return retryAfter <= longestRetryAfter ? .retry(afterSeconds: max(0, retryAfter)) : .giveUp
            }
            return .retry(afterSeconds: backoff(step: rateLimitWaits + 1, random: random))
        case .serverError, .timedOut, .noAnswer:
            guard method != "POST", attempt < maximumAttempts else { return .giveUp }
            return .retry(afterSeconds: backoff(step: attempt, random: random))
        }
    }

    /// The n-th wait (from 1): exponential, capped, jittered so that many clients refused at once
    /// do not come back at once.
    func backoff(step: Int, random: () -> Double) -> Double {
        let plain = min(maximumDelay, baseDelay * Double(1 << min(max(step - 1, 0), 20)))
        return max(0, plain * (1 + jitter * (2 * random() - 1)))
    }

    /// `Retry-After` as delay-seconds (RFC 9110 §10.2.3); an HTTP-date or junk gives nil (backoff).
    public static func retryAfterSeconds(_ value: String?) -> Double? {
        guard let value, let seconds = Int(value.trimmed(of: " \t")), seconds >= 0 else { return nil }
        return Double(seconds)
    }
}

/// ASC's `X-Rate-Limit` header: `user-hour-lim:3500;user-hour-rem:500;` (Apple, "Identifying Rate
/// Limits"); some endpoints add `user-minute-…` pairs, so every `key:value` pair is kept.
public struct ASCRateLimit: Equatable, Sendable {
    public let values: [String: Int]

    public init?(header: String?) {
        guard let header else { return nil }
        var values: [String: Int] = [:]
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let number = Int(parts[1].trimmed(of: " ")) else { continue }
            values[parts[0].trimmed(of: " ")] = number
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    public var hourLimit: Int? { values["user-hour-lim"] }
    public var hourRemaining: Int? { values["user-hour-rem"] }
}

extension Substring {
    fileprivate func trimmed(of set: String) -> String { String(self).trimmed(of: set) }
}

extension String {
    fileprivate func trimmed(of set: String) -> String {
        let drop: (Character) -> Bool = { set.contains($0) }
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// What a request is for, as an apply's summary counts them against the key's hourly budget (issue 24).
public enum ASCRequestKind: String, Sendable, CaseIterable, Comparable {
    case read
    case imageReserve = "image-reserve"
    case imagePart = "image-part"
    case imageCommit = "image-commit"
    case imagePoll = "image-poll"
    case create
    case update
    case remove
    case defaultExperience = "default-experience"
    /// A write of a build's App Clip invocations or their localizations (TestFlight).
    case testflight

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    init(method: String, path: String, body: JSONValue?) {
        let isImage = path.hasPrefix("/v1/appClipAdvancedExperienceImages") || path.hasPrefix("/v1/appClipHeaderImages")
        switch method {
        case "GET": self = isImage ? .imagePoll : .read
        case "POST" where isImage: self = .imageReserve
        case "PATCH" where isImage: self = .imageCommit
        case "POST" where path == "/v1/appClipAdvancedExperiences": self = .create
        case "PATCH" where path.hasPrefix("/v1/appClipAdvancedExperiences/"):
            self = body?["data"]?["attributes"]?["removed"] == .bool(true) ? .remove : .update
        case _ where path.hasPrefix("/v1/betaAppClipInvocation"): self = .testflight
        default: self = .defaultExperience
        }
    }
}
