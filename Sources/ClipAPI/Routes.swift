import AppleFormats
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

    // MARK: Resolve

    func resolve(_ c: Context) throws -> HTTPResponse {
        guard let url = c.query("url"), !url.isEmpty else {
            throw Problem(
                status: 400, detail: "give the invocation URL as ?url=",
                errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let explain = try Self.flag(c, "explain")
        let at = try c.query("at").map { (text) throws(RegistryError) in
            do throws(ValidationFailure) { return try Instant.parse(text, field: "at", zone: SystemTimeZones.lookup) } catch {
                throw RegistryError.invalid(error.errors)
            }
        }
        let resolution: Resolution
        if explain || at != nil {
            // The explanation lists every candidate of the host, which only the database path keeps; another moment's
            // answer is the database's too (docs/rules.md#experiences-in-time).
            resolution = try c.registry.resolve(
                url, language: c.query("language"), acceptLanguage: c.request.headers["Accept-Language"], at: at)
        } else {
            let moment = pool.instant
            // The plain answer comes from the in-memory index (docs/architecture.md#the-read-model).
            let preferences = try Registry.preferences(language: c.query("language"), acceptLanguage: c.request.headers["Accept-Language"])
            // Nearly every request: a plain URL that resolves to an advanced experience, answered from the URL's bytes and
            // the index's arena (`LiveIndex.writeAdvancedAnswer`: the same bytes as the Resolution path below; profile:
            // building the Resolution was most of a resolve request's allocations).
            var body: [UInt8] = []
            body.reserveCapacity(512)
            var raw = url
            if try raw.withUTF8({ bytes throws(RegistryError) in
                try pool.index.writeAdvancedAnswer(invocationURL: bytes, preferences: preferences, at: moment, into: &body)
            }) {
                return HTTPResponse(status: 200, contentType: "application/json", body: body)
            }
            resolution = try pool.index.resolve(url, preferences: preferences, at: moment)
            if let bytes = pool.index.answerBytes(resolution) {
                return HTTPResponse(status: 200, contentType: "application/json", body: bytes)
            }
        }
        guard resolution.match != nil else {
            // A miss is the `Resolve` operation's answer, its 404 problem (`answerHot` writes the same bytes for a plain URL).
            let miss = try Resolve.Output(resolution, explain: explain)
            return HTTPResponse(status: 404, contentType: "application/problem+json", body: JSONWriter.bytes(miss.json))
        }
        return json(resolution.json(explain: explain))
    }
}
