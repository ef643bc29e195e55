import ArgParse
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

    public struct Input: OperationInput {
        public var host: String
        public init(reading reader: inout ArgumentReader) { host = reader.string("host", required: true) ?? "" }
        public var arguments: Arguments { Arguments([("host", host)]) }
    }

    public typealias Output = HostVerification

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // The tenancy check first: another team's host is not found, whatever this server fetches.
        let host = try HostVerifier.visibleHost(input.host, in: session)
        return try HostVerifier.verify([host], in: session)[0]
    }

    public static let binding = Binding(Self.self, "GET", "/v1/domains/{host}/verification")
}

public enum Verification: Operation {
    public static let callers = CallerRule.token
    public static let waitsOnOthers = true

    public struct Input: OperationInput {
        /// The hosts to verify; none: every host the caller sees.
        public var hosts: [String]
        public init(reading reader: inout ArgumentReader) { hosts = reader.strings("host") }
        public var arguments: Arguments { Arguments(hosts.map { ("host", $0) }) }
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
                FieldError(field: "host", rule: "max", message: "names \(input.hosts.count) hosts; at most \(maxHosts) a request")
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

    public static let binding = Binding(
        Self.self, "GET", "/v1/verification",
        command: CommandSpec(
            "verify", summary: "compare what each site and Apple's CDN serve with the registry's AASA",
            discussion: """
                Fetches https://HOST/.well-known/apple-app-site-association as Apple's bot does (user agent \
                AASA-Bot/1.0.0, redirects not followed) and Apple's CDN copy, and compares each with the file the \
                registry generates now: appclips apps, applinks details, webcredentials. Exits 0 when every host is ok, \
                1 otherwise. Outbound requests obey the webhook address rules: loopback, private and link-local \
                addresses are refused unless --allow-private-targets (over --server the server decides).
                """,
            positionals: [PositionalSpec("HOST", help: "hosts to verify (default: every host the registry serves)", variadic: true)],
            options: [
                .flag("explain", help: "also print the entitlement modes that make a development device fetch from the site"),
                .option("cdn-url", value: "URL", help: "Apple's CDN base URL, HOST is added (default \(Outbound.appleCDN))"),
                .option("site-url", value: "TEMPLATE", help: "where the site's file is, {host} replaced (for tests and mirrors)"),
                .flag("allow-private-targets", help: "allow loopback, private and link-local addresses (tests)"),
                .flag("wait", help: "check again, minutes apart at first then hourly, until Apple's CDN serves the registry's file"),
                .option("timeout", value: "DURATION", help: "with --wait: give up after this long, such as 72h (default 72h)"),
                .option("wait-intervals", value: "S,S,…", help: "with --wait: seconds between checks, the last repeating (tests)"),
            ],
            examples: [
                Example("clipctl verify", "Compare every host's site and Apple's CDN copy with the registry; exit 1 if any differs"),
                Example("clipctl verify shop.example --explain", "One host, with the entitlement lines of developer and managed mode"),
                Example("clipctl verify --wait shop.example --timeout 72h", "Hold a release until Apple's CDN serves the new file"),
            ]),
        localOptions: ["cdn-url", "site-url", "allow-private-targets"], clientOptions: ["timeout", "wait-intervals"],
        settled: { output in output.hosts.allSatisfy { $0.checks.contains { $0.place == "apple-cdn" && $0.verdict == "ok" } } },
        present: present)

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) throws {
        if output.hosts.isEmpty { printer.err("no host has an AASA file in the registry\n") }
        for host in output.hosts { HostVerification.present(host, explain: parsed.flag("explain"), printer) }
        if !output.ok { throw CommandExitStatus(code: 1) }
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
