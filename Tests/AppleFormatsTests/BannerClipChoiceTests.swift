import ClipCore
import Testing
@testable import AppleFormats

struct BannerClipChoiceTests {
    let a = try! AppID("ABCDE12345.com.shop.app.Clip"), b = try! AppID("FGHIJ67890.com.other.app.Clip")
    func experience(_ clip: AppID) -> AdvancedExperience {
        AdvancedExperience(
            id: 7, url: try! NormalizedURL("https://shop.example/x"), clip: clip,
            localizations: [.EN: CardText(title: "T", subtitle: "S")], status: .active)
    }

    @Test func theClipAskedForThenTheResolvedOneThenTheOnlyOne() throws {
        #expect(try SmartBanner.chooseClip(host: "shop.example", associated: [a, b], requested: b, resolved: experience(a)) == (b, nil))
        #expect(try SmartBanner.chooseClip(host: "shop.example", associated: [a, b], requested: nil, resolved: experience(a)) == (a, 7))
        #expect(try SmartBanner.chooseClip(host: "shop.example", associated: [a], requested: nil, resolved: nil) == (a, nil))
        // A resolved experience whose clip is not associated does not decide (its banner would not show).
        #expect(try SmartBanner.chooseClip(host: "shop.example", associated: [b], requested: nil, resolved: experience(a)) == (b, nil))
    }

    @Test func aClipNotAssociatedWithTheHostIsNeverNamed() {
        #expect(throws: SmartBanner.ClipChoiceProblem.notAssociated(a, host: "shop.example")) {
            try SmartBanner.chooseClip(host: "shop.example", associated: [b], requested: a, resolved: experience(a))
        }
        #expect(throws: SmartBanner.ClipChoiceProblem.noClip(host: "shop.example")) {
            try SmartBanner.chooseClip(host: "shop.example", associated: [], requested: nil, resolved: experience(a))
        }
        #expect(throws: SmartBanner.ClipChoiceProblem.ambiguous(host: "shop.example", clips: [a, b])) {
            try SmartBanner.chooseClip(host: "shop.example", associated: [a, b], requested: nil, resolved: nil)
        }
    }
}
