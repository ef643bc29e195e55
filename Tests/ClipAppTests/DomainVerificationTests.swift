import ClipApp
import ClipCore
import ClipStore
import Foundation
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

    /// Answers each URL from `answers`; records what was asked.
    final class Fetcher: @unchecked Sendable {
        var answers: [String: Outbound.Response] = [:]
        var asked: [(url: String, agent: String)] = []
        var outbound: Outbound {
            Outbound(cdnBaseURL: "https://cdn.test/a/v1") { url, agent in
                self.asked.append((url, agent))
                return self.answers[url].map { .success($0) } ?? .failure(.unreachable("connection refused"))
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
        #expect(fetcher.asked.first?.agent == "AASA-Bot/1.0.0")
        // The same request twice: the same answer.
        #expect(try run(["bikes.example"], fetcher: fetcher).hosts[0].json == out.hosts[0].json)
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
}
