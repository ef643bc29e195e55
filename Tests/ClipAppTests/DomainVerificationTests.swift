import ClipApp
import ClipCore
import ClipStore
import Foundation
import OutboundHTTP
import StrictJSON
import Testing

/// `Verification` and `DomainVerification` through the layer, with a fetcher that answers from a table
/// (no network): tenancy, what is fetched, and the verdicts' order of precedence.
struct DomainVerificationTests {
    let registry: Registry

    init() throws {
        registry = try temporaryRegistry()
        for (url, clip) in [
            ("https://bikes.example/rent", "ABCDE12345.com.example.bikes.Clip"),
            ("https://cafe.example/", "FGHIJ67890.com.example.cafe.Clip"),
        ] {
            _ = try registry.register(try JSONParser.parse(#"{"url":"\#(url)","clip":"\#(clip)","title":"T","subtitle":"S"}"#))
        }
    }

    /// Answers each URL from `answers`; records what was asked, and how many fetches ran at once at most.
    /// A URL in `hanging` is never answered until `release`.
    final class Fetcher: @unchecked Sendable {
        private let lock = NSLock()
        private var _answers: [String: Outbound.Response] = [:]
        private var _asked: [(url: String, agent: String)] = []
        private var running = 0
        private(set) var mostAtOnce = 0
        var hanging: Set<String> = []
        var delay: TimeInterval = 0
        var deadline: Double = 20
        let hang = DispatchSemaphore(value: 0)
        var answers: [String: Outbound.Response] {
            get { lock.withLock { _answers } }
            set { lock.withLock { _answers = newValue } }
        }
        var asked: [(url: String, agent: String)] {
            get { lock.withLock { _asked } }
            set { lock.withLock { _asked = newValue } }
        }
        func release() { for _ in 0..<100 { hang.signal() } }
        var outbound: Outbound {
            Outbound(cdnBaseURL: "https://cdn.test/a/v1", hostDeadlineSeconds: deadline) { url, agent, _ in
                let hangs = self.lock.withLock {
                    self._asked.append((url, agent))
                    self.running += 1
                    self.mostAtOnce = max(self.mostAtOnce, self.running)
                    return self.hanging.contains(url)
                }
                if hangs { self.hang.wait() }
                if self.delay > 0 { Thread.sleep(forTimeInterval: self.delay) }
                return self.lock.withLock {
                    self.running -= 1
                    return self._answers[url].map { .success($0) } ?? .failure(.unreachable("connection refused"))
                }
            }
        }
    }

    func run(_ hosts: [String], as caller: Caller = .local, fetcher: Fetcher) throws -> Verification.Output {
        let session = Session(registry: registry, caller: caller, outbound: fetcher.outbound)
        return try Verification.Output(json: try Verification.binding.perform(Arguments(hosts.map { ("host", $0) }), session).json)
    }

    static func json(_ bytes: [UInt8], type: String = "application/json") -> Outbound.Response {
        Outbound.Response(status: 200, headers: ["content-type": type], body: bytes)
    }

    @Test func aTeamTokenSeesItsOwnHostsOnly() throws {
        let fetcher = Fetcher()
        let team = Caller.team(try TeamID("ABCDE12345"), tokenID: 1)
        #expect(try run([], as: team, fetcher: fetcher).hosts.map(\.host) == ["bikes.example"])
        #expect(try run([], as: .admin(tokenID: 2), fetcher: fetcher).hosts.map(\.host) == ["bikes.example", "cafe.example"])
        fetcher.asked = []
        #expect(throws: RegistryError.self) { try run(["cafe.example"], as: team, fetcher: fetcher) }
        #expect(fetcher.asked.isEmpty, "another team's host is never fetched")
        let route = DomainVerification.binding
        #expect(throws: RegistryError.self) {
            try route.perform(Arguments([("host", "cafe.example")]), Session(registry: registry, caller: team, outbound: fetcher.outbound))
        }
    }

    @Test func theSiteIsFetchedAsApplesBotAndTheSameFileIsOk() throws {
        let fetcher = Fetcher()
        let file = try registry.aasa(host: "bikes.example")
        fetcher.answers["https://bikes.example/.well-known/apple-app-site-association"] = Self.json(file)
        fetcher.answers["https://cdn.test/a/v1/bikes.example"] = Self.json(file)
        let out = try run(["BIKES.example"], fetcher: fetcher)
        #expect(out.ok && out.hosts[0].checks.map(\.verdict) == ["ok", "ok"])
        #expect(
            fetcher.asked.contains {
                $0.url.hasSuffix("bikes.example/.well-known/apple-app-site-association") && $0.agent == "AASA-Bot/1.0.0"
            })
        // The same request twice: the same answer.
        #expect(try run(["bikes.example"], fetcher: fetcher).hosts[0].json == out.hosts[0].json)
    }

