/// What each `errorCode` of App Store Connect's `AppClipDomainStatus` means, its likely cause and its fix
/// (docs/operations.md#app-store-connect-and-apples-own-verdict). Apple publishes the codes (App Store Connect API 4.4.1, schema
/// `AppClipDomainStatus`) without a text for each: a meaning is read from the code's name, a cause is marked
/// "likely" where it is inference, and the fixes follow Apple's serving rules (apple-spec.md §4.1: HTTPS with a
/// valid certificate, no redirects, `application/json`, at most 128 KB, the user agents AASA-Bot and CFNetwork let
/// through; TN3155 "Debugging universal links"; "Associated Domains Entitlement").
public struct AppleDomainErrorCode: Sendable, Equatable {
    /// What a code is about: the site's answer, the build's entitlement, or neither.
    public enum Scope: Sendable, Equatable { case site, entitlement, apple }

    public var code: String
    public var meaning: String
    public var likelyCause: String
    public var fix: String
    public var scope: Scope
    /// The verdicts of `verify`'s site check (`HostVerification.Check.verdict`) that say the same failure.
    public var agreeingSiteVerdicts: Set<String>

    /// The explanation of `code`; an unknown code is explained as unknown, verbatim.
    public static func explain(_ code: String) -> AppleDomainErrorCode {
        known[code]
            ?? AppleDomainErrorCode(
                code: code, meaning: "unknown: \(code) is not among the codes App Store Connect's specification (4.4.1) lists",
                likelyCause: "a code Apple added since; its name is all there is to go on",
                fix: "compare with the site's and Apple's CDN's verdicts above; App Store Connect's build page may say more",
                scope: .apple, agreeingSiteVerdicts: [])
    }

    public static func isKnown(_ code: String) -> Bool { known[code] != nil }

    static let noRedirect = "serve the file itself, status 200, at https://HOST/.well-known/apple-app-site-association: Apple "
    static let reachable = "from any address, to the user agents AASA-Bot and CFNetwork"
    static let newBuild = "then upload a new build (the entitlement is read from the build)"
    static let unreachableVerdicts: Set<String> = ["unreachable", "blocked-bot"]

