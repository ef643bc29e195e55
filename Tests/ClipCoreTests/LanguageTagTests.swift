import ClipCore
import Testing

/// Any spelling of a language, one canonical tag stored, and each of Apple's forms sent
/// (docs/rules.md#languages).
struct LanguageTagTests {
    @Test(arguments: [
        ("fr", "fr"), ("FR", "fr"), ("fr-FR", "fr-FR"), ("fr_fr", "fr-FR"), ("FR-fr", "fr-FR"), ("zh-hant", "zh-Hant"),
        ("ZH_HANT_tw", "zh-Hant-TW"), ("es-419", "es-419"), ("iw", "he"), ("in-ID", "id-ID"), ("sl-rozaj", "sl-rozaj"),
    ])
    func tagsAreReadInAnySpellingIntoTheirCanonicalCase(_ given: String, _ canonical: String) {
        #expect(LanguageTag(given)?.canonical == canonical)
    }

    @Test(arguments: ["", "f", "french", "fr-", "-fr", "fr--FR", "x-klingon", "fr-x-private", "fr FR", "fr-toolongsubtag", "1fr"])
    func whatIsNotATagIsNone(_ given: String) {
        #expect(LanguageTag(given) == nil)
    }

    /// An advanced experience holds one of Apple's 32, stored as `fr` and sent as `FR`.
    @Test(arguments: [
        ("fr", Language.FR), ("FR", .FR), ("fr-FR", .FR), ("fr_CA", .FR), ("zh-Hant", .ZH), ("zh_TW", .ZH), ("nb", .NO),
        ("nn-NO", .NO), ("iw", .HE), ("in", .ID), ("EN-us", .EN),
    ])
    func advancedExperienceLanguages(_ given: String, _ language: Language) throws {
        #expect(try Language.parse(given, field: "language") == language)
        #expect(language.tag == language.rawValue.lowercased() && language.spelling == language.tag)
    }

    @Test func aLanguageThatIsNotOneOfApplesIsRefusedWithTheRuleAndASuggestion() {
        for (given, suggestion) in [("French", "fr"), ("fra", "fr"), ("deu", "de"), ("Chinese", "zh"), ("eo", nil), ("f", nil)] {
            #expect {
                try Language.parse(given, field: "language")
            } throws: { error in
                guard let failure = error as? ValidationFailure, let e = failure.errors.first else { return false }
                return e.field == "language" && e.rule == "language.enum"
                    && (suggestion.map { e.message.hasSuffix("did you mean \($0)?") } ?? !e.message.contains("did you mean"))
            }
        }
    }

    /// A default experience's locales and TestFlight titles are App Store locales.
    @Test(arguments: [
        ("fr", "fr-FR"), ("FR", "fr-FR"), ("fr-FR", "fr-FR"), ("fr_fr", "fr-FR"), ("fr-CA", "fr-CA"), ("en", "en-US"),
        ("en-gb", "en-GB"), ("es", "es-ES"), ("es-MX", "es-MX"), ("pt", "pt-BR"), ("pt_PT", "pt-PT"), ("zh", "zh-Hans"),
        ("zh-hant", "zh-Hant"), ("zh-TW", "zh-Hant"), ("zh_CN", "zh-Hans"), ("ja", "ja"), ("ja-JP", "ja"), ("de", "de-DE"),
        ("ar", "ar-SA"), ("nl", "nl-NL"), ("nb", "no"), ("iw", "he"), ("ca-ES", "ca"),
    ])
    func appStoreLocales(_ given: String, _ locale: String) throws {
        #expect(try AppStoreLocale.locale(given, field: "locale") == locale)
        #expect(AppStoreLocale.all.contains(locale))
    }

    @Test func aLocaleAppStoreConnectHasNotIsRefusedWithTheOnesItHas() {
        for (given, rule, says) in [
            ("de-AT", "locale.appStore", "give one of de-DE"), ("en-IN", "locale.appStore", "en-AU, en-CA, en-GB, en-US"),
            ("eo", "locale.appStore", "no locale in this language"), ("French", "locale.format", "did you mean fr-FR?"),
        ] {
            #expect {
                try AppStoreLocale.locale(given, field: "localizations.\(given)")
            } throws: { error in
                guard let e = (error as? ValidationFailure)?.errors.first else { return false }
                return e.field == "localizations.\(given)" && e.rule == rule && e.message.contains(says)
            }
        }
    }

    /// Every one of Apple's 32 has an App Store locale for its TestFlight titles.
    @Test func everyAdvancedLanguageHasAnAppStoreLocale() {
        for language in Language.allCases { #expect(AppStoreLocale.all.contains(language.appStoreLocale), "\(language)") }
        #expect(Language.FR.appStoreLocale == "fr-FR" && Language.ZH.appStoreLocale == "zh-Hans" && Language.NO.appStoreLocale == "no")
    }

    /// A default experience's locales are kept under the App Store locale, and two spellings of one are refused.
    @Test func defaultExperienceLocalesAreStoredCanonical() {
        let checked = DefaultExperience.check(localizations: ["FR": "Louer", "en_us": "Rent", "zh-TW": "租"])
        #expect(checked.errors.isEmpty && checked.localizations == ["fr-FR": "Louer", "en-US": "Rent", "zh-Hant": "租"])
        let twice = DefaultExperience.check(localizations: ["fr": "a", "fr-FR": "b"])
        #expect(twice.errors.map(\.rule) == ["locale.duplicate"])
    }
}
