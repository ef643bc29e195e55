import CardPreview
import ClipApp
import ClipCore
import ClipStore
import Foundation
import HTTP1

extension ClipAPI {
    func registerPreviewRoutes() {
        add("GET", "/preview", .open, caching: .shared(vary: ["Accept-Language"])) { api, c in try api.cardPreview(c) }
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
}
