import Testing
@testable import AppleFormats
@testable import ClipCore

struct SmartBannerTests {
    let clip = try! BundleID("com.example.MyApp.Clip")

    @Test func fullTag() throws {
        let banner = try SmartBanner.make(
            appStoreID: try AppStoreID("1234567890"), clipBundleID: clip, appArgument: "https://shop.example/item?a=1&b=2")
        #expect(
            banner.metaTag
                == #"<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://shop.example/item?a=1&amp;b=2, app-clip-bundle-id=com.example.MyApp.Clip, app-clip-display=card">"#
        )
    }

    @Test func appIdOnlyWithAnAppStoreID() throws {
        let banner = try SmartBanner.make(appStoreID: nil, clipBundleID: clip, appArgument: nil)
        #expect(banner.content == "app-clip-bundle-id=com.example.MyApp.Clip, app-clip-display=card")
    }

    @Test(arguments: [
        "https://x.example/\", app-clip-display=none",
        "https://x.example/a,app-clip-bundle-id=com.evil.Clip",
        "https://x.example/<script>alert(1)</script>",
        "https://x.example/'onmouseover='x",
        "https://x.example/\r\nSet-Cookie: a=b",
        "https://x.example/ü ,\"<>&'",
    ])
    func argumentCannotInjectParametersOrMarkup(_ argument: String) throws {
        let banner = try SmartBanner.make(appStoreID: try AppStoreID("1"), clipBundleID: clip, appArgument: argument)
        // Exactly the four parameters, in order, whatever the argument holds.
        let keys = banner.content.split(separator: ",").map {
            $0.trimmingCharacters(in: " ").split(separator: "=").first.map(String.init) ?? ""
        }
        #expect(keys == ["app-id", "app-argument", "app-clip-bundle-id", "app-clip-display"])
        let attribute = banner.metaTag.dropFirst(#"<meta name="apple-itunes-app" content=""#.count).dropLast(2)
        #expect(!attribute.contains("\""))
        #expect(!attribute.contains("<") && !attribute.contains(">") && !attribute.contains("'"))
        #expect(!banner.metaTag.contains("\r") && !banner.metaTag.contains("\n"))
        #expect(banner.metaTag.hasSuffix("app-clip-display=card\">"))
    }

    @Test(arguments: ["not a url", "/relative/path", "", "://x"])
    func refusesNonAbsoluteArgument(_ argument: String) {
        #expect(throws: ValidationFailure.self) { try SmartBanner.make(appStoreID: nil, clipBundleID: clip, appArgument: argument) }
    }
}
