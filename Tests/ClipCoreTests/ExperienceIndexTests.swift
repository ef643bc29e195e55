import AppleFormats
import Foundation
import StrictJSON
import TestSupport
import Testing
@testable import ClipCore

/// The in-memory index, and the applinks generated from experiences, must decide exactly as the
/// Resolver over every candidate.
struct ExperienceIndexTests {
    typealias Generator = SplitMix64

    static func registered(_ g: inout Generator) -> String {
        let host = ["a.example", "b.example", "c.example"][g.next(3)]
        var path = ""
        for _ in 0..<g.next(4) { path += "/" + ["store", "stores", "1", "12", "table", "x"][g.next(6)] }
        let query = [[], ["id=1"], ["id=2"], ["id=1", "zone=b"], ["flag"]][g.next(5)]
        return "https://\(host)\(path)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    @Test func answersLikeTheResolverOnGeneratedRegistries() throws {
        var g = Generator(state: 42)
        for round in 0..<40 {
            var index = ExperienceIndex()
            var all: [Int64: AdvancedExperience] = [:]
            var seen: Set<String> = []
            for id in 1...Int64(30) {
                let url = try NormalizedURL(Self.registered(&g))
                guard seen.insert(url.canonical).inserted else { continue }
                let e = ResolverTests.experience(id, url.canonical, status: g.next(5) == 0 ? .deactivated : .active)
                all[id] = e
                index.upsert(e)
            }
            // Updates and removals keep the index consistent.
            for id in all.keys.sorted() where g.next(6) == 0 {
                if g.next(2) == 0 {
                    index.remove(id: id)
                    all[id] = nil
                } else {
                    var e = all[id]!
                    e.status = e.status == .active ? .deactivated : .active
                    all[id] = e
                    index.upsert(e)
                }
            }
            #expect(index.count == all.count)
            for _ in 0..<60 {
                var invocation = Self.registered(&g)
                if g.next(2) == 0 { invocation += (invocation.contains("?") ? "&" : "?") + "utm=qr" }
                if g.next(3) == 0 { invocation = invocation.replacingOccurrences(of: "https://", with: "HTTPS://") }
                let parsed = try NormalizedURL(invocation)
                let expected = Resolver.resolve(
                    invocation, url: parsed, candidates: all.values.filter { $0.url.host == parsed.host },
                    fallbacks: [], preferences: [], at: .earliest)
                let actual = index.resolve(invocation, preferences: [], at: .earliest)
                #expect(actual.json(explain: false) == expected.json(explain: false), "round \(round): \(invocation)")
            }
        }
    }

    /// The applinks generated from a host's active experiences list them in the resolver's order
    /// and match what they match: under the AASA's first-match rule, the component that decides an
    /// invocation URL is the one made from the experience the resolver chooses, and no component
    /// decides when the resolver finds no match. (Over the URLs a component can express: a
    /// required "?flag" cannot be, `ExperienceApplinks.isExpressible`.)
    @Test func generatedApplinksDecideLikeTheResolver() throws {
        var g = Generator(state: 1234)
        let app = try AppID("ABCDE12345.com.example.MyApp")
        for round in 0..<40 {
            var active: [AdvancedExperience] = []
            var seen: Set<String> = []
            let host = ["a.example", "b.example", "c.example"][g.next(3)]
            for id in 1...Int64(20) {
                let url = try NormalizedURL(Self.registered(&g))
                guard url.host == host, seen.insert(url.canonical).inserted else { continue }
                active.append(ResolverTests.experience(id, url.canonical))
            }
            let components = ExperienceApplinks.components(active.map(\.url))
            active.removeAll { !ExperienceApplinks.isExpressible($0.url) }
            let ordered = Set(active.map(\.url)).sorted { NormalizedURL.isMoreSpecific($0, than: $1) }
            #expect(components.count == ordered.count)
            let document: JSONValue = ["applinks": ["details": [["appIDs": [.string(app.rawValue)], "components": .array(components)]]]]
            for _ in 0..<60 {
                var invocation = Self.registered(&g).replacing(#/https://[a-c]\.example/#, with: "https://\(host)")
                if g.next(2) == 0 { invocation += (invocation.contains("?") ? "&" : "?") + "utm=qr" }
                let parsed = try NormalizedURL(invocation)
                let resolution = Resolver.resolve(
                    invocation, url: parsed, candidates: active, fallbacks: [], preferences: [], at: .earliest)
                let decided = AASAEvaluator.evaluate(document, appID: app.rawValue, url: invocation, domain: host)
                if case .advanced(let winner, _) = resolution.match {
                    #expect(decided.decision == .match, "round \(round): \(invocation) → \(winner.url)")
                    #expect(
                        decided.rule == "details[0].components[\(ordered.firstIndex(of: winner.url)!)]",
                        "round \(round): \(invocation) → \(winner.url), applinks: \(decided.rule)")
                } else {
                    #expect(decided.decision == .noMatch, "round \(round): \(invocation) → \(decided.rule)")
                }
            }
        }
    }

    @Test func fallbacksAndUnresolvableURLs() throws {
        var index = ExperienceIndex()
        let clip = ResolverTests.clip
        index.setFallbacks([
            "a.example": [
                DefaultFallback(
                    experience: DefaultExperience(clip: clip, action: .view, localizations: ["en-US": .init(subtitle: "Hi")]),
                    appName: "App")
            ]
        ])
        let answer = index.resolve("https://a.example/anything", preferences: [], at: .earliest).json(explain: false)
        #expect(answer["matched"] == "default")
        #expect(index.resolve("http://a.example/", preferences: [], at: .earliest).json(explain: false)["matched"] == .null)
    }
}

/// The fast paths of normalization give what the full rules give.
struct NormalizationFastPathTests {
    @Test func plainPathsAndHostsAgreeWithTheFullRules() throws {
        var g = ExperienceIndexTests.Generator(state: 7)
        let pathAlphabet: [String] = ["/", "a", "B", ".", "..", "-", "~", "%41", "%2f", "*", ":", "@", "\\", "é", " "]
        let hostAlphabet: [String] = ["a", "z", "0", "9", "-", ".", "xn--", "A", "é", "_"]
        for _ in 0..<5000 {
            let raw = (0..<g.next(10)).map { _ in pathAlphabet[g.next(pathAlphabet.count)] }.joined()
            let bytes = ArraySlice(Array(("/" + raw).utf8))
            if let fast = NormalizedURL.plainPath(bytes) {
                let full = NormalizedURL.removeDotSegments(try NormalizedURL.normalizePercent(bytes, allowed: NormalizedURL.isPathByte))
                var trimmed = full
                while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
                #expect(fast == trimmed, "\("/" + raw)")
            }
            let host = (0..<(1 + g.next(12))).map { _ in hostAlphabet[g.next(hostAlphabet.count)] }.joined()
            if DomainName.isNormalLDH(host) {
                #expect(DomainName.isNormalLDH(host) == ((try? DomainName.normalize(host + ".")) == host), "\(host)")
            }
        }
    }
}
