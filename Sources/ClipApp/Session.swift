public import ClipCore
public import ClipStore

/// One operation's access to the registry, as one caller: the store and the tenancy rules applied
/// to what the operation reads (docs/rules.md#tenancy).
public struct Session {
    public let registry: Registry
    public let caller: Caller
    /// How the operations that look outside fetch (`verify`); nil where this process does not.
    public let outbound: Outbound?
    /// The operator lets tenants name loopback, private and link-local addresses as webhook targets
    /// (README "Webhooks", SSRF): `serve --allow-private-targets`, `webhook add --allow-private-targets` on a database.
    public let allowsPrivateTargets: Bool
    /// How the App Store Connect operations reach it (`asc plan`, `/v1/asc/apply`); nil where this process has no
    /// key (a server started without one).
    public let appStoreConnect: AppStoreConnectAccess?
    /// On a public route sent a bearer token: whether it is live, checked only when an operation asks
    /// (checking records the token's use). nil: none was sent. A public route otherwise ignores
    /// credentials; `GET /v1/codes` lifts its PNG size limit for a token (docs/http-api.md).
    public var carriesValidToken: (() throws -> Bool)?
    /// Whoever asked has gone (a client that closed its connection): work that would only answer them stops.
    public var isCancelled: @Sendable () -> Bool = { false }

    public init(
        registry: Registry, caller: Caller, outbound: Outbound? = nil, allowsPrivateTargets: Bool = false,
        appStoreConnect: AppStoreConnectAccess? = nil
    ) {
        self.registry = registry
        self.caller = caller
        self.outbound = outbound
        self.allowsPrivateTargets = allowsPrivateTargets
        self.appStoreConnect = appStoreConnect
    }

    /// Checks `rule` for this caller; the layer calls it before every operation.
    public func admit(_ rule: CallerRule) throws(CallerRefusal) {
        switch (rule, caller) {
        case (.open, _), (_, .local), (.token, .admin), (.token, .team), (.admin, .admin): return
        case (_, .anyone): throw .unauthenticated("this route needs Authorization: Bearer TOKEN")
        case (.admin, .team): throw .forbidden("this route needs an admin token")
        }
    }

    /// A team token sees only its team's objects: another team's is not found, so that its
    /// existence is not told (docs/rules.md#tenancy).
    public func checkVisible(team: TeamID, _ what: String) throws(RegistryError) {
        switch caller {
        case .local, .admin: return
        case .team(let own, _) where own == team: return
        case .team, .anyone: throw RegistryError.notFound(what)
        }
    }

    /// A team token creates and changes its own team's objects only (HTTP 403).
    public func checkWritable(team: TeamID) throws(CallerRefusal) {
        if let own = caller.team, own != team {
            throw .forbidden("a token of team \(own.rawValue) cannot act for team \(team.rawValue)")
        }
    }
}

/// An outbound GET as the operator allows it (docs/operations.md#has-my-change-reached-iphones): the
/// address rules, timeout and size cap of webhooks apply (`OutboundHTTP`), and where.
public struct Outbound: Sendable {
    public struct Response: Sendable, Equatable {
        public let status: Int
        /// Header names lower-cased.
        public let headers: [String: String]
        /// At most `maxBodyBytes` + 1 bytes: more than `maxBodyBytes` means the body was larger.
        public let body: [UInt8]
        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The address rules refused the target before any connection (a private address, `localhost`).
        case refused(String)
        /// No answer: DNS, connection, TLS, timeout.
        case unreachable(String)
    }

    /// Fetches a URL with a user agent, redirects not followed; ends early once `isCancelled` says so.
    public let fetch: Fetch
    public typealias Fetch =
        @Sendable (_ url: String, _ userAgent: String, _ isCancelled: @escaping @Sendable () -> Bool) -> Result<
            Response, Failure
        >
    /// Apple's CDN, to which `/HOST` is added (`--cdn-url`, `serve --aasa-cdn-url`).
    public let cdnBaseURL: String
    /// The site's file: `{host}` is replaced by the host (`--site-url`, `serve --aasa-site-url`; tests and staging mirrors).
    public let siteURLTemplate: String
    /// The options that set these rules where this process runs, named in refusals and fixes.
    public let names: SettingNames
    /// One host's fetches, all at once, end by then: under clipctl's 30 s default `CLIP_TIMEOUT`
    /// (docs/operations.md#has-my-change-reached-iphones).
    public let hostDeadlineSeconds: Double

    /// The options that set the outbound rules: `serve`'s on a server, `verify`'s on a database.
    public struct SettingNames: Sendable, Equatable {
        public let allowPrivateTargets: String
        public let cdnURL: String
        public let siteURL: String
        public static let verify = SettingNames(
            allowPrivateTargets: "verify --allow-private-targets", cdnURL: "verify --cdn-url", siteURL: "verify --site-url")
        public static let serve = SettingNames(
            allowPrivateTargets: "serve --allow-private-targets", cdnURL: "serve --aasa-cdn-url", siteURL: "serve --aasa-site-url")
    }

    public static let appleCDN = "https://app-site-association.cdn-apple.com/a/v1"
    public static let wellKnown = "https://{host}/.well-known/apple-app-site-association"
    /// Text a remote server sent, as it may be stored, answered and printed to a terminal: every byte outside
    /// printable ASCII percent-encoded (RFC 3986 §2.1; a field value or a URL carries no others worth showing, and
    /// this defuses terminal escape sequences), at most 300 bytes of it. `keepingSpace: false` for a URL, which has none.
    public static func printable(_ text: String, keepingSpace: Bool = true) -> String {
        let out = PercentEncoding.encode(text.utf8.prefix(300)) { (0x21...0x7E).contains($0) || (keepingSpace && $0 == 0x20) }
        return text.utf8.count > 300 ? out + "…" : out
    }

    /// Read this much of an answer at most, one byte more to tell a larger file.
    public static let maxBodyBytes = 256 * 1024

    public init(
        cdnBaseURL: String = Outbound.appleCDN, siteURLTemplate: String = Outbound.wellKnown, names: SettingNames = .verify,
        hostDeadlineSeconds: Double = 20, fetch: @escaping Fetch
    ) {
        self.fetch = fetch
        self.cdnBaseURL = cdnBaseURL
        self.siteURLTemplate = siteURLTemplate
        self.names = names
        self.hostDeadlineSeconds = hostDeadlineSeconds
    }
}
