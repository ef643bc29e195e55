/// How a GET answer may be kept by caches, shared ones included (RFC 9111), and answered `304` when
/// the client's copy is current (RFC 9110 §13). Pure: the caller gives the clock.
public struct CachePolicy: Sendable, Equatable {
    public enum Freshness: Sendable, Equatable {
        /// `public, max-age=N` (RFC 9111 §5.2.2.1, §5.2.2.9): any cache may serve it for N seconds.
        case publicFor(seconds: Int)
        /// The bytes never change for this URL: a year and `immutable` (RFC 8246).
        case immutable
        /// `no-store` (RFC 9111 §5.2.2.5): for answers to credentials, never kept anywhere.
        case noStore
    }

    public var freshness: Freshness {
        didSet {
            cacheControl = Self.cacheControl(freshness)
            fieldLines = Self.fieldLines(cacheControl, varyValue)
        }
    }
    /// The request fields that select among answers of the same URL (RFC 9110 §12.5.5).
    public var vary: [String] {
        didSet {
            varyValue = vary.joined(separator: ", ")
            fieldLines = Self.fieldLines(cacheControl, varyValue)
        }
    }
    /// The field values, made once rather than per answer.
    public private(set) var cacheControl: String
    public private(set) var varyValue: String
    /// `Cache-Control`, and `Vary` when there is one, as the lines of a head (for answers written as bytes).
    public private(set) var fieldLines: [UInt8]

    public init(_ freshness: Freshness, vary: [String] = []) {
        self.freshness = freshness
        self.vary = vary
        cacheControl = Self.cacheControl(freshness)
        varyValue = vary.joined(separator: ", ")
        fieldLines = Self.fieldLines(cacheControl, varyValue)
    }

    static func fieldLines(_ cacheControl: String, _ vary: String) -> [UInt8] {
        Array("Cache-Control: \(cacheControl)\r\n".utf8) + (vary.isEmpty ? [] : Array("Vary: \(vary)\r\n".utf8))
    }

    static func cacheControl(_ freshness: Freshness) -> String {
        switch freshness {
        case .publicFor(let seconds): "public, max-age=\(max(0, seconds))"
        case .immutable: "public, max-age=31536000, immutable"
        case .noStore: "no-store"
        }
    }

    /// The answer with its validators and caching fields, or the `304` that replaces it.
    ///
    /// Only a `200` to GET or HEAD is made cacheable. `entityTag` is the strong tag of the
    /// representation (RFC 9110 §8.8.3; kept when the response already has one); `lastModified` the
    /// newest change that could have affected it, in seconds since 1970. Conditions are read in the
    /// order of RFC 9110 §13.2.2: `If-None-Match` (§13.1.2, weak comparison, `*` matches), and only
    /// without it `If-Modified-Since` (§13.1.3), trusted only when the date is at least a second
    /// before `now` (a later change within the same second would not show in the date, §8.8.2.2).
    /// The `304` has no body and carries the fields a `200` would (RFC 9110 §15.4.5).
    public func apply(
        to response: HTTPResponse, request: HTTPRequest, entityTag: String, lastModified: Int64?, now: Int64
    ) -> HTTPResponse {
        var response = response
        let isRead = response.status == 200 && (request.method == "GET" || request.method == "HEAD")
        if freshness == .noStore {
            response.headers.set("Cache-Control", cacheControl)
            // The client's own copy may still be validated by the tag the answer carries.
            guard isRead, let tag = response.headers["ETag"], Self.notModified(request.headers, tag: tag, lastModified: nil, now: now)
            else { return response }
            return Self.notModifiedResponse(response)
        }
        guard isRead else { return response }
        let tag = response.headers["ETag"] ?? entityTag
        var fields: [(String, String)] = [("ETag", tag), ("Cache-Control", cacheControl)]
        if !vary.isEmpty { fields.append(("Vary", varyValue)) }
        if let lastModified { fields.append(("Last-Modified", HTTPDate.format(min(lastModified, now)))) }
        for (name, value) in fields { response.headers.set(name, value) }
        if Self.notModified(request.headers, tag: tag, lastModified: lastModified, now: now) { return Self.notModifiedResponse(response) }
        return response
    }

    /// The `304` for `response`: no body, and its fields but the representation's own (RFC 9110 §15.4.5).
    static func notModifiedResponse(_ response: HTTPResponse) -> HTTPResponse {
        let representation = ["Content-Type", "Content-Length", "Content-Disposition"]
        var kept = HTTPHeaders()
        for field in response.headers where !representation.contains(where: { field.name.caseInsensitiveEquals($0) }) {
            kept.add(field.name, field.value)
        }
        return HTTPResponse(status: 304, headers: kept)
    }

    /// True when the request's conditions say its copy is current (RFC 9110 §13.2.2 steps 3–4).
    public static func notModified(_ headers: HTTPHeaders, tag: String, lastModified: Int64?, now: Int64) -> Bool {
        if let condition = headers.entityTagCondition("If-None-Match") {
            switch condition {
            case .any: return true
            case .tags(let tags):
                // Weak comparison (RFC 9110 §8.8.3.2): the opaque parts equal, W/ on either side ignored.
                let current = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
                return tags.contains { "\"\($0.opaque)\"" == current }
            }
        }
        guard let lastModified, let text = headers["If-Modified-Since"], let since = HTTPDate.parse(text) else { return false }
        return lastModified <= since && since < now
    }
}
