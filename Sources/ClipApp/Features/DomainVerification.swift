import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// What a site and Apple's CDN serve for a host, compared with what the registry generates now
/// (docs/operations.md#has-my-change-reached-iphones): `GET /v1/domains/{host}/verification` for one
/// host, `GET /v1/verification` and `clipctl verify [HOST…]` for several (every host the caller
/// sees when none is named). A team token sees its own hosts only.
public enum DomainVerification: Operation {
    public static let callers = CallerRule.token
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var host = ""
        public init() {}
        public static let fields: [InputField<Input>] = [
            .text("host", \.host, in: .path, "HOST", help: "the host to verify", required: true)
        ]
    }

    public typealias Output = HostVerification

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // The tenancy check first: another team's host is not found, whatever this server fetches.
        let host = try HostVerifier.visibleHost(input.host, in: session)
        return try HostVerifier.verify([host], in: session)[0]
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/domains/{host}/verification"))
}

public enum Verification: Operation {
    public static let callers = CallerRule.token
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        /// The hosts to verify; none: every host the caller sees.
        public var hosts: [String] = []
        public init() {}
        static let host = InputField.texts(
            "host", \Input.hosts, "HOST", help: "hosts to verify (default: every host the registry serves)", positional: true)
        public static let fields: [InputField<Input>] = [host]
    }

    public struct Output: OperationOutput {
        public var hosts: [HostVerification]
        public var ok: Bool { hosts.allSatisfy(\.ok) }
        public var json: JSONValue { .object(["ok": .bool(ok), "items": .array(hosts.map(\.json))]) }
        public init(hosts: [HostVerification]) { self.hosts = hosts }
        public init(json: JSONValue) throws(WireError) {
            hosts = try ListJSON.items(json: json).map { (v) throws(WireError) in try HostVerification(json: v) }
        }
    }

    /// Hosts named in one request at most (docs/http-api.md#verification): each costs three fetches.
    public static let maxHosts = 50

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard input.hosts.count <= maxHosts else {
            throw RegistryError.invalid([
                FieldError(
                    field: Input.host.facts.name, rule: "max", message: "names \(input.hosts.count) hosts; at most \(maxHosts) a request")
            ])
        }
        var hosts: [String] = []
        for host in input.hosts {
            // Each host once, however it is spelt (`Shop.Example.`, `shop.example`).
            let normalized = try HostVerifier.visibleHost(host, in: session)
            if !hosts.contains(normalized) { hosts.append(normalized) }
        }
        if input.hosts.isEmpty {
            let all = try session.registry.aasaHosts()
            if let team = session.caller.team {
                let own = Set(try session.registry.hostOwnerships(team: team).map(\.host))
                hosts = all.filter(own.contains)
            } else {
                hosts = all
            }
        }
        return Output(hosts: try HostVerifier.verify(hosts, in: session))
    }

    /// `verify --explain`: the entitlement lines of the modes that fetch from the site.
    static let explain = FieldFacts.flag(
        "explain", help: "also print the entitlement modes that make a development device fetch from the site")
    /// How this process fetches on a database; a server decides for itself (`ServerCall.localOptions`).
    static let fetching = [
        FieldFacts.option("cdn-url", "URL", help: "Apple's CDN base URL, HOST is added", default: Outbound.appleCDN),
        FieldFacts.option("site-url", "TEMPLATE", help: "where the site's file is, {host} replaced (for tests and mirrors)"),
        FieldFacts.flag("allow-private-targets", help: "allow loopback, private and link-local addresses (tests)"),
    ]
    /// `--wait`, and how it waits (clipctl's own: `WaitSchedule`), never sent (`ServerCall.clientOptions`).
    static let wait = FieldFacts.flag(
        "wait", help: "check again, minutes apart at first then hourly, until Apple's CDN serves the registry's file")
    static let waiting = [
        FieldFacts.option("timeout", "DURATION", help: "with --wait: give up after this long, such as 72h", default: "72h"),
        FieldFacts.option("wait-intervals", "S,S,…", help: "with --wait: seconds between checks, the last repeating (tests)"),
    ]

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/verification"),
        command: Command(
            ["verify"],
            CommandHelp(
                "compare what each site and Apple's CDN serve with the registry's AASA",
                discussion: """
                    Fetches https://HOST/.well-known/apple-app-site-association as Apple's bot does (user agent \
                    AASA-Bot/1.0.0, redirects not followed) and Apple's CDN copy, and compares each with the file the \
                    registry generates now: appclips apps, applinks details, webcredentials. Exits 0 when every host is ok, \
                    1 otherwise. Outbound requests obey the webhook address rules: loopback, private and link-local \
                    addresses are refused unless --allow-private-targets (over --server the server decides).
                    """,
                examples: [
                    CommandExample(
                        "clipctl verify", "Compare every host's site and Apple's CDN copy with the registry; exit 1 if any differs"),
                    CommandExample(
                        "clipctl verify shop.example --explain", "One host, with the entitlement lines of developer and managed mode"),
                    CommandExample(
                        "clipctl verify --wait shop.example --timeout 72h", "Hold a release until Apple's CDN serves the new file"),
                ]),
            options: [explain] + fetching + [wait] + waiting,
            settled: { output in output.hosts.allSatisfy { $0.checks.contains { $0.place == "apple-cdn" && $0.verdict == "ok" } } },
            server: ServerCall(localOptions: Set(fetching.map(\.name)), clientOptions: Set(waiting.map(\.name))),
            present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) throws {
        if output.hosts.isEmpty { printer.err("no host has an AASA file in the registry\n") }
        for host in output.hosts { HostVerification.present(host, explain: words.flag(explain.name), printer) }
        if !output.ok { throw CommandVerdict.negative() }
    }
}

/// `verify --explain`: the entitlement lines whose alternate modes make a device fetch from the site
/// directly, bypassing Apple's CDN (Apple, "Associated Domains Entitlement",
/// https://developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.associated-domains).
enum DeveloperModeExplanation {
    static func lines(host: String) -> [String] {
        [
            "Alternate modes go in the app's and the App Clip's entitlement (com.apple.developer.associated-domains),",
            "never in the AASA file's URL; a device in such a mode fetches https://\(host)/.well-known/apple-app-site-association",
            "itself instead of reading Apple's CDN:",
            "  appclips:\(host)?mode=developer          only devices in developer mode; the app signed with a development",
            "  applinks:\(host)?mode=developer           profile; the user opts in on the device; any valid SSL certificate",
            "                                            will do",
            "  applinks:\(host)?mode=managed             only devices managed by MDM (the administrator's profile allows it)",
            "  applinks:\(host)?mode=developer+managed   both at once",
            "Source: Apple, Associated Domains Entitlement:",
            "  https://developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.associated-domains",
        ]
    }
}
