import ClipCore
import Foundation
import StrictJSON
import Testing
@testable import AppleFormats

/// Scores the evaluator on the vendored conformance corpus, Fixtures/aasa-conformance/cases.json
/// (a copy of the shared conformance corpus, conformance/aasa/cases.json; see PROVENANCE.md there; checked against Apple's
/// swcutil), per feature, with the cases that expect no_match counted separately (a matcher
/// that never matches passes all of those) and the one `decided` case apart from the oracle ones.
struct AASAConformanceTests {
    static let casesURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aasa-conformance/cases.json")

    @Test func conformanceCorpus() throws {
        let corpus = try JSONParser.parse(
            [UInt8](try Data(contentsOf: Self.casesURL)),
            limits: {
                var l = JSONParser.Limits(); l.maxDepth = 128; return l
            }())
        let cases = try #require(corpus["matching"]?.arrayValue)
        var byFeature: [String: (pass: Int, total: Int, noMatchPass: Int, noMatchTotal: Int)] = [:]
        var failures: [String] = []
        var oracle = (pass: 0, total: 0), decided = (pass: 0, total: 0)
        for c in cases {
            let expect = c["expect"]!.stringValue!
            let result = AASAEvaluator.evaluate(
                c["aasa"]!, appID: c["appId"]!.stringValue!, url: c["url"]!.stringValue!, domain: c["domain"]?.stringValue ?? "")
            let pass = result.decision.rawValue == expect
            let feature = c["feature"]!.stringValue!
            var f = byFeature[feature] ?? (0, 0, 0, 0)
            f.total += 1
            if pass { f.pass += 1 }
            if expect == "no_match" { f.noMatchTotal += 1; if pass { f.noMatchPass += 1 } }
            byFeature[feature] = f
            if c["status"]?.stringValue == "oracle" {
                oracle.total += 1; if pass { oracle.pass += 1 }
            } else {
                decided.total += 1; if pass { decided.pass += 1 }
            }
            if !pass { failures.append("\(c["name"]!.stringValue!): expected \(expect), got \(result.decision.rawValue) (\(result.rule))") }
        }
        var report = "AASA conformance: oracle \(oracle.pass)/\(oracle.total), decided \(decided.pass)/\(decided.total)\n"
        for (feature, f) in byFeature.sorted(by: { $0.key < $1.key }) {
            report +=
                "  \(feature): \(f.pass)/\(f.total) (match/exclude \(f.pass - f.noMatchPass)/\(f.total - f.noMatchTotal), no_match \(f.noMatchPass)/\(f.noMatchTotal))\n"
        }
        for failure in failures { report += "  FAIL \(failure)\n" }
        print(report)
        // Every oracle case passes; this fails on any regression.
        #expect(oracle.pass >= Self.oracleFloor, "\(report)")
    }

    static let oracleFloor = 139
}

/// The corpus's 13 `validation` cases: each produces the problem it describes; the clean
/// document produces no error or warning.
struct AASALintConformanceTests {
    @Test func validationCases() throws {
        let corpus = try JSONParser.parse(
            [UInt8](try Data(contentsOf: AASAConformanceTests.casesURL)),
            limits: {
                var l = JSONParser.Limits(); l.maxDepth = 128; return l
            }())
        let cases = try #require(corpus["validation"]?.arrayValue)
        #expect(cases.count == 13)
        for c in cases {
            let expected = Set(c["expectCodes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            let found = AASALinter.lint(JSONWriter.bytes(c["aasa"]!))
            let codes = Set(found.map(\.code))
            #expect(expected.isSubset(of: codes), "\(c["name"]!): expected \(expected.sorted()), got \(found)")
            if expected.isEmpty { #expect(found.filter { $0.severity != .info }.isEmpty, "\(c["name"]!): \(found)") }
        }
    }

    @Test func ourGeneratedFilesLintClean() throws {
        let content = AASAContent(
            host: "shop.example", clips: [try AppID("ABCDE12345.com.example.app.Clip")],
            details: [
                ApplinksDetails(
                    app: try AppID("ABCDE12345.com.example.app"), components: [["/": "/help/*", "exclude": true], ["/": "/buy/*"]])
            ],
            webcredentials: [try AppID("ABCDE12345.com.example.app")])
        #expect(AASALinter.lint(try AASAGenerator.bytes(content)).filter { $0.severity != .info } == [])
        #expect(AASALinter.lint(Array("nope".utf8)).map(\.code) == ["AASA001"])
        #expect(AASALinter.lint(Array("[]".utf8)).map(\.code) == ["AASA002"])
    }
}

/// The evaluator's early refusal on literal bytes answers as the full pattern match does.
struct AASALiteralPrefixTests {
    @Test(arguments: [
        ("/store/1", "/store/12", false), ("/store/1", "/stores", true), ("/store/*", "/shop/1", true), ("/a", "", true),
        ("*/x", "/y", false), ("/K", "/\u{212A}", false), ("/e", "/e\u{301}", false), ("/é", "/e", false), ("$(lang)/x", "/y", false),
    ])
    func refusesOnlyWhatCannotMatch(_ pattern: String, _ text: String, _ refused: Bool) {
        #expect(AASAEvaluator.lacksLiteralPrefix(text, of: pattern) == refused)
    }

    /// Characters the bytes cannot decide (a Kelvin sign is a K; a combining accent joins its letter) still match as before.
    @Test func canonicalEquivalentsStillMatch() {
        let settings = AASAEvaluator.Settings()
        #expect(AASAEvaluator.patternMatches("/K*", "/\u{212A}elvin", settings, [:]))
        #expect(!AASAEvaluator.patternMatches("/e", "/e\u{301}", settings, [:]))
        #expect(AASAEvaluator.patternMatches("/store/*", "/store/12", settings, [:]))
        #expect(!AASAEvaluator.patternMatches("/store/1*", "/shop/12", settings, [:]))
    }

    /// QA, checked against Apple's swcutil: an entry with `appIDs` (even empty) gives nothing to its legacy `appID`.
    @Test func appIDsWinsOverTheLegacyAppID() throws {
        for ids in [#"["T.other"]"#, "[]"] {
            let aasa = try JSONParser.parse(#"{"applinks":{"details":[{"appIDs":"# + ids + #","appID":"T.legacy","paths":["*"]}]}}"#)
            #expect(AASAEvaluator.evaluate(aasa, appID: "T.legacy", url: "https://a.example/x").decision == .noMatch, "\(ids)")
        }
        let legacy = try JSONParser.parse(#"{"applinks":{"details":[{"appID":"T.legacy","paths":["*"]}]}}"#)
        #expect(AASAEvaluator.evaluate(legacy, appID: "T.legacy", url: "https://a.example/x").decision == .match)
    }
}
