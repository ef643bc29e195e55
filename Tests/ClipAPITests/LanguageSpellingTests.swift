import Foundation
import HTTP1
import StrictJSON
import Testing

/// Any spelling of a language in, the canonical tag out, on every route that takes one
/// (docs/rules.md#languages).
@Suite(.serialized) struct LanguageSpellingTests {
    @Test(arguments: APITransport.allCases) func everySpellingIsAcceptedAndTheCanonicalOneAnswered(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for (n, (language, french)) in [("fr", "EN"), ("FR", "en"), ("fr-FR", "en-US"), ("fr_fr", "en_GB"), ("Fr-Ca", "EN-us")].enumerated()
        {
            let created = try f.call(
                "POST", "/v1/experiences", token: f.admin,
                json:
                    #"{"url":"https://a.example/l\#(n)","clip":"ABCDE12345.com.a.app.Clip","language":"\#(language)","title":"Vélo","subtitle":"Louer","localizations":{"\#(french)":{"title":"Bike","subtitle":"Rent"}}}"#
            )
            #expect(created.status == 201, "\(created.text)")
            let answer = try f.jsonOf(created)
            #expect(answer["language"] == "fr" && answer["localizations"]?.objectMembers?.map(\.key) == ["en"], "\(created.text)")
            let resolved = try f.jsonOf(
                try f.call("GET", "/v1/resolve?url=https%3A%2F%2Fa.example%2Fl\(n)&language=\(french)"))
            #expect(resolved["experience"]?["language"] == "en" && resolved["experience"]?["title"] == "Bike", "\(resolved)")
        }
        // Two spellings of one language in a write, and what is not one of Apple's 32: field errors naming the rule.
        let twice = try f.call(
            "PATCH", "/v1/experiences/3", token: f.admin,
            json: #"{"localizations":{"de":{"title":"Rad","subtitle":"Mieten"},"DE-at":null}}"#)
        #expect(twice.status == 422 && twice.text.contains("language.duplicate"), "\(twice.text)")
        let french = try f.call("PATCH", "/v1/experiences/3", token: f.admin, json: #"{"language":"French"}"#)
        #expect(french.status == 422 && french.text.contains("language.enum") && french.text.contains("did you mean fr?"), "\(french.text)")
        // A default experience's locales are App Store locales, in any spelling.
        let d = try f.call(
            "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.admin,
            json: #"{"action":"OPEN","localizations":{"FR":{"subtitle":"Salut"},"en_us":{"subtitle":"Hi"},"zh-TW":{"subtitle":"嗨"}}}"#)
        #expect((200...201).contains(d.status), "\(d.text)")
        #expect(try f.jsonOf(d)["localizations"]?.objectMembers?.map(\.key) == ["en-US", "fr-FR", "zh-Hant"], "\(d.text)")
        let austrian = try f.call(
            "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.admin,
            json: #"{"action":"OPEN","localizations":{"de-AT":{"subtitle":"Servus"}}}"#)
        #expect(austrian.status == 422 && austrian.text.contains("locale.appStore") && austrian.text.contains("de-DE"), "\(austrian.text)")
    }
}
