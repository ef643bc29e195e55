public import AppleFormats
public import ClipCore
public import ClipStore
import Dispatch
import FileFormats
import Foundation
import Locking
import OutboundHTTP
public import ClipWire
public import StrictJSON

/// One host's verification: each place compared with the registry's file, and whether all agree.
public struct HostVerification: OperationOutput, Sendable {
    public struct Check: Sendable, Equatable {
        /// `site` or `apple-cdn`.
        public var place: String
        /// `ok`, `differs`, `unreachable`, `refused`, `blocked-bot`, `redirect`, `http-error`, `not-cached`,
        /// `wrong-content-type`, `too-large` or `not-json`.
        public var verdict: String
        public var url: String
        public var evidence: String
        public var fix: String?
        public var differences: [AASADifference] = []
        /// The registry's change records that touch what differs, the copy lacks them.
        public var lacking: [ChangeRecord] = []
    }

    public var host: String
    public var checks: [Check]
    /// The propagation watch's state for the registry's current file (`PropagationWatch`), if it follows it.
    public var propagation: AASAPropagation?
    /// What `asc plan` would change on the host, and Apple's own verdict on it (`AppStoreConnectVerification`).
    public var appStoreConnect: AppStoreConnectComparison?
    public var appleVerdict: AppleVerdict?
    /// Every check ok, nothing pending in App Store Connect, no status of Apple's invalid; what was not checked
    /// (no App Store Connect key) does not count.
    public var ok: Bool {
        checks.allSatisfy { $0.verdict == "ok" } && appStoreConnect?.verdict != "pending" && appleVerdict?.verdict != "invalid"
    }

    public init(host: String, checks: [Check], propagation: AASAPropagation? = nil) {
        self.host = host
        self.checks = checks
        self.propagation = propagation
    }

