import AppleFormats
import CardPreview
import ClipCore
import FileFormats
import Foundation
import TestSupport
import Testing

/// Pages built from resolutions the resolver made, as a registry would hand them over.
enum Fixture {
    static let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")
    static let hostile = "<script>alert(\"x\")</script> & 'q'"
    static let image = String(repeating: "ab", count: 32)

    static func experience(
        id: Int64 = 1, url: String = "https://bikesrental.example/rent", title: String = "Rent a bike", subtitle: String = "Unlock one",
        language: Language = .EN, action: Action = .open, image: String? = nil, extra: [Language: CardText] = [:]
    ) -> AdvancedExperience {
        var localizations = extra
        localizations[language] = CardText(title: title, subtitle: subtitle)
        return AdvancedExperience(
            id: id, url: try! NormalizedURL(url), clip: clip, action: action, defaultLanguage: language, localizations: localizations,
            headerImage: image)
    }

    static func resolve(
        _ url: String, candidates: [AdvancedExperience] = [], fallbacks: [DefaultFallback] = [], preferences: [Language] = []
    ) -> Resolution {
        guard let normalized = try? NormalizedURL(url) else {
            return Resolver.unresolvable(url, problem: problem(url))
        }
        return Resolver.resolve(url, url: normalized, candidates: candidates, fallbacks: fallbacks, preferences: preferences, at: .earliest)
    }

    static func problem(_ url: String) -> NormalizedURL.Problem {
        do { _ = try NormalizedURL(url) } catch { return error }
        fatalError("\(url) is a valid URL")
    }

    /// `code` nil: a code for the invocation URL when there is a match (what the codes rule says of an associated host).
    static func page(
        _ resolution: Resolution, appName: String = "Bikes", banner: BannerPreview = .unavailable("no clip"),
        sources: [String: String] = [:],
        origin: String? = "", code: Result<String, CardPreviewInput.CodeRefusal>? = nil
    ) -> CardPreviewPage {
        CardPreviewPage.render(
            CardPreviewInput(
                resolution: resolution, urlIsValid: (try? NormalizedURL(resolution.invocationURL)) != nil, appName: appName, banner: banner,
                imageSources: sources, codesOrigin: origin,
                code: code ?? (resolution.match == nil ? .failure(.init("it opens no App Clip card")) : .success(resolution.invocationURL)))
        )
    }
}

extension String {
    func count(of needle: String) -> Int { components(separatedBy: needle).count - 1 }
    /// The text between the first `start` and the `end` after it.
    func between(_ start: String, _ end: String) -> String? {
        guard let a = range(of: start), let b = range(of: end, range: a.upperBound..<endIndex) else { return nil }
        return String(self[a.upperBound..<b.lowerBound])
    }
}

@Suite struct CardPreviewPageTests {
    @Test func advancedPageShowsTheCardInItsLanguageWithCodes() throws {
        let e = Fixture.experience(
            title: "Rent a bike", subtitle: "Unlock one", image: Fixture.image,
            extra: [.FR: CardText(title: "Louer un vélo", subtitle: "En quelques secondes")])
        let page = Fixture.page(
            Fixture.resolve("https://bikesrental.example/rent?id=1", candidates: [e], preferences: [.FR]),
            sources: [Fixture.image: "/v1/images/\(Fixture.image)"])
        #expect(page.kind == .advanced)
        let card = try #require(page.html.between("<section class=\"sheet\"", "</section>"))
        #expect(card.contains("lang=\"fr\" dir=\"ltr\""))
        #expect(card.contains("<h2 class=\"title\">Louer un vélo</h2>"))
        #expect(card.contains("<p class=\"subtitle\">En quelques secondes</p>"))
        #expect(card.contains("<p class=\"action\" lang=\"en\" dir=\"ltr\">Open</p>"))
        #expect(card.contains("Bikes"))
        #expect(card.contains("src=\"/v1/images/\(Fixture.image)\""))
        // The NDEF bytes of the invocation URL, as FileFormats writes them.
        let ndef = try NDEFMessage.uri("https://bikesrental.example/rent?id=1").hex(separator: " ")
        #expect(page.html.contains("<code>\(ndef)</code>"))
        #expect(page.html.count(of: "<svg") == 1)
        #expect(page.html.contains("<title>https://bikesrental.example/rent?id=1</title>"))
        #expect(!page.html.contains("<?xml"))
        #expect(page.html.contains("href=\"/v1/codes?url=https%3A%2F%2Fbikesrental.example%2Frent%3Fid%3D1&amp;format=png\""))
        #expect(page.html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
    }