    /// QA: 40 copies of one host took 102 s and an 8 KiB request line sent about 1,400 requests to the site.
    @Test func hostsAreVerifiedOnceHoweverSpeltAndAtMost50ARequest() throws {
        let fetcher = Fetcher()
        let out = try run(["bikes.example", "BIKES.example", "bikes.example.", "Bikes.Example"], as: .admin(tokenID: 1), fetcher: fetcher)
        #expect(out.hosts.map(\.host) == ["bikes.example"])
        #expect(fetcher.asked.count == 3, "the site as the bot and as a browser, and the CDN: \(fetcher.asked.map(\.url))")
        fetcher.asked = []
        #expect(throws: RegistryError.invalid([FieldError(field: "host", rule: "max", message: "names 51 hosts; at most 50 a request")])) {
            try run(Array(repeating: "bikes.example", count: 51), as: .admin(tokenID: 1), fetcher: fetcher)
        }
        #expect(fetcher.asked.isEmpty)
    }

    /// Two verifications of one team run at once at most; a third is refused at once with Retry-After, and another
    /// team's goes on (docs/operations.md#outbound-requests).
    @Test func aTeamsThirdVerificationAtOnceIsRefused() throws {
        let fetcher = Fetcher()
        fetcher.hanging = ["https://bikes.example/.well-known/apple-app-site-association"]
        fetcher.deadline = 3
        let team = Caller.team(try TeamID("ABCDE12345"), tokenID: 1)
        let done = DispatchGroup()
        let path = registry.path
        for _ in 0..<2 {
            done.enter()
            // A registry of its own per thread, as each server thread has.
            Thread {
                if let own = try? Registry(path: path, actor: "test") {
                    let session = Session(registry: own, caller: team, outbound: fetcher.outbound)
                    _ = try? Verification.binding.perform(Arguments([("host", "bikes.example")]), session)
                }
                done.leave()
            }.start()
        }
        while fetcher.asked.count < 6 { usleep(10_000) }
        do {
            _ = try run(["bikes.example"], as: team, fetcher: fetcher)
            Issue.record("a third verification of the team ran")
        } catch let refused as OperationError {
            guard case .tooManyAtOnce(_, let seconds) = refused else {
                Issue.record("\(refused)")
                return
            }
            #expect(seconds == VerificationAdmission.retryAfterSeconds, "\(refused.detail)")
        }
        let other = try run(["cafe.example"], as: .team(try TeamID("FGHIJ67890"), tokenID: 2), fetcher: fetcher)
        #expect(other.hosts.map(\.host) == ["cafe.example"])
        fetcher.release()
        done.wait()
        // The slots are free again.
        _ = try run(["bikes.example"], as: team, fetcher: fetcher)
    }

    @Test func aServerWithoutOutboundRequestsRefuses() throws {
        let session = Session(registry: registry, caller: .local)
        #expect(throws: RegistryError.self) { try Verification.binding.perform(Arguments(), session).json }
    }

    @Test func anUnknownOrInvisibleHostIsNotFetched() throws {
        let fetcher = Fetcher()
        #expect(throws: RegistryError.self) { try run(["nowhere.example"], fetcher: fetcher) }
        #expect(throws: RegistryError.self) { try run(["bikes.example/../x"], fetcher: fetcher) }
        #expect(fetcher.asked.isEmpty)
    }

    /// QA: the three fetches ran one after another (up to 45 s, past clipctl's 30 s). Now they run at once and
    /// a host that never answers ends at the host's deadline, as `unreachable`, beside a host that does.
    @Test func aHostThatNeverAnswersEndsAtTheDeadline() throws {
        let fetcher = Fetcher()
        fetcher.deadline = 0.5
        let file = try registry.aasa(host: "bikes.example")
        fetcher.answers["https://bikes.example/.well-known/apple-app-site-association"] = Self.json(file)
        fetcher.answers["https://cdn.test/a/v1/bikes.example"] = Self.json(file)
        fetcher.hanging = ["https://cafe.example/.well-known/apple-app-site-association", "https://cdn.test/a/v1/cafe.example"]
        defer { fetcher.release() }
        let started = Date()
        let out = try run(["cafe.example", "bikes.example"], fetcher: fetcher)
        let took = Date().timeIntervalSince(started)
        #expect(took < 1.5, "one deadline for the host's three fetches, not three after another: \(took) s")
        #expect(out.hosts.map(\.host) == ["cafe.example", "bikes.example"])
        #expect(out.hosts[0].checks.map(\.verdict) == ["unreachable", "unreachable"])
        #expect(out.hosts[0].checks[0].evidence.contains("no answer within 0.5 s"), "\(out.hosts[0].checks[0].evidence)")
        #expect(out.hosts[1].ok)
    }

    /// Many hosts: every one answered, never more than `hostsAtOnce` hosts' fetches at once.
    @Test func manyHostsAreVerifiedAFewAtATime() throws {
        for i in 0..<30 {
            _ = try registry.register(
                try JSONParser.parse(
                    #"{"url":"https://h\#(i).example/","clip":"ABCDE12345.com.example.h\#(i).Clip","title":"T","subtitle":"S"}"#))
        }
        let fetcher = Fetcher()
        fetcher.delay = 0.01
        let out = try run([], fetcher: fetcher)
        #expect(out.hosts.count == 32)
        #expect(fetcher.asked.count == 32 * 3)
        #expect(fetcher.mostAtOnce <= Outbound.hostsAtOnce * 3 && fetcher.mostAtOnce > 1, "\(fetcher.mostAtOnce)")
    }

    /// docs/rules.md#tenancy: another team's host answers in the words of a host with no AASA, and is not fetched.
    @Test func anotherTeamsHostIsNotFoundInTheWordsOfAMissingOne() throws {
        let fetcher = Fetcher()
        let team = Caller.team(try TeamID("ABCDE12345"), tokenID: 1)
        func message(_ host: String, _ binding: Binding) -> String {
            do {
                _ = try binding.perform(Arguments([("host", host)]), Session(registry: registry, caller: team, outbound: fetcher.outbound))
                return "found"
            } catch { return "\(error)".replacingOccurrences(of: host, with: "HOST") }
        }
        for binding in [Verification.binding, DomainVerification.binding] {
            let other = message("cafe.example", binding)
            #expect(other == message("nowhere.example", binding))
            #expect(other.contains("no clip, applinks rule or webcredentials"), "\(other)")
        }
        #expect(fetcher.asked.isEmpty)
    }

    /// A setting that no host makes fetchable is refused, naming the option of the process (`serve`'s here); the
    /// refusal of an address names it too (`OutboundHTTPTests`), through the fetch `verify` is given.
    @Test func aRefusalNamesThisProcesssOption() throws {
        let server = Outbound.checked(
            timeoutSeconds: 1, allowPrivateTargets: false, names: .serve, cdnBaseURL: nil, siteURLTemplate: nil)
        guard case .failure(.refused(let there)) = server.fetch("https://127.0.0.1/x", "t", { false }) else {
            Issue.record("a loopback address was not refused")
            return
        }
        #expect(there.contains("serve --allow-private-targets") && !there.contains("webhook"), "\(there)")
        #expect(
            Outbound.settingsProblem(cdnBaseURL: "garbage", siteURLTemplate: nil, names: .serve)?.hasPrefix("serve --aasa-cdn-url") == true)
        #expect(Outbound.settingsProblem(cdnBaseURL: nil, siteURLTemplate: "https://x/", names: .serve)?.contains("{host}") == true)
        #expect(Outbound.settingsProblem(cdnBaseURL: "https://c/a?x=1", siteURLTemplate: nil, names: .serve) != nil)
        #expect(Outbound.settingsProblem(cdnBaseURL: "https://c\u{200B}.example/a", siteURLTemplate: nil, names: .serve) != nil)
        #expect(
            Outbound.settingsProblem(cdnBaseURL: Outbound.appleCDN, siteURLTemplate: Outbound.wellKnown, names: .serve) == nil)
    }
}
