import OutboundHTTP
import Testing

/// The outbound rules: which answers are redirects (never followed), what of a `Location` may be shown, and a refusal
/// that names the option of the process that refused.
struct OutboundHTTPTests {
    @Test func everyThreeHundredButNotModifiedIsARedirect() {
        for status in [300, 301, 302, 303, 307, 308, 399] {
            #expect(Redirect(status: status, location: "https://elsewhere.example/")?.location == "https://elsewhere.example/")
        }
        for status in [200, 204, 304, 400, 404, 500] { #expect(Redirect(status: status, location: "https://x/") == nil) }
        #expect(Redirect(status: 302, location: nil)?.shownLocation == nil)
    }

    /// A Location is stored and printed: nothing in it may reach a terminal as a control sequence.
    @Test func aRedirectsLocationIsShownWithoutControls() {
        let shown = Redirect(status: 302, location: "http://x/\u{1B}[31mRED\u{1B}]0;pwned\u{07} é")?.shownLocation
        #expect(shown == "http://x/%1B[31mRED%1B]0;pwned%07%20%C3%A9")
        #expect(Redirect(status: 302, location: String(repeating: "a", count: 400))?.shownLocation?.count == 301)
    }

    /// The refusal names the option of the process that refused (`verify`'s locally, `serve`'s on a server), not a
    /// webhook's.
    @Test func aRefusalNamesThisProcesssOption() throws {
        let local = OutboundHTTP(timeoutSeconds: 1, allowPrivateTargets: false, privateTargetsOption: "verify --allow-private-targets")
        let server = OutboundHTTP(timeoutSeconds: 1, allowPrivateTargets: false, privateTargetsOption: "serve --allow-private-targets")
        for url in ["https://127.0.0.1/x", "https://169.254.169.254/x", "https://localhost/x", "https://[::1]/x"] {
            guard case .failure(.refused(let here)) = local.get(url, userAgent: "t"),
                case .failure(.refused(let there)) = server.post(url, headers: [], body: [])
            else {
                Issue.record("\(url) not refused")
                continue
            }
            #expect(here.contains("verify --allow-private-targets") && !here.contains("webhook"), "\(here)")
            #expect(there.contains("serve --allow-private-targets") && !there.contains("webhook"), "\(there)")
        }
    }
}
