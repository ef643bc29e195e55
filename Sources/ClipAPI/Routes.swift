import ClipApp
import ClipCore
import ClipStore
import Foundation
import HTTP1
import StrictJSON

extension ClipAPI {
    func registerRoutes() {
        registerPublicRoutes()
        registerOperations()
    }

    /// Public (docs/architecture.md#the-http-api): no token.
    func registerPublicRoutes() {
        add("GET", "/healthz", .open, fromMemory: .always, caching: .never) { _, _ in json(["status": "ok"]) }
        add("GET", "/readyz", .open, caching: .never) { api, c in
            c.registry.isReady()
                ? json(["status": "ready"])
                : Problem(status: 503, detail: "the database is not migrated", headers: [("Retry-After", "5")]).response
        }
        add("GET", "/metrics", .open, caching: .never) { api, c in
            let counts = try c.registry.experienceCounts()
            let text =
                api.metrics.render(
                    experiences: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
                    connections: api.connectionCount())
                + PropagationMetrics.render(try c.registry.propagationDelays())
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(text.utf8))
        }
        add("GET", "/.well-known/apple-app-site-association", .open, fromMemory: .always) { api, c in try api.servedAASA(c) }
        add("GET", "/apple-app-site-association", .open, fromMemory: .always) { api, c in try api.servedAASA(c) }
        add("GET", "/v1/resolve", .open, fromMemory: .unlessQueryNames("explain"), caching: .shared(vary: ["Accept-Language"])) { api, c in
            try api.resolve(c)
        }
        add("GET", "/v1/banner", .open, caching: .shared(vary: ["Accept"])) { api, c in try api.banner(c) }
        add("GET", "/v1/aasa/check", .open) { api, c in try api.aasaCheck(c) }
    }

    static func limit(_ c: Context, default value: Int = 100) throws -> Int {
        guard let text = c.query("limit") else { return value }
        guard let n = Int(text), (1...1000).contains(n) else {
            throw Problem(
                status: 422, detail: "limit is out of range",
                errors: [FieldError(field: "limit", rule: "range", message: "expected a whole number from 1 to 1000")])
        }
        return n
    }

    static func flag(_ c: Context, _ name: String) throws -> Bool {
        switch c.query(name)?.lowercased() {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        default:
            throw Problem(
                status: 422, detail: "\(name) is true or false",
                errors: [FieldError(field: name, rule: "type", message: "expected true or false")])
        }
    }

    // MARK: Served AASA (docs/rules.md#aasa-generation, docs/apple-formats.md#serving)

    func servedAASA(_ c: Context) throws -> HTTPResponse {
        guard let hostHeader = c.request.headers["Host"], !hostHeader.isEmpty else {
            throw Problem.badRequest("the request has no Host header")
        }
        // The port is not part of the association (docs/apple-formats.md#appclips); IPv6 literals are not hosts here.
        // Over UTF-8: splitting the String by Character broke graphemes (callgrind: 10% of an AASA request).
        let host = hostHeader.utf8.firstIndex(of: UInt8(ascii: ":")).map { String(hostHeader[..<$0]) } ?? hostHeader
        // Served from the read model's cache (docs/architecture.md#the-read-model), generated once per change of the host.
        let normalized: String
        do { normalized = try Registry.normalizeHost(host) } catch { throw Problem.notFound(Self.aasaUnknownHost.description) }
        guard let file = try pool.index.aasa(host: normalized) else {
            throw RegistryError.notFound("\(Self.aasaNotConfigured.before)\(normalized)\(Self.aasaNotConfigured.after)")
        }
        // Caching fields and the 304 come from the route's policy (ClipAPI.cached).
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("ETag", file.etag)]), body: file.bytes)
    }

    /// Does the registry's AASA for the URL's host give the URL to the app? (`AASACheck`)
    func aasaCheck(_ c: Context) throws -> HTTPResponse {
        json(try AASACheck.answer(url: c.query("url") ?? "", app: c.query("app") ?? "", registry: c.registry))
    }

    // MARK: Resolve and banner

    func resolve(_ c: Context) throws -> HTTPResponse {
        guard let url = c.query("url"), !url.isEmpty else {
            throw Problem(
                status: 400, detail: "give the invocation URL as ?url=",
                errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let explain = try Self.flag(c, "explain")
        let resolution: Resolution
        if explain {
            // The explanation lists every candidate of the host, which only the database path keeps.
            resolution = try c.registry.resolve(url, language: c.query("language"), acceptLanguage: c.request.headers["Accept-Language"])
        } else {
            // The plain answer comes from the in-memory index (docs/architecture.md#the-read-model).
            let preferences = try Registry.preferences(language: c.query("language"), acceptLanguage: c.request.headers["Accept-Language"])
            // Nearly every request: a plain URL that resolves to an advanced experience, answered from the URL's bytes and
            // the index's arena (`LiveIndex.writeAdvancedAnswer`: the same bytes as the Resolution path below; profile:
            // building the Resolution was most of a resolve request's allocations).
            var body: [UInt8] = []
            body.reserveCapacity(512)
            var raw = url
            if try raw.withUTF8({ bytes throws(RegistryError) in
                try pool.index.writeAdvancedAnswer(invocationURL: bytes, preferences: preferences, into: &body)
            }) {
                return HTTPResponse(status: 200, contentType: "application/json", body: body)
            }
            resolution = try pool.index.resolve(url, preferences: preferences)
            if let bytes = pool.index.answerBytes(resolution) {
                return HTTPResponse(status: 200, contentType: "application/json", body: bytes)
            }
        }
        let answer = resolution.json(explain: explain)
        guard resolution.match != nil else {
            var extra = answer.objectMembers ?? []
            extra.removeAll { $0.key == "reason" }
            throw Problem(status: 404, detail: "no match: \(resolution.reason ?? "")", extra: extra)
        }
        return json(answer)
    }

    func banner(_ c: Context) throws -> HTTPResponse {
        guard let url = c.query("url"), !url.isEmpty else {
            throw Problem(
                status: 400, detail: "give the page URL as ?url=",
                errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let result = try c.registry.banner(pageURL: url, appArgument: c.query("appArgument"), clip: c.query("clip"))
        if Self.prefersHTML(c.request.headers["Accept"]) {
            return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array((result.banner.metaTag + "\n").utf8))
        }
        return json(Banner.Output(result).json)
    }

    /// True when `Accept` ranks text/html above application/json (RFC 9110 §12.5.1, q-values).
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var html = -1.0, json = -1.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch parts.first {
            case "text/html": html = max(html, q)
            case "application/json": json = max(json, q)
            default: break
            }
        }
        return html > 0 && html > json
    }
}
