import Foundation
import StrictJSON
import TestSupport
import Testing

/// The built clipctl takes any spelling of a language, answers the canonical tag, and App Store
/// Connect (the fake, which checks every request against Apple's specification) gets each API's own
/// form (docs/rules.md#languages).
struct LanguageSpellingProcessTests {
    static let clip = "ABCDE12345.com.example.bikes.Clip"

    @Test func everySpellingIsAcceptedAndTheCanonicalOneAnswered() throws {
        let c = try Clipctl()
        for (n, (language, other)) in [("fr", "EN"), ("FR", "en"), ("fr-FR", "en-US"), ("fr_fr", "en_GB"), ("Fr-Ca", "EN-us")].enumerated()
        {
            let url = "https://bikes.example/l\(n)"
            let r = try c(
                "register", url, "--clip", Self.clip, "--language", language, "--title", "Louer", "--subtitle", "Vite",
                "--localization", "\(other)=Rent|Fast")
            #expect(r.code == 0, "\(r.err)")
            let shown = try JSONParser.parse(Array(try c("show", url, "--json").out.utf8))
            #expect(shown["language"] == "fr" && shown["localizations"]?.objectMembers?.map(\.key) == ["en"], "\(shown)")
            #expect(try c("show", url).out.contains("card en:"))
            #expect(try c("resolve", url, "--language", other, "--json").out.contains(#""language": "en""#))
        }
        #expect(try c("update", "1", "--remove-localization", "EN_us").code == 0)
        let refused = try c("update", "1", "--language", "French")
        #expect(refused.code == 65 && refused.err.contains("language.enum") && refused.err.contains("did you mean fr?"), "\(refused.err)")
        let d = try c("default", "set", Self.clip, "--subtitle", "FR=Louer", "--subtitle", "en_us=Rent", "--json")
        #expect(d.code == 0, "\(d.err)")
        let locales = try JSONParser.parse(Array(try c("default", "show", Self.clip, "--json").out.utf8))["localizations"]
        #expect(locales?.objectMembers?.map(\.key) == ["en-US", "fr-FR"], "\(String(describing: locales))")
        let austrian = try c("default", "set", Self.clip, "--subtitle", "de-AT=Servus")
        #expect(austrian.code == 65 && austrian.err.contains("locale.appStore") && austrian.err.contains("de-DE"), "\(austrian.err)")
    }

    /// Apple's forms on the way out: `FR` for an advanced experience, `fr-FR` for a default experience.
    @Test(.enabled(if: FakeASCProcess.shouldRun)) func appStoreConnectGetsEachAPIsOwnForm() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("update", "1", "--localization", "fr_ca=Louer un vélo|En quelques secondes").code == 0)
        #expect(
            try clipctl(
                "update", "3", "--language", "de-de", "--title", "Neu", "--subtitle", "Entsperren", "--localization", "en=Brand new|Unlock"
            ).code == 0)
        #expect(try clipctl("default", "set", Self.clip, "--action", "VIEW", "--subtitle", "FR=Louer", "--subtitle", "en=Rent").code == 0)
        try AppStoreConnectSyncProcessTests.seedLiveAndEditedVersions(fake)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        let held = try fake.experiences()
        #expect(held["https://bikesrental.example/rent"] == ["EN": "Rent a bike", "FR": "Louer un vélo"], "\(held)")
        #expect(held["https://bikesrental.example/new"] == ["DE": "Neu", "EN": "Brand new"], "\(held)")
        let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        let defaultLanguages = resources.filter { $0["type"]?.stringValue == "appClipAdvancedExperiences" }
            .compactMap { $0["attributes"]?["defaultLanguage"]?.stringValue }
        #expect(Set(defaultLanguages).isSubset(of: ["EN", "DE"]) && defaultLanguages.contains("DE"), "\(defaultLanguages)")
        let locales = resources.filter { $0["type"]?.stringValue == "appClipDefaultExperienceLocalizations" }
            .compactMap { $0["attributes"]?["locale"]?.stringValue }
        #expect(Set(locales) == ["en-US", "fr-FR"], "\(locales)")
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }
}