    /// Every code App Store Connect's specification lists (4.4.1, `AppClipDomainStatus.domains.errorCode`).
    public static let known: [String: AppleDomainErrorCode] = Dictionary(
        uniqueKeysWithValues: [
            entry(
                "BAD_HTTP_RESPONSE", "Apple's fetch of the site's file got an HTTP answer other than 200",
                "likely a 403 or 404 to Apple's bot (a firewall, WAF or bot protection), or the file is missing at the well-known path",
                "answer 200 with the file at https://HOST/.well-known/apple-app-site-association \(reachable)", .site,
                ["blocked-bot", "http-error", "redirect"]),
            entry(
                "BAD_JSON_CONTENT", "the site answered, but not with an AASA file Apple could read as JSON",
                "likely an HTML error or login page with status 200, a file that is not valid JSON, or one over 128 KB",
                "serve the registry's file unchanged, Content-Type: application/json, under 128 KB", .site,
                ["not-json", "too-large", "wrong-content-type"]),
            entry(
                "BAD_PKCS7_SIGNATURE", "the file was read as a signed (PKCS #7) AASA file whose signature did not verify",
                "likely a legacy signed file (iOS 8) with an expired or untrusted signing certificate, or binary content",
                "serve the unsigned JSON file: signing is not needed since iOS 9 (Apple, App Search Programming Guide)", .site,
                ["not-json"]),
            entry(
                "CANNOT_REACH_AASA_FILE", "Apple could not get the file from the site",
                "likely no HTTPS service on port 443, a refused connection, or Apple's addresses blocked",
                "serve the file over HTTPS on port 443 \(reachable)", .site, unreachableVerdicts),
            entry(
                "CROSS_SITE_REDIRECTS_FORBIDDEN", "the site redirected to another host; Apple does not follow redirects for this file",
                "likely a redirect from HOST to www.HOST (or the reverse), or to a hosting provider's domain",
                noRedirect + "follows no redirect (TN3155), each host serves its own file", .site, ["redirect"]),
            entry(
                "DNS_ERROR", "HOST did not resolve to an address",
                "likely a missing A or AAAA record, a misspelled domain in the entitlement, or DNS not yet propagated",
                "publish the host's address records; check the entitlement's appclips:HOST spelling", .site, ["unreachable"]),
            entry(
                "INSECURE_REDIRECTS_FORBIDDEN", "the site redirected to a plain http:// address",
                "likely an HTTPS-to-HTTP redirect set up by a proxy or a load balancer",
                noRedirect + "fetches over HTTPS only and follows no redirect", .site, ["redirect"]),
            entry(
                "INVALID_ENTITLEMENT_MISSING_SECTION", "Apple found no section to check for this App Clip",
                "likely the AASA file has no appclips section naming the App Clip, or the entitlement lacks appclips:HOST",
                "clipctl domain add CLIP HOST and serve the registry's file; put appclips:HOST in the App Clip's entitlement, "
                    + newBuild, .entitlement, ["differs"]),
            entry(
                "INVALID_ENTITLEMENT_SYNTAX_ERROR", "an entry of the build's Associated Domains entitlement is malformed",
                "likely a scheme, path, port, trailing slash or *. wildcard in an appclips: entry (none is allowed for App Clips)",
                "write the entry as appclips:HOST exactly, " + newBuild, .entitlement, []),
            entry(
                "INVALID_ENTITLEMENT_UNHANDLED_SECTION", "the entitlement names a service Apple does not check for this build",
                "likely a misspelled service prefix (appclip: for appclips:) or a service an App Clip does not use",
                "use the prefixes appclips:, applinks:, webcredentials: or activitycontinuation:, " + newBuild, .entitlement, []),
            entry(
                "INVALID_ENTITLEMENT_UNKNOWN_ID", "the site's file does not name the build's app identifier",
                "likely appclips.apps lacks the App Clip's TEAMID.bundle-id, or the App ID prefix differs from the team ID (QA1879)",
                "list the App Clip's application-identifier in the registry (clipctl domain add CLIP HOST) and serve its file",
                .entitlement, ["differs"]),
            entry(
                "NETWORK_ERROR", "a network failure while Apple fetched the file",
                "likely a reset or refused connection, or a firewall dropping Apple's addresses",
                "make the site reachable \(reachable) (TN3155: from any IP address, in all locations)", .site, unreachableVerdicts),
            entry(
                "NETWORK_ERROR_TEMPORARY", "a network failure Apple counts as temporary",
                "likely a passing outage of the site or on the way to it; Apple likely tries again",
                "check that the site is up, then read the debug status again later", .site, unreachableVerdicts),
            entry(
                "OTHER_ERROR", "Apple reports a failure without naming it", "not known: Apple gives no detail",
                "compare with the site's and Apple's CDN's verdicts above, and read the debug status again later", .apple, []),
            entry(
                "TIMEOUT", "the site did not answer Apple in time",
                "likely a slow origin, or a firewall silently dropping Apple's packets",
                "serve the file fast (a static file) \(reachable)", .site, ["unreachable"]),
            entry(
                "TLS_ERROR", "the HTTPS connection failed: handshake or certificate",
                "likely a self-signed, expired or wrong-host certificate, or a missing intermediate certificate",
                "serve a certificate from a public CA with its full chain, valid for HOST (Apple: \"with a valid certificate\")", .site,
                ["unreachable"]),
            entry(
                "TOO_MANY_REDIRECTS", "the site redirected again and again", "likely a redirect loop or a chain of redirects",
                noRedirect + "follows no redirect", .site, ["redirect"]),
            entry(
                "UNEXPECTED_ERROR", "a failure on Apple's side", "likely not the site: Apple's own service failed",
                "read the debug status again later", .apple, []),
        ].map { ($0.code, $0) })

    private static func entry(
        _ code: String, _ meaning: String, _ cause: String, _ fix: String, _ scope: Scope, _ agreeing: Set<String>
    ) -> AppleDomainErrorCode {
        AppleDomainErrorCode(code: code, meaning: meaning, likelyCause: cause, fix: fix, scope: scope, agreeingSiteVerdicts: agreeing)
    }
}
