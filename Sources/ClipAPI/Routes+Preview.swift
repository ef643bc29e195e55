import CardPreview
import ClipCore
import ClipStore
import Foundation
import HTTP1

extension ClipAPI {
    func registerPreviewRoutes() {
        add("GET", "/preview", .open, caching: .shared(vary: ["Accept-Language"])) { api, c in try api.cardPreview(c) }
        add("GET", "/v1/images/{sha256}", .open, caching: .immutable) { api, c in try api.headerImage(c) }
    }

    /// The card preview page of `?url=` in `?language=` (else `Accept-Language`): 200 when a card
    /// shows, 404 when none does, 422 when the URL is not an invocation URL; the page in every case.
    func cardPreview(_ c: Context) throws -> HTTPResponse {
        guard let url = c.query("url"), !url.isEmpty else {
            throw Problem(
                status: 400, detail: "give the invocation URL as ?url=",
                errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let input = try CardPreviewSource.input(
            registry: c.registry, url: url, language: c.query("language"), acceptLanguage: c.request.headers["Accept-Language"],
            images: .served, codesOrigin: "")
        let page = CardPreviewPage.render(input)
        let status = page.kind != .noMatch ? 200 : input.urlIsValid ? 404 : 422
        return HTTPResponse(
            status: status,
            headers: HTTPHeaders([
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Security-Policy", page.contentSecurityPolicy),
                // Fetch §3.5.2 (`nosniff`) and Referrer Policy §3 (`no-referrer`: the URL previewed stays here).
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                // A page without a card (404, 422) is not for caches to keep: asked again each time
                // (RFC 9111 §5.2.2.4); a 200 gets the route's public policy instead (ClipAPI.cached).
                ("Cache-Control", "no-cache"),
                ("Vary", "Accept-Language"),
            ]),
            body: Array(page.html.utf8))
    }

    /// A stored header image by its SHA-256: the bytes never change for a name, so the answer may be
    /// cached for a year as `immutable` (RFC 8246) with the hash as its strong ETag (RFC 9110 §8.8.3);
    /// `If-None-Match` with it answers 304 (RFC 9110 §13.1.2).
    func headerImage(_ c: Context) throws -> HTTPResponse {
        let sha = c.parameter("sha256")
        let hex = sha.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
        guard sha.utf8.count == 64, hex else {
            throw Problem.notFound("no header image \(sha.prefix(80)): give its SHA-256 in lower-case hexadecimal")
        }
        // An unknown hash is RegistryError.notFound, answered 404 like any other.
        let image = try c.registry.headerImage(sha)
        let headers = [("Content-Type", image.mediaType), ("ETag", "\"\(sha)\""), ("X-Content-Type-Options", "nosniff")]
        return HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: image.bytes)
    }
}
