/// A language as people write it: a BCP 47 tag (RFC 5646) in any case, with `-` or `_` between its
/// subtags (`fr`, `FR`, `fr-FR`, `fr_fr`, `zh-Hant`), read into its canonical form
/// (docs/rules.md#languages).
public struct LanguageTag: Sendable, Equatable {
    /// The primary language subtag, lower case, a deprecated code replaced by its preferred value.
    public let language: String
    /// The script subtag in title case (`Hant`).
    public let script: String?
    /// The region subtag in upper case (`FR`), or three digits (`419`).
    public let region: String?
    /// Variants and extensions, lower case.
    public let rest: [String]

    /// The tag's subtags in their canonical case (RFC 5646 §2.1.1), joined by `-`.
    public var canonical: String { ([language] + [script, region].compactMap { $0 } + rest).joined(separator: "-") }

    /// RFC 5646 §2.1's `langtag`: a 2–3 letter language, then an optional 4-letter script, an optional
    /// 2-letter or 3-digit region, then variants and extensions of 1–8 letters and digits. Extended
    /// language subtags, private use and the grandfathered tags are not languages the App Store has.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let first = parts.first, (2...3).contains(first.utf8.count), first.utf8.allSatisfy(isAlpha) else { return nil }
        let primary = first.lowercased()
        language = Self.deprecated[primary] ?? primary
        var rest = parts.dropFirst()[...]
        if let s = rest.first, s.utf8.count == 4, s.utf8.allSatisfy(isAlpha) {
            script = s.prefix(1).uppercased() + s.dropFirst().lowercased()
            rest = rest.dropFirst()
        } else {
            script = nil
        }
        if let r = rest.first,
            (r.utf8.count == 2 && r.utf8.allSatisfy(isAlpha)) || (r.utf8.count == 3 && r.utf8.allSatisfy(isDigit))
        {
            region = r.uppercased()
            rest = rest.dropFirst()
        } else {
            region = nil
        }
        guard rest.allSatisfy({ (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy(isAlnum) }),
            !rest.contains(where: { $0.lowercased() == "x" })
        else { return nil }
        self.rest = rest.map { $0.lowercased() }
    }

    /// Deprecated ISO 639 codes and their preferred values (the IANA Language Subtag Registry's
    /// `Preferred-Value`, RFC 5646 §3.1.6): `iw` is Hebrew, `in` Indonesian, `ji` Yiddish, `mo` Romanian.
    static let deprecated = ["iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"]

    /// A language tag that is close to `text`, for a refusal's message: the two-letter code of a
    /// three-letter ISO 639-2 code or an English name of one of Apple's languages (`fra`, `French` → `fr`).
    public static func suggestion(for text: String) -> String? {
        let lower = text.lowercased()
        let first = String(lower.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
        for language in Language.allCases {
            let names = LanguageNames.of[language] ?? []
            if names.contains(first) || names.contains(lower) { return language.tag }
        }
        return nil
    }
}

/// Each of Apple's advanced-experience languages by its ISO 639-2 codes (bibliographic and
/// terminology, ISO 639-2/RA) and English name, for suggestions only.
enum LanguageNames {
    static let of: [Language: [String]] = [
        .AR: ["ara", "arabic"], .CA: ["cat", "catalan"], .CS: ["ces", "cze", "czech"], .DA: ["dan", "danish"],
        .DE: ["deu", "ger", "german"], .EL: ["ell", "gre", "greek"], .EN: ["eng", "english"], .ES: ["spa", "spanish"],
        .FI: ["fin", "finnish"], .FR: ["fra", "fre", "french"], .HE: ["heb", "hebrew"], .HI: ["hin", "hindi"],
        .HR: ["hrv", "croatian"], .HU: ["hun", "hungarian"], .ID: ["ind", "indonesian"], .IT: ["ita", "italian"],
        .JA: ["jpn", "japanese"], .KO: ["kor", "korean"], .MS: ["msa", "may", "malay"], .NL: ["nld", "dut", "dutch"],
        .NO: ["nor", "nob", "nno", "norwegian"], .PL: ["pol", "polish"], .PT: ["por", "portuguese"],
        .RO: ["ron", "rum", "romanian"], .RU: ["rus", "russian"], .SK: ["slk", "slo", "slovak"], .SV: ["swe", "swedish"],
        .TH: ["tha", "thai"], .TR: ["tur", "turkish"], .UK: ["ukr", "ukrainian"], .VI: ["vie", "vietnamese"],
        .ZH: ["zho", "chi", "chinese"],
    ]
}

/// The locales App Store Connect takes for a default experience's localizations and a TestFlight
/// invocation's titles (`locale`: "en-US", not the advanced experiences' two-letter enumeration;
/// docs/rules.md#languages), and how any language tag maps to one.
public enum AppStoreLocale {
    /// Apple's "Managing metadata in your app by using locale shortcodes" list (39 locales), and the 11
    /// App Store Connect added in 2025 as fastlane spells them for the API (fastlane#29959).
    public static let all: [String] = [
        "ar-SA", "bn-BD", "ca", "cs", "da", "de-DE", "el", "en-AU", "en-CA", "en-GB", "en-US", "es-ES", "es-MX", "fi", "fr-CA",
        "fr-FR", "gu-IN", "he", "hi", "hr", "hu", "id", "it", "ja", "kn-IN", "ko", "ml-IN", "mr-IN", "ms", "nl-NL", "no", "or-IN",
        "pa-IN", "pl", "pt-BR", "pt-PT", "ro", "ru", "sk", "sl-SI", "sv", "ta-IN", "te-IN", "th", "tr", "uk", "ur-PK", "vi",
        "zh-Hans", "zh-Hant",
    ]

