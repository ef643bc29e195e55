import AppStoreConnect
@testable import ClipApp
import ClipCore
import ClipStore
import ClipSync
import ClipSyncEngine
import ClipWire
import Foundation
import Locking
import StrictJSON
import TestSupport
import Testing

/// `verify`'s App Store Connect comparison and Apple's own verdict (issue 27): every error code Apple's specification
/// lists is explained, the parts are assembled from a stub reading, and without a key they say "not checked" while the
/// site and CDN checks are answered.
struct AppStoreConnectVerificationTests {
    /// The `errorCode` enum of `AppClipDomainStatus`, read from the specification the fake serves: a code Apple adds
    /// there fails the test until it is explained.
    static func specErrorCodes() throws -> [String] {
        let path = FakeAppStoreConnectProcess.repository.appendingPathComponent("scripts/fake-asc/app-store-connect-appclips.openapi.json")
        let spec = try JSONParser.parse(Array(try Data(contentsOf: path)))
        let codes = spec["components"]?["schemas"]?["AppClipDomainStatus"]?["properties"]?["attributes"]?["properties"]?["domains"]?[
            "items"]?["properties"]?["errorCode"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        return try #require(codes)
    }

    @Test func everyErrorCodeOfTheSpecificationIsExplained() throws {
        let codes = try Self.specErrorCodes()
        #expect(codes.count == 18)
        for code in codes {
            let explained = AppleDomainErrorCode.explain(code)
            #expect(AppleDomainErrorCode.isKnown(code), "\(code) has no explanation")
            #expect(!explained.meaning.isEmpty && !explained.likelyCause.isEmpty && !explained.fix.isEmpty, "\(code)")
            #expect(!explained.meaning.contains("unknown"), "\(code)")
        }
        // No code is explained that the specification does not list.
        #expect(Set(AppleDomainErrorCode.known.keys) == Set(codes))
        let unknown = AppleDomainErrorCode.explain("SOMETHING_NEW")
        #expect(!AppleDomainErrorCode.isKnown("SOMETHING_NEW") && unknown.meaning.hasPrefix("unknown: SOMETHING_NEW"))
    }

    static let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")

    static func step(_ url: String, _ action: SyncPlan.Action, changes: [String] = []) -> SyncPlan.Step {
        SyncPlan.Step(
            experienceID: 1, url: url, ascExperienceID: nil, ascState: nil, action: action,
            changes: changes.map { SyncPlan.FieldChange(field: $0, before: "a", after: "b") }, refusals: [], drifted: false, notes: [])
    }

    static func check(_ place: String, _ verdict: String, _ evidence: String = "HTTP 200") -> HostVerification.Check {
        HostVerification.Check(place: place, verdict: verdict, url: "https://x", evidence: evidence)
    }

    static func status(_ host: String, valid: Bool, code: String? = nil) -> ASCDomainStatus {
        ASCDomainStatus(
            lastUpdatedDate: "2026-11-27T10:00:00Z",
            domains: [.init(domain: host, isValid: valid, lastUpdatedDate: "2026-11-27T10:00:00Z", errorCode: code)])
    }

    static func reading(steps: [SyncPlan.Step], cache: ASCDomainStatus?, debug: ASCDomainStatus?) -> AppStoreConnectVerification.Reading {
        .read(
            plans: [SyncPlan(clip: clip, steps: steps)], clipHosts: [clip.rawValue: ["bikes.example"]],
            statuses: [
                SyncEngine.DomainStatuses(
                    clip: clip, build: ASCBuild(id: "build-2", version: "2", appClipBundleID: "bb-clip-2"), cache: cache, debug: debug)
            ])
    }

    @Test func pendingStepsOnTheHostAndApplesCodeBesideTheSite() throws {
        let steps = [
            Self.step("https://bikes.example/new", .create),
            Self.step("https://bikes.example/store", .update, changes: ["localizations.EN.title"]),
            Self.step("https://bikes.example/rent", .nothing), Self.step("https://other.example/x", .create),
        ]
        let checks = [
            Self.check("site", "blocked-bot", "HTTP 403 to AASA-Bot/1.0.0, HTTP 200 to a browser"), Self.check("apple-cdn", "not-cached"),
        ]
        let (asc, apple) = AppStoreConnectVerification.assemble(
            host: "bikes.example", checks: checks,
            Self.reading(
                steps: steps, cache: Self.status("bikes.example", valid: false, code: "BAD_HTTP_RESPONSE"),
                debug: Self.status("bikes.example", valid: true)))
        #expect(asc.verdict == "pending")
        #expect(asc.evidence == "2 changes pending: create https://bikes.example/new; update https://bikes.example/store")
        #expect(asc.fix == "run clipctl asc apply")
        #expect(asc.pending.map(\.summary) == ["not in App Store Connect yet", "localizations.EN.title differ"])
        #expect(apple.verdict == "invalid")
        let readings = apple.builds[0].readings
        #expect(readings.map(\.source) == ["cache", "debug"] && readings.map(\.state) == ["invalid", "valid"])
        #expect(readings[0].errorCode == "BAD_HTTP_RESPONSE" && readings[0].knownCode == true)
        #expect(readings[0].agreement?.hasPrefix("agrees: the site answered blocked-bot (HTTP 403 to AASA-Bot/1.0.0") == true)
        #expect(readings[0].fix?.contains("https://bikes.example/.well-known/apple-app-site-association") == true)
        #expect(readings[1].agreement?.hasPrefix("Apple validated it, but here site answers blocked-bot") == true)
        var host = HostVerification(host: "bikes.example", checks: [Self.check("site", "ok"), Self.check("apple-cdn", "ok")])
        (host.appStoreConnect, host.appleVerdict) = (asc, apple)
        #expect(!host.ok, "pending changes and an invalid status make the host not ok")
        // The JSON answer reads back the same (what --server prints).
        #expect(try HostVerification(json: host.json).json == host.json)
    }

    @Test func inStepValidNoStatusAndUnknownCodes() {
        let site = [Self.check("site", "ok"), Self.check("apple-cdn", "ok")]
        let (asc, apple) = AppStoreConnectVerification.assemble(
            host: "bikes.example", checks: site,
            Self.reading(
                steps: [Self.step("https://bikes.example/rent", .nothing)], cache: Self.status("bikes.example", valid: true),
                debug: Self.status("bikes.example", valid: true)))
        #expect(asc.verdict == "in-step" && asc.fix == nil && apple.verdict == "valid")
        #expect(apple.builds[0].readings[0].agreement == "agrees: the site and Apple's CDN serve the registry's file")

        let absent = AppStoreConnectVerification.assemble(
            host: "bikes.example", checks: site, Self.reading(steps: [], cache: nil, debug: Self.status("other.example", valid: true))
        ).1
        #expect(absent.verdict == "no-status" && absent.builds[0].readings.map(\.state) == ["no-status", "not-listed"])

        let odd = AppStoreConnectVerification.assemble(
            host: "bikes.example", checks: site,
            Self.reading(steps: [], cache: Self.status("bikes.example", valid: false, code: "NEW_CODE"), debug: nil)
        ).1
        #expect(odd.builds[0].readings[0].knownCode == false && odd.builds[0].readings[0].errorCode == "NEW_CODE")
        #expect(odd.builds[0].readings[0].meaning?.hasPrefix("unknown: NEW_CODE") == true)
        let disagree = AppStoreConnectVerification.assemble(
            host: "bikes.example", checks: site,
            Self.reading(steps: [], cache: Self.status("bikes.example", valid: false, code: "TLS_ERROR"), debug: nil)
        ).1
        #expect(disagree.builds[0].readings[0].agreement?.hasPrefix("disagrees: the site answers ok now") == true)

        let unlinked = AppStoreConnectVerification.assemble(
            host: "cafe.example", checks: site, Self.reading(steps: [], cache: nil, debug: nil))
        #expect(unlinked.0.verdict == "not-linked" && unlinked.1.verdict == "not-checked")
    }

    // MARK: - Through the layer

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

    struct NoKey: Error, CustomStringConvertible { var description: String { "ASC_KEY_ID is not set" } }

    @Test func withoutAKeyBothPartsSayNotCheckedAndTheSiteIsAnswered() throws {
        let fetcher = DomainVerificationTests.Fetcher()
        let file = try registry.aasa(host: "bikes.example")
        fetcher.answers["https://bikes.example/.well-known/apple-app-site-association"] = DomainVerificationTests.json(file)
        fetcher.answers["https://cdn.test/a/v1/bikes.example"] = DomainVerificationTests.json(file)
        for access in [nil, AppStoreConnectAccess(client: { throw NoKey() })] {
            let session = Session(registry: registry, caller: .local, outbound: fetcher.outbound, appStoreConnect: access)
            let out = try Verification.Output(json: try Verification.binding.perform(Arguments([("host", "bikes.example")]), session).json)
            let host = out.hosts[0]
            #expect(host.checks.map(\.verdict) == ["ok", "ok"] && host.ok, "not checked does not fail verify")
            #expect(host.appStoreConnect?.verdict == "not-checked" && host.appleVerdict?.verdict == "not-checked")
            let evidence = host.appStoreConnect?.evidence ?? ""
            #expect(
                evidence.contains(
                    access == nil
                        ? "no App Store Connect key is configured" : "the App Store Connect key is not usable: ASC_KEY_ID is not set"),
                "\(evidence)")
            #expect(host.appStoreConnect?.fix?.contains(access == nil ? "ASC_KEY_ID" : "correct the key") == true)
        }
    }

    /// docs/rules.md#tenancy: another team's host answers what a missing one answers, and App Store Connect is not asked.
    @Test func aTeamTokenGetsTheComparisonOfItsOwnHostsOnly() throws {
        let fetcher = DomainVerificationTests.Fetcher()
        let asked = Locked(0)
        let access = AppStoreConnectAccess(client: {
            asked.withLock { $0 += 1 }
            throw NoKey()
        })
        let team = Caller.team(try TeamID("ABCDE12345"), tokenID: 1)
        func answer(_ host: String) -> String {
            do {
                let session = Session(registry: registry, caller: team, outbound: fetcher.outbound, appStoreConnect: access)
                return
                    "\(try DomainVerification.binding.perform(Arguments([("host", host)]), session).json["appStoreConnect"]?["verdict"] ?? .null)"
            } catch { return "\(error)".replacingOccurrences(of: host, with: "HOST") }
        }
        #expect(answer("cafe.example") == answer("nowhere.example"))
        #expect(asked.withLock { $0 } == 0, "another team's host never reaches App Store Connect")
        #expect(answer("bikes.example").contains("not-checked"))
        #expect(asked.withLock { $0 } == 1)
    }
}
