import ClipCore
import StrictJSON
import Testing
@testable import AppleFormats

struct ExperienceApplinksTests {
    let app = try! AppID("ABCDE12345.com.shop.app")

    func urls(_ strings: [String]) throws -> [NormalizedURL] { try strings.map { try NormalizedURL($0) } }

    @Test func oneComponentPerURLMostSpecificFirst() throws {
        let components = ExperienceApplinks.components(
            try urls([
                "https://shop.example", "https://shop.example/store/12", "https://shop.example/store/12/table/3",
                "https://shop.example/rent?id=4", "https://shop.example/rent?zone=b&id=4", "https://shop.example/store/12",
            ]))
        // Resolver order (docs/rules.md#specificity): more path segments, then more query items.
        #expect(
            JSONWriter.string(.array(components))
                == #"[{"/":"/store/12/table/3/*"},{"/":"/store/12/*"},{"/":"/rent/*","?":{"id":"4","zone":"b"}},{"/":"/rent/*","?":{"id":"4"}},{"/":"*"}]"#
        )
    }

    @Test func everyExperienceURLAndItsExtensionsOpenTheApp() throws {
        let registered = try urls(["https://shop.example/store/12", "https://shop.example/rent?id=4", "https://shop.example/a$(b)/c"])
        let content = AASAContent(host: "shop.example", clips: [], generated: [.init(app: app, urls: registered)])
        let document = AASAGenerator.document(content)
        #expect(ExperienceApplinks.verify(document, host: "shop.example", [.init(app: app, urls: registered)]).isEmpty)
        func decide(_ url: String) -> AASAEvaluator.Decision { AASAEvaluator.evaluate(document, appID: app.rawValue, url: url).decision }
        // The registered URL is a prefix (docs/rules.md#path-coverage): longer paths and extra query items match.
        #expect(decide("https://shop.example/store/12/menu?utm_source=qr") == .match)
        #expect(decide("https://shop.example/rent?utm=x&id=4") == .match)
        #expect(decide("https://shop.example/a$(b)/c/d") == .match)
        // Segment-aware like the resolver; a different query value is not covered.
        #expect(decide("https://shop.example/store/123") == .noMatch)
        #expect(decide("https://shop.example/rent?id=5") == .noMatch)
    }

    @Test func generatedComponentsFollowTheAppsOwnRulesAndVerificationSaysWhatDecided() throws {
        let registered = try urls(["https://shop.example/store/12", "https://shop.example/help"])
        let content = AASAContent(
            host: "shop.example", clips: [],
            details: [ApplinksDetails(app: app, components: [["/": "/help/*", "exclude": true]])],
            generated: [.init(app: app, urls: registered)])
        let document = AASAGenerator.document(content)
        #expect(document["applinks"]?["details"]?.arrayValue?.count == 1)
        let misses = ExperienceApplinks.verify(document, host: "shop.example", [.init(app: app, urls: registered)])
        #expect(misses.map(\.url) == ["https://shop.example/help"])
        #expect(misses.first?.result == AASAEvaluator.Result(decision: .exclude, rule: "details[0].components[0]"))
    }

    /// A query dictionary reads a missing item as present and empty, so "?flag" cannot be required:
    /// its component would have opened the app on every page of the host. It gets none, and
    /// verification says the app does not open it. A name required with two values must be there.
    @Test func aRequiredItemWithoutAValueGetsNoComponentRatherThanTheWholeHost() throws {
        let registered = try urls(["https://shop.example?flag", "https://shop.example/menu?day=", "https://shop.example/p?a=1&a=2"])
        let content = AASAContent(host: "shop.example", clips: [], generated: [.init(app: app, urls: registered)])
        let document = AASAGenerator.document(content)
        func decide(_ url: String) -> AASAEvaluator.Decision { AASAEvaluator.evaluate(document, appID: app.rawValue, url: url).decision }
        #expect(decide("https://shop.example/about") == .noMatch)
        #expect(decide("https://shop.example/menu") == .noMatch)
        #expect(decide("https://shop.example/p") == .noMatch)
        #expect(decide("https://shop.example/p?a=1&a=2") == .match)
        #expect(
            ExperienceApplinks.verify(document, host: "shop.example", [.init(app: app, urls: registered)]).map(\.url)
                == ["https://shop.example/?flag", "https://shop.example/menu?day="])
    }

    @Test func aComponentTheAppAlreadyStoresIsNotRepeated() throws {
        let registered = try urls(["https://shop.example/store/12", "https://shop.example/rent?id=4"])
        // The app stores one generated component already, with its members in another order.
        let content = AASAContent(
            host: "shop.example", clips: [],
            details: [ApplinksDetails(app: app, components: [["?": ["id": "4"], "/": "/rent/*"], ["/": "/admin/*", "exclude": true]])],
            generated: [.init(app: app, urls: registered)])
        let components = AASAGenerator.document(content)["applinks"]?["details"]?.arrayValue?.first?["components"]?.arrayValue ?? []
        #expect(
            JSONWriter.string(.array(components))
                == #"[{"?":{"id":"4"},"/":"/rent/*"},{"/":"/admin/*","exclude":true},{"/":"/store/12/*"}]"#)
        #expect(
            ExperienceApplinks.verify(AASAGenerator.document(content), host: "shop.example", [.init(app: app, urls: registered)]).isEmpty)
    }

    @Test func escapesStayMatchableWhenTheCascadeDecodes() throws {
        let registered = try urls(["https://shop.example/caf%C3%A9"])
        let content = AASAContent(
            host: "shop.example", clips: [], settings: ApplinksHostSettings(defaults: ["percentEncoded": false]),
            generated: [.init(app: app, urls: registered)])
        let document = AASAGenerator.document(content)
        #expect(
            JSONWriter.string(document["applinks"]!["details"]!)
                == #"[{"appIDs":["ABCDE12345.com.shop.app"],"components":[{"/":"/caf%C3%A9/*","percentEncoded":true}]}]"#)
        #expect(ExperienceApplinks.verify(document, host: "shop.example", [.init(app: app, urls: registered)]).isEmpty)
    }
}