    /// The locale a bare language means where App Store Connect has several: CLDR's likely subtags
    /// (`en` → en-Latn-US, `es` → es-Latn-ES, `fr` → fr-Latn-FR, `pt` → pt-Latn-BR, `zh` → zh-Hans-CN).
    static let likely = ["en": "en-US", "es": "es-ES", "fr": "fr-FR", "pt": "pt-BR", "zh": "zh-Hans"]
    /// A Chinese region's script (CLDR likely subtags: zh-TW → zh-Hant-TW, zh-CN → zh-Hans-CN).
    static let chineseScript = ["TW": "Hant", "HK": "Hant", "MO": "Hant", "CN": "Hans", "SG": "Hans"]
    /// Languages App Store Connect holds under another code: Norwegian Bokmål and Nynorsk are `no`.
    static let macrolanguage = ["nb": "no", "nn": "no"]

    /// The App Store locale of a tag: the one it names (any case, `_` or `-`), a bare language's
    /// only or likely one (`fr` → fr-FR, `ja` → ja), a Chinese region's script (`zh-TW` → zh-Hant), or
    /// a region-less locale for any region of its language (`ja-JP` → ja). A region App Store
    /// Connect does not have for a language that has regional locales (`de-AT`) is refused with them.
    public static func locale(_ text: String, field: String) throws(ValidationFailure) -> String {
        func close() -> String {
            LanguageTag.suggestion(for: text).flatMap { canonical($0) }.map { " (did you mean \($0)?)" } ?? ""
        }
        guard let tag = LanguageTag(text) else {
            throw ValidationFailure(
                field: field, rule: "locale.format",
                message: "\"\(text.truncatedForMessage)\" is not a language tag such as fr or fr-FR" + close())
        }
        func refuse(_ why: String) -> ValidationFailure {
            ValidationFailure(field: field, rule: "locale.appStore", message: "\"\(text.truncatedForMessage)\": \(why)")
        }
        let language = macrolanguage[tag.language] ?? tag.language
        let candidates = all.filter { $0 == language || $0.hasPrefix(language + "-") }
        guard !candidates.isEmpty else { throw refuse("App Store Connect has no locale in this language" + close()) }
        if language == "zh" { return "zh-" + (tag.script ?? tag.region.flatMap { chineseScript[$0] } ?? "Hans") }
        guard let region = tag.region else { return candidates.count == 1 ? candidates[0] : likely[language] ?? candidates[0] }
        if let exact = candidates.first(where: { $0 == "\(language)-\(region)" }) { return exact }
        if candidates == [language] { return language }
        throw refuse("App Store Connect has no locale \(language)-\(region); give one of \(candidates.joined(separator: ", "))")
    }

    /// The App Store locale of a tag, or nil when `locale` refuses it.
    public static func canonical(_ text: String) -> String? { try? locale(text, field: "") }
}