    @Test(arguments: [(Action.open, "Open"), (.view, "View"), (.play, "Play")])
    func actionButtonIsLabelledAsIOSLabelsIt(action: Action, label: String) {
        let e = Fixture.experience(action: action)
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [e]))
        #expect(page.html.contains("<p class=\"action\" lang=\"en\" dir=\"ltr\">\(label)</p>"))
    }

    @Test(arguments: [(Language.HE, "he", "rtl"), (.AR, "ar", "rtl"), (.JA, "ja", "ltr"), (.EN, "en", "ltr")])
    func cardCarriesLangAndDirOfItsLanguage(language: Language, lang: String, dir: String) {
        let e = Fixture.experience(title: "שלום", language: language)
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [e], preferences: [language]))
        #expect(page.html.contains("<section class=\"sheet\" aria-label=\"App Clip card\" lang=\"\(lang)\" dir=\"\(dir)\">"))
    }

    @Test func everyStoredTextIsEscaped() throws {
        let h = Fixture.hostile
        let e = Fixture.experience(title: h, subtitle: h)
        let banner = SmartBanner.Banner(content: h, metaTag: "<meta name=\"apple-itunes-app\" content=\"\(h)\">")
        let page = Fixture.page(
            Fixture.resolve("https://bikesrental.example/rent", candidates: [e]), appName: h, banner: .tag(banner, notes: [h]),
            origin: "https://r.example/\"><script>")
        let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"
        #expect(!page.html.lowercased().contains("<script"))
        #expect(page.html.contains("<h2 class=\"title\">\(escaped)</h2>"))
        #expect(page.html.contains("<p class=\"subtitle\">\(escaped)</p>"))
        #expect(page.html.contains("<span class=\"badge\" lang=\"en\" dir=\"ltr\">App Clip</span> \(escaped)</p>"))
        #expect(page.html.contains("<li>\(escaped)</li>"))
        #expect(page.html.contains("&lt;meta name=&quot;apple-itunes-app&quot;"))
    }

    @Test func invocationURLsAndReasonsAreEscapedAndControlCharactersReplaced() {
        let url = "javascript:alert(\"<b>\u{0}\u{1}\u{7F}\u{FFFF}</b>\")"
        let page = Fixture.page(Fixture.resolve(url))
        #expect(page.kind == .noMatch)
        #expect(!page.html.contains("<b>"))
        #expect(page.html.contains("javascript:alert(&quot;&lt;b&gt;\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}&lt;/b&gt;&quot;)"))
        #expect(!page.html.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(page.html.contains("Not an invocation URL"))
        #expect(!page.html.contains("<h2>Why</h2>"), "no host, so no candidates to explain")
    }

    @Test func noMatchPageHasNoCardAndNoCodes() {
        let e = Fixture.experience(url: "https://bikesrental.example/rent")
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rentals", candidates: [e]))
        #expect(page.kind == .noMatch)
        #expect(!page.html.contains("class=\"sheet\""))
        #expect(!page.html.contains("<svg"))
        #expect(!page.html.contains("/v1/codes"))
        #expect(page.html.contains("No App Clip card"))
        #expect(page.html.contains("<strong>No match</strong>"))
        // The near miss: /rent is a character prefix of /rentals, not a segment prefix.
        #expect(page.html.contains("Near miss: /rent is a character prefix of /rentals"))
        #expect(page.html.contains("<tr class=\"path-mismatch\">"))
    }

    @Test func defaultExperiencePageSaysSoAndShowsTheAppNameAsTitle() throws {
        let fallback = DefaultFallback(
            experience: DefaultExperience(
                clip: Fixture.clip, action: .view,
                localizations: [
                    "en-US": .init(subtitle: "Bikes all over town"), "ar-SA": .init(subtitle: "دراجات", headerImage: Fixture.image),
                ]),
            appName: "Bikes & <Co>")
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/", fallbacks: [fallback], preferences: [.AR]))
        #expect(page.kind == .defaultExperience)
        let card = try #require(page.html.between("<section class=\"sheet\"", "</section>"))
        #expect(card.contains("lang=\"ar-SA\" dir=\"rtl\""))
        #expect(card.contains("<h2 class=\"title\">Bikes &amp; &lt;Co&gt;</h2>"))
        #expect(card.contains("<p class=\"action\" lang=\"en\" dir=\"ltr\">View</p>"))
        #expect(card.contains("Header image not available"))
        #expect(page.html.contains("<strong>default experience</strong>"))
        // A default experience's URL gets codes when the codes rule says so (its host is associated with the clip)…
        #expect(page.html.contains("<svg"))
        // …and none, with the rule's reason, when it does not.
        let refused = Fixture.page(
            Fixture.resolve("https://bikesrental.example/", fallbacks: [fallback], preferences: [.AR]),
            code: .failure(.init("bikesrental.example is not associated with the clip")))
        #expect(!refused.html.contains("<svg"))
        #expect(refused.html.contains("No code: bikesrental.example is not associated with the clip"))
    }

    @Test func winnerLosersAndDeactivatedAreExplained() {
        let general = Fixture.experience(id: 1, url: "https://bikesrental.example/")
        let specific = Fixture.experience(id: 2, url: "https://bikesrental.example/rent")
        var off = Fixture.experience(id: 3, url: "https://bikesrental.example/rent/city")
        off.status = .deactivated
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent/city", candidates: [general, specific, off]))
        #expect(page.html.contains("<tr class=\"chosen\"><td>2 "))
        #expect(page.html.contains("<tr class=\"less-specific\"><td>1 "))
        #expect(page.html.contains("<tr class=\"deactivated\"><td>3 "))
        #expect(page.html.contains("(deactivated)"))
    }

    @Test func aHostWithThousandsOfCandidatesListsTheFirstTwoHundred() {
        let many = (1...1000).map { Fixture.experience(id: Int64($0), url: "https://bikesrental.example/s\($0)") }
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/s7", candidates: many))
        #expect(page.html.count(of: "<tr class=") == CardPreviewPage.maxExplainedCandidates)
        #expect(page.html.contains("800 more candidates are not listed."))
    }

    @Test func textOverTheLimitsIsFlagged() {
        let long = Fixture.experience(title: String(repeating: "é", count: 31), subtitle: String(repeating: "x", count: 44))
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [long]))
        #expect(page.html.contains("<li class=\"bad\">Title: 31 of 30 characters: over the limit</li>"))
        #expect(page.html.contains("<li class=\"warn\">Subtitle: 44 of 56 characters: over the older advice of 43</li>"))
    }

    @Test func withoutAServerTheCodeRoutesAreNamedNotLinked() {
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [Fixture.experience()]), origin: nil)
        #expect(!page.html.contains("<a "))
        #expect(page.html.contains("<code>GET /v1/codes?url=https%3A%2F%2Fbikesrental.example%2Frent&amp;format=ndef</code>"))
    }

    @Test func aURLTooLongForAQRCodeSaysSoInsteadOfFailing() {
        let url = "https://bikesrental.example/" + String(repeating: "a", count: 2000) + "?b=" + String(repeating: "%C3%A9", count: 300)
        let e = Fixture.experience(url: "https://bikesrental.example/")
        let page = Fixture.page(Fixture.resolve(url, candidates: [e]))
        #expect(page.kind == .advanced)
        #expect(page.html.contains("No QR code:"))
        #expect(!page.html.contains("<svg"))
    }
}