    public var json: JSONValue {
        .object([
            "host": .string(host), "ok": .bool(ok),
            "checks": .array(
                checks.map { c in
                    .object([
                        "where": .string(c.place), "verdict": .string(c.verdict), "url": .string(c.url), "evidence": .string(c.evidence),
                        "fix": c.fix.map(JSONValue.string),
                        "differences": .array(
                            c.differences.map {
                                .object([
                                    "section": .string($0.section), "app": $0.app.map(JSONValue.string),
                                    "change": .string($0.change.rawValue),
                                ])
                            }),
                        "lacking": .array(c.lacking.map { .object(["id": .integer($0.id), "at": .string($0.at)]) }),
                    ])
                }),
            "propagation": propagation.map { $0.json },
            "appStoreConnect": appStoreConnect.map(\.json), "appleVerdict": appleVerdict.map(\.json),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        guard let host = json["host"]?.stringValue, let checks = json["checks"]?.arrayValue else {
            throw WireError("verification without host or checks")
        }
        self.host = host
        self.propagation = json["propagation"].flatMap { AASAPropagation(host: host, json: $0) }
        self.appStoreConnect = try json["appStoreConnect"].flatMap { (v) throws(WireError) in
            v == .null ? nil : try AppStoreConnectComparison(json: v)
        }
        self.appleVerdict = try json["appleVerdict"].flatMap { (v) throws(WireError) in v == .null ? nil : try AppleVerdict(json: v) }
        self.checks = try checks.map { (c) throws(WireError) in
            guard let place = c["where"]?.stringValue, let verdict = c["verdict"]?.stringValue, let url = c["url"]?.stringValue,
                let evidence = c["evidence"]?.stringValue
            else { throw WireError("a verification check lacks where, verdict, url or evidence") }
            let differences = (c["differences"]?.arrayValue ?? []).compactMap { d -> AASADifference? in
                guard let section = d["section"]?.stringValue, let change = d["change"]?.stringValue.flatMap(AASADifference.Change.init)
                else { return nil }
                return AASADifference(section: section, app: d["app"]?.stringValue, change: change)
            }
            let lacking = (c["lacking"]?.arrayValue ?? []).compactMap { r -> ChangeRecord? in
                guard case .integer(let id)? = r["id"], let at = r["at"]?.stringValue else { return nil }
                return ChangeRecord(id: id, at: at, actor: "", entity: .host, entityID: host, action: .update, before: nil, after: nil)
            }
            return Check(
                place: place, verdict: verdict, url: url, evidence: evidence, fix: c["fix"]?.stringValue, differences: differences,
                lacking: lacking)
        }
    }

    static func present(_ host: HostVerification, explain: Bool, _ printer: Printer) {
        printer.line("\(host.host): \(host.ok ? "ok" : "NOT OK")")
        for c in host.checks {
            printer.line("  \(c.place.padding(toLength: 10, withPad: " ", startingAt: 0)) \(c.verdict)  \(c.url)")
            printer.line("             \(c.evidence)")
            for d in c.differences { printer.line("             \(d)") }
            if let first = c.lacking.first {
                let n = c.lacking.count
                printer.line(
                    "             lacks \(n) change\(n == 1 ? "" : "s") made since \(first.at): "
                        + ShownList.text(c.lacking.map { "#\($0.id)" }))
            }
            if let fix = c.fix { printer.line("             fix: \(fix)") }
        }
        presentAppStoreConnect(host, printer)
        if let p = host.propagation { printer.line("  watch      " + p.summary) }
        if explain { for line in DeveloperModeExplanation.lines(host: host.host) { printer.line("  " + line) } }
    }
}

/// Fetches a host's file from its site and from Apple's CDN and judges each answer.
struct HostVerifier: Sendable {
    let outbound: Outbound
    /// Whoever asked has gone: no fetch is started, and those running end.
    var isCancelled: @Sendable () -> Bool = { false }

    /// Apple's bot (apple-spec.md §4.1, S4: sites must allow `AASA-Bot` and `CFNetwork`).
    static let botAgent = "AASA-Bot/1.0.0"
    /// An ordinary browser's user agent, to tell a block of the bot from an outage.
    static let browserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

    /// What the registry says of a host, read before anything is fetched.
    struct Expectation: Sendable {
        let host: String
        let expected: JSONValue
        let changes: [ChangeRecord]
        var propagation: AASAPropagation? = nil
    }

    init(outbound: Outbound) { self.outbound = outbound }

    init(session: Session) throws {
        guard let outbound = session.outbound else {
            throw RegistryError.unprocessable("this server does not fetch sites (it runs without outbound requests)")
        }
        self.outbound = outbound
        self.isCancelled = session.isCancelled
    }

    /// The host normalized, if the caller sees it (a team token: a host its team holds). Another team's
    /// host is not found in the very words of a host with no AASA, checked before anything is read of it
    /// (docs/rules.md#tenancy).
    static func visibleHost(_ raw: String, in session: Session) throws -> String {
        if let team = session.caller.team {
            let host = try Registry.normalizeHost(raw)
            if try session.registry.hostOwnerships(host: host, team: team).isEmpty { throw Registry.noAASA(host) }
        }
        return try session.registry.aasaContent(host: raw).host
    }

    static func expectation(_ host: String, in session: Session) throws -> Expectation {
        let content = try session.registry.aasaContent(host: host)
        var propagation = try session.registry.propagation(host: host)
        // Only a change the watch follows: not another file's row, nor the baseline of a host it found as it is.
        if let p = propagation,
            (try? AASAGenerator.bytes(content)).map(SHA256.hexDigest) != p.digest || (p.checks == 0 && p.nextCheckMs == nil)
        {
            propagation = nil
        }
        return Expectation(
            host: host, expected: AASAGenerator.document(content), changes: try session.registry.aasaChanges(host: host),
            propagation: propagation)
    }

    /// Verifies `hosts`, `Outbound.hostsAtOnce` at a time; the registry is read first, on this thread, which then
    /// reads App Store Connect while the sites and the CDN are fetched (`AppStoreConnectVerification`).
    static func verify(_ hosts: [String], in session: Session) throws -> [HostVerification] {
        let verifier = try HostVerifier(session: session)
        let admitted = try VerificationAdmission.enter(session.caller)
        defer { VerificationAdmission.leave(admitted) }
        let expectations = try hosts.map { try expectation($0, in: session) }
        guard !hosts.isEmpty else { return [] }
        let fetched = Locked<[HostVerification]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            let answers = Outbound.boundedMap(expectations, width: Outbound.hostsAtOnce) { verifier.verify($0) }
            fetched.withLock { $0 = answers }
            done.signal()
        }.start()
        let reading = AppStoreConnectVerification.read(hosts, in: session)
        done.wait()
        return fetched.withLock { $0 }.map { answer in
            var out = answer
            (out.appStoreConnect, out.appleVerdict) = AppStoreConnectVerification.assemble(
                host: answer.host, checks: answer.checks, reading)
            return out
        }
    }

    /// The site as Apple's bot, the site as a browser and the CDN, fetched at once (all within the
    /// host's deadline), then judged.
    func verify(_ e: Expectation) -> HostVerification {
        let siteURL = outbound.siteURLTemplate.replacingOccurrences(of: "{host}", with: e.host)
        let cdnURL = outbound.cdnBaseURL + "/" + e.host
        let answers = outbound.fetchAll(
            [(siteURL, Self.botAgent), (siteURL, Self.browserAgent), (cdnURL, Self.browserAgent)], isCancelled: isCancelled)
        let browserGot200 = if case .success(let r) = answers[1], r.status == 200 { true } else { false }
        var site = siteCheck(e.host, url: siteURL, answers[0], browserGot200: browserGot200, expected: e.expected)
        var cdn = cdnCheck(url: cdnURL, answers[2], expected: e.expected)
        site.lacking = Self.lacking(site.differences, in: e.changes)
        cdn.lacking = Self.lacking(cdn.differences, in: e.changes)
        return HostVerification(host: e.host, checks: [site, cdn], propagation: e.propagation)
    }

    func siteCheck(
        _ host: String, url: String, _ answer: Result<Outbound.Response, Outbound.Failure>, browserGot200: Bool, expected: JSONValue
    ) -> HostVerification.Check {
        var check = HostVerification.Check(place: "site", verdict: "ok", url: url, evidence: "")
        let publish = "publish the registry's file at \(url) (clipctl publish, or proxy GET /v1/domains/\(host)/aasa)"
        let response: Outbound.Response
        switch answer {
        case .failure(.refused(let why)):
            return judged(check, "refused", why, refusedFix(outbound.names.siteURL))
        case .failure(.unreachable(let why)):
            return judged(
                check, browserGot200 ? "blocked-bot" : "unreachable", "to \(Self.botAgent): \(why)",
                "serve \(url) over HTTPS with a valid certificate, reachable from any address, to the user agents AASA-Bot and CFNetwork")
        case .success(let r): response = r
        }
        let status = response.status
        if (300...399).contains(status) {
            return judged(
                check, "redirect", "HTTP \(status) to \(response.headers["location"] ?? "?")",
                "serve the file itself at \(url) with status 200: Apple does not follow redirects (TN3155)")
        }
        if status != 200 {
            if browserGot200 {
                return judged(
                    check, "blocked-bot", "HTTP \(status) to \(Self.botAgent), HTTP 200 to a browser",
                    "let the user agents AASA-Bot and CFNetwork through (firewall, WAF or bot protection): Apple's CDN sees \(status)")
            }
            return judged(check, "http-error", "HTTP \(status) (a browser gets no 200 either)", publish)
        }
        check = body(check, response, publish: publish, expected: expected)
        if check.verdict == "ok" || check.verdict == "differs" {
            let type = response.headers["content-type"] ?? "none"
            if !type.lowercased().hasPrefix("application/json") {
                return judged(
                    check, "wrong-content-type", "Content-Type: \(type); " + check.evidence,
                    "serve the file with Content-Type: application/json (apple-spec.md §4.1)")
            }
        }
        return check
    }

    func cdnCheck(url: String, _ answer: Result<Outbound.Response, Outbound.Failure>, expected: JSONValue) -> HostVerification.Check {
        let check = HostVerification.Check(place: "apple-cdn", verdict: "ok", url: url, evidence: "")
        switch answer {
        case .failure(.refused(let why)): return judged(check, "refused", why, refusedFix(outbound.names.cdnURL))
        case .failure(.unreachable(let why)): return judged(check, "unreachable", why, "try again later: Apple's CDN did not answer")
        case .success(let r) where r.status == 404:
            let reason = r.headers["apple-failure-reason"].map { " (Apple-Failure-Reason: \($0))" } ?? ""
            return judged(
                check, "not-cached", "HTTP 404\(reason)",
                "Apple's CDN could not fetch the file from the site: fix the site's verdict; the CDN tries again on its own, within about 24 hours"
            )
        case .success(let r) where r.status != 200:
            return judged(check, "http-error", "HTTP \(r.status)", "try again later")
        case .success(let r):
            return body(
                check, r,
                publish: "wait: Apple's CDN fetches the site's file within about 24 hours, with no invalidation (apple-spec.md §4.2)",
                expected: expected)
        }
    }

    /// Judges a 200's body: its size, that it is JSON, and what differs from `expected`.
    func body(_ check: HostVerification.Check, _ r: Outbound.Response, publish: String, expected: JSONValue) -> HostVerification.Check {
        if r.body.count > AASAGenerator.maxBytes {
            let size = r.body.count > OutboundHTTP.maxBodyBytes ? "over \(OutboundHTTP.maxBodyBytes) bytes" : "\(r.body.count) bytes"
            return judged(check, "too-large", "\(size), over Apple's 128 KB limit", "serve the registry's file, which stays under 128 KB")
        }
        guard let served = try? JSONParser.parse(r.body), served.objectMembers != nil else {
            let start = String(decoding: r.body.prefix(40), as: UTF8.self).filter { $0.isASCII && !$0.isNewline && $0 >= " " }
            // Why, in `aasa lint`'s words (a byte order mark, UTF-16, a duplicate key, bytes after the object).
            let findings = AASALinter.lint(r.body)
            let why =
                (findings.first { $0.severity == .error } ?? findings.first { $0.code == "AASA007" }).map { "\($0.code) \($0.message)" }
                ?? "not a JSON object"
            return judged(check, "not-json", "HTTP 200, \(r.body.count) bytes, \(why): \(start)…", publish)
        }
        let differences = AASAComparison.compare(expected: expected, served: served)
        var out = judged(
            check, differences.isEmpty ? "ok" : "differs", "HTTP 200, \(r.body.count) bytes",
            differences.isEmpty ? nil : publish)
        out.differences = differences
        return out
    }

    func judged(_ check: HostVerification.Check, _ verdict: String, _ evidence: String, _ fix: String?) -> HostVerification.Check {
        var out = check
        out.verdict = verdict
        out.evidence = evidence
        out.fix = fix
        return out
    }

    /// The fix of a refused target: the options of this process that decide it (`serve`'s or `verify`'s).
    func refusedFix(_ urlOption: String) -> String {
        "only public addresses are fetched (\(outbound.names.allowPrivateTargets) allows others); \(urlOption) sets the URL"
    }

    /// For each difference, the newest change record of what it is about (`Registry.aasaChanges`), oldest first.
    static func lacking(_ differences: [AASADifference], in changes: [ChangeRecord]) -> [ChangeRecord] {
        var found: [Int64: ChangeRecord] = [:]
        for d in differences {
            if let r = changes.last(where: { touches($0, d) }) { found[r.id] = r }
        }
        return found.values.sorted { $0.id < $1.id }
    }

    static func touches(_ record: ChangeRecord, _ d: AASADifference) -> Bool {
        let words = record.entityID.split(separator: " ").map(String.init)
        let bundle = d.app.map { String($0.drop { $0 != "." }.dropFirst()) }
        switch record.entity {
        case .domain: return d.section == "appclips.apps" && words.first == d.app
        case .applinks: return d.section == "applinks.details" && (d.app == nil || words.last == bundle)
        case .webcredentials: return d.section == "webcredentials.apps" && words.last == bundle
        case .applinksSettings: return d.app == nil && d.section != "applinks.details"
        case .applinksGeneration: return d.section == "applinks.details"
        default: return false
        }
    }
}
