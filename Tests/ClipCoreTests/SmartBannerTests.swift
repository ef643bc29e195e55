import Testing
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

@Suite struct HTMLTextTests {
    @Test func theFiveMarkupCharactersBecomeReferences() {
        #expect(HTMLText.escaped(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
    }

    @Test func controlsAndNoncharactersBecomeReplacementCharacters() {
        // HTML §13.2.3.5: each of these is a parse error in the input stream; tab and line feed are not.
        // Swift string literals refuse noncharacters, so they are built from their code points.
        let noncharacters = [0xFDD0, 0xFFFF, 0x10FFFE].map { String(Unicode.Scalar($0)!) }
        let input = "a\u{0}b\u{1B}c\u{7F}d\u{85}e" + noncharacters.joined(separator: "f") + "h"
        #expect(HTMLText.escaped(input) == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}f\u{FFFD}h")
        #expect(HTMLText.escaped("tab\there\nline") == "tab\there\nline")
        #expect(HTMLText.escaped("café 東京 🚲") == "café 東京 🚲")
    }
}