@Suite struct CardPreviewPolicyTests {
    static let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [Fixture.experience()]))

    @Test func policyAllowsNoScriptAndOnlyThePagesOwnStyleSheet() throws {
        let policy = Self.page.contentSecurityPolicy
        let directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(directives.contains("default-src 'none'"))
        #expect(!directives.contains { $0.hasPrefix("script-src") })
        #expect(!policy.contains("unsafe-inline"))
        #expect(!policy.contains("unsafe-eval"))
        #expect(directives.contains("frame-ancestors 'none'"))
        #expect(directives.contains("img-src 'self' data:"))
        // The style-src hash is the SHA-256 (libcrypto's, not ours) of the <style> element's text.
        let style = try #require(Self.page.html.between("<style>", "</style>"))
        let digest = LibcryptoSHA256.hash(Array(style.utf8))
        #expect(directives.contains("style-src 'sha256-\(Data(digest).base64EncodedString())'"))
    }

    @Test func pageHasNoScriptNoInlineStyleAttributeAndNoEventHandler() {
        let html = Self.page.html.lowercased()
        #expect(!html.contains("<script"))
        #expect(!html.contains(" style="))
        // No event handler attribute (onload=, onclick=, …) in any start tag.
        #expect(html.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression) == nil)
        #expect(html.contains("<meta http-equiv=\"content-security-policy\""))
        #expect(html.contains("prefers-color-scheme:dark"))
        #expect(html.contains("-apple-system,system-ui"))
    }
}

@Suite struct StandalonePageTests {
    @Test func servedImagesAreInlinedAndCodeLinksMadeAbsolute() {
        let e = Fixture.experience(image: Fixture.image)
        let page = Fixture.page(
            Fixture.resolve("https://bikesrental.example/rent", candidates: [e]), sources: [Fixture.image: "/v1/images/\(Fixture.image)"])
        #expect(StandalonePage.servedImages(page.html) == [Fixture.image])
        let file = StandalonePage.make(page.html, sources: [Fixture.image: "data:image/png;base64,AAAA"], origin: "https://r.example")
        #expect(file.contains("src=\"data:image/png;base64,AAAA\""))
        #expect(!file.contains("/v1/images/"))
        #expect(file.contains("href=\"https://r.example/v1/codes?url="))
        #expect(!file.contains("href=\"/v1/codes"))
    }

    @Test func storedTextThatLooksLikeAnImageReferenceIsNotTouched() {
        let trap = "src=\"/v1/images/\(Fixture.image)\""
        let e = Fixture.experience(title: trap, subtitle: "href=\"/v1/codes?")
        let page = Fixture.page(Fixture.resolve("https://bikesrental.example/rent", candidates: [e]))
        #expect(StandalonePage.servedImages(page.html).isEmpty)
        let file = StandalonePage.make(page.html, sources: [Fixture.image: "data:image/png;base64,AAAA"], origin: "https://r.example")
        #expect(!file.contains("data:image/png"))
        #expect(file.contains("<p class=\"subtitle\">href=&quot;/v1/codes?</p>"))
    }
}
