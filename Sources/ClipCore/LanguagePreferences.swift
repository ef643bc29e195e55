/// `Accept-Language` (RFC 9110 §12.5.4) → registry languages in order of preference:
/// ranges sorted by q-value (stable for ties), q=0 and "*" dropped, each mapped by its primary
/// subtag ("fr-CA" → FR), duplicates removed. Malformed ranges are skipped, never an error.
public enum AcceptLanguage {
    public static func languages(_ header: String) -> [Language] {
        var ranked: [(q: Double, order: Int, language: Language)] = []
        for (order, part) in header.split(separator: ",").prefix(64).enumerated() {
            let pieces = part.split(separator: ";")
            guard let range = pieces.first?.trimmingCharacters(in: " ") else { continue }
            var q = 1.0
            for parameter in pieces.dropFirst() {
                let p = parameter.trimmingCharacters(in: " ")
                if p.hasPrefix("q=") || p.hasPrefix("Q="), let value = Double(p.dropFirst(2)), (0...1).contains(value) { q = value }
            }
            guard q > 0, range != "*", let language = Language(tag: range) else { continue }
            ranked.append((q, order, language))
        }
        ranked.sort { $0.q != $1.q ? $0.q > $1.q : $0.order < $1.order }
        var seen = Set<Language>()
        return ranked.compactMap { seen.insert($0.language).inserted ? $0.language : nil }
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String { String(self).trimmingCharacters(in: set) }
}

/// The languages a card is wanted in, in order of preference: an explicit `language` first
/// (a query parameter or `--language`; a tag such as fr-CA names FR), then the request's
/// `Accept-Language`. An explicit language that names none of the 32 is an input error; an
/// unusable `Accept-Language` is not (its ranges are skipped).
public enum LanguagePreferences {
    public static func list(language: String?, acceptLanguage: String?) throws(ValidationFailure) -> [Language] {
        var preferences: [Language] = []
        if let language {
            preferences.append(try Language.parse(language, field: "language"))
        }
        if let acceptLanguage { preferences += AcceptLanguage.languages(acceptLanguage) }
        return preferences
    }
}
