public import StrictJSON

/// The default experience of a clip associated with a host, offered when no advanced experience
/// matches (docs/rules.md#default-experiences).
public struct DefaultFallback: Sendable, Equatable {
    public var experience: DefaultExperience
    /// The app's name, used as the card title (a default experience has none of its own).
    public var appName: String
    public init(experience: DefaultExperience, appName: String) {
        self.experience = experience
        self.appName = appName
    }
}

/// Why one candidate won or lost, for `--explain` (docs/rules.md#explanations-and-near-misses).
public struct CandidateReport: Sendable, Equatable {
    public enum Outcome: String, Sendable, CaseIterable {
        case chosen, lessSpecific = "less-specific", pathMismatch = "path-mismatch",
            queryMismatch = "query-mismatch", deactivated,
            /// Active, but `at` is before its `liveFrom` or at or after its `liveUntil` (docs/rules.md#experiences-in-time).
            scheduled, ended
    }
    public let id: Int64
    public let url: String
    public let status: ExperienceStatus
    public let outcome: Outcome
    public let detail: String
    /// Set when a character-prefix reading would match although a segment-aware one does not.
    public let nearMiss: String?
}

public struct Resolution: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        case advanced(AdvancedExperience, language: Language)
        case defaultExperience(DefaultFallback, locale: String?)
    }
    /// The URL as given (the clip receives it whole, fragment included).
    public let invocationURL: String
    public let match: Match?
    /// Why nothing matched, when nothing did.
    public let reason: String?
    public let candidates: [CandidateReport]
    public let notes: [String]
}

/// Invocation URL → experience: of the candidates that `NormalizedURL.matches`, the active one
/// that `NormalizedURL.isMoreSpecific` puts first (docs/rules.md). Pure: the caller supplies the
/// candidates.
public enum Resolver {
    /// - Parameters:
    ///   - invocationURL: the URL as given.
    ///   - url: `invocationURL` normalized (the caller needs its host to find the candidates).
    ///   - candidates: the advanced experiences (any status, not removed) on the URL's host.
    ///   - fallbacks: default experiences of clips associated with the host.
    ///   - preferences: languages in order of preference (explicit, then Accept-Language).
    ///   - at: the moment answered for: a candidate outside its window is skipped.
    public static func resolve(
        _ invocationURL: String, url: NormalizedURL, candidates: [AdvancedExperience], fallbacks: [DefaultFallback],
        preferences: [Language], at: Instant
    ) -> Resolution {
        var matches: [AdvancedExperience] = []
        var reports: [Int64: (CandidateReport.Outcome, String, String?)] = [:]
        let invocationItems = Set(url.queryItems)
        for candidate in candidates {
            let nearMiss =
                candidate.url.isCharacterPrefixNearMiss(of: url)
                ? "\(candidate.url.path) is a character prefix of \(url.path) but not a path-segment prefix: this registry does not match it; Apple does not document which reading iOS uses"
                : nil
            guard candidate.url.pathCovers(url) else {
                reports[candidate.id] = (.pathMismatch, "path \(candidate.url.path) does not cover \(url.path)", nearMiss)
                continue
            }
            let missing = candidate.url.missingQueryItems(invocationItems)
            guard missing.isEmpty else {
                reports[candidate.id] = (
                    .queryMismatch, "missing query item\(missing.count == 1 ? "" : "s") \(missing.map(\.text).joined(separator: ", "))", nil
                )
                continue
            }
            // What is left of the match rule (`NormalizedURL.matches`); the candidates share the host.
            assert(candidate.url.matches(url, invocationItems: invocationItems))
            switch candidate.state(at: at) {
            case .live: break
            case .deactivated:
                reports[candidate.id] = (.deactivated, "matches, but is deactivated", nil)
                continue
            case .scheduled:
                reports[candidate.id] = (.scheduled, "skipped: starts \(candidate.liveFrom!)", nil)
                continue
            case .ended:
                reports[candidate.id] = (.ended, "skipped: ended \(candidate.liveUntil!)", nil)
                continue
            }
            matches.append(candidate)
        }
        matches.sort { NormalizedURL.isMoreSpecific($0.url, than: $1.url) }
        if let winner = matches.first {
            reports[winner.id] = (
                .chosen,
                "most specific match: \(winner.url.pathSegmentCount) path segment(s), \(winner.url.distinctQueryItemCount) query item(s)",
                nil
            )
            for loser in matches.dropFirst() {
                reports[loser.id] = (.lessSpecific, "matches, but \(winner.url.canonical) is more specific", nil)
            }
        }
        let ordered = candidates.sorted { $0.url.canonical < $1.url.canonical }.compactMap { c -> CandidateReport? in
            guard let r = reports[c.id] else { return nil }
            return CandidateReport(id: c.id, url: c.url.canonical, status: c.status, outcome: r.0, detail: r.1, nearMiss: r.2)
        }
        return answer(
            invocationURL, url: url, winner: matches.first, hostHasExperiences: !candidates.isEmpty, fallbacks: fallbacks,
            preferences: preferences, candidates: ordered)
    }

    /// The answer once the most specific active match (if any) is known: the advanced experience
    /// in the preferred language, else a default experience of a clip associated with the host
    /// (docs/rules.md#default-experiences), else no match and why. Shared with `ExperienceIndex`.
    public static func answer(
        _ invocationURL: String, url: NormalizedURL, winner: AdvancedExperience?, hostHasExperiences: Bool, fallbacks: [DefaultFallback],
        preferences: [Language], candidates ordered: [CandidateReport] = []
    ) -> Resolution {
        var notes: [String] = []
        if let winner {
            let language = winner.language(for: preferences)
            return Resolution(
                invocationURL: invocationURL, match: .advanced(winner, language: language), reason: nil, candidates: ordered, notes: notes)
        }
        let sortedFallbacks = fallbacks.sorted { $0.experience.clip < $1.experience.clip }
        if let fallback = sortedFallbacks.first {
            if sortedFallbacks.count > 1 {
                notes.append(
                    "\(sortedFallbacks.count) clips with a default experience are associated with \(url.host); chose \(fallback.experience.clip.rawValue), the first by App ID"
                )
            }
            let locale = chooseLocale(Array(fallback.experience.localizations.keys), preferences: preferences)
            return Resolution(
                invocationURL: invocationURL, match: .defaultExperience(fallback, locale: locale), reason: nil, candidates: ordered,
                notes: notes)
        }
        let words = noMatchReason(hostHasExperiences: hostHasExperiences)
        let reason = "\(words.before)\(url.host)\(words.after)"
        return Resolution(invocationURL: invocationURL, match: nil, reason: reason, candidates: ordered, notes: notes)
    }

    /// Why nothing matched, the words before and after the normalized host (the server writes
    /// them around the host's bytes, `ClipAPI`'s hot routes).
    public static func noMatchReason(hostHasExperiences: Bool) -> (before: StaticString, after: StaticString) {
        hostHasExperiences
            ? ("no active experience on ", " covers this URL, and no clip with a default experience is associated with the host")
            : ("no experience is registered on ", " and no clip with a default experience is associated with it")
    }

    /// The answer for a URL that cannot be normalized (not https, bad host, …): no match, and why
    /// (docs/rules.md#url-normalization: resolve answers "no match" for other schemes).
    public static func unresolvable(_ invocationURL: String, problem: NormalizedURL.Problem) -> Resolution {
        Resolution(invocationURL: invocationURL, match: nil, reason: problem.message, candidates: [], notes: [])
    }

    /// Whether an invocation URL that does not normalize gets "no match" rather than an input
    /// error (docs/rules.md#url-normalization): a URL that no registered URL can be (another scheme,
    /// as the design says; user information, another port, a host the registry never holds)
    /// matches nothing, while text that is not an absolute URL at all (no scheme, no host, a host
    /// with a character the WHATWG URL Standard forbids in a domain, spaces or controls, a lone
    /// `%`, too long) is invalid input.
    public static func isNoMatch(_ problem: NormalizedURL.Problem) -> Bool {
        switch problem {
        case .scheme, .userinfo, .port: true
        case .host(.empty): false
        case .host(.invalidCharacter(let label)): !label.unicodeScalars.contains(where: isForbiddenInDomain)
        case .host(.notLetterDigitHyphen(let label, let scalar)), .host(.disallowedCharacter(let label, let scalar)):
            !isForbiddenInDomain(scalar) && !label.unicodeScalars.contains(where: isForbiddenInDomain)
        case .host: true
        default: false
        }
    }

    /// A forbidden domain code point (WHATWG URL Standard, "host parsing"): the host parser fails on it.
    static func isForbiddenInDomain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F || #"#%/:<>?@[\]^|"#.unicodeScalars.contains(scalar)
    }

    /// The locale whose language comes first in `preferences`, else the first locale in order.
    static func chooseLocale(_ locales: [String], preferences: [Language]) -> String? {
        let sorted = locales.sorted()
        for language in preferences {
            if let locale = sorted.first(where: { Language(tag: $0) == language }) { return locale }
        }
        return sorted.first
    }
}

extension Resolution {
    /// The `experience` member of an advanced match: the card in `language`. Its members: `id`,
    /// `url`, `clip`, the fields `inAnswer` in `ExperienceField.all` order (`language` the card's,
    /// followed by `title` and `subtitle`; a field left unset left out), `version`. ExperienceIndex's
    /// `writeAnswer` writes the same from the arena, ClipWire's `ResolutionJSON` reads it.
    public static func experienceJSON(_ e: AdvancedExperience, language: Language) -> JSONValue {
        let card = e.localizations[language] ?? e.defaultCard
        var members: [(key: String, value: JSONValue)] = [
            (key: "id", value: .integer(e.id)), (key: "url", value: .string(e.url.canonical)),
            (key: "clip", value: .string(e.clip.rawValue)),
        ]
        for (position, field) in ExperienceField.all.enumerated() where field.inAnswer {
            if position == ExperienceField.languagePosition {
                members.append((key: field.name, value: .string(language.tag)))
                members.append((key: "title", value: .string(card.title)))
                members.append((key: "subtitle", value: .string(card.subtitle)))
            } else if let value = field.value(of: e).json(field) {
                members.append((key: field.name, value: value))
            }
        }
        members.append((key: "version", value: .integer(Int64(e.version))))
        return .object(members)
    }

    /// The same bytes as `JSONWriter.bytes(json(explain: false))` for an advanced match with no
    /// notes, from the experience member already rendered (`experienceJSON`): the server keeps
    /// those, so that answering costs one string escape and a copy.
    public static func advancedAnswerBytes(invocationURL: String, renderedExperience: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(renderedExperience.count + invocationURL.utf8.count + 64)
        out.append(contentsOf: #"{"matched":"advanced","invocationURL":"#.utf8)
        JSONWriter.write(.string(invocationURL), into: &out)
        out.append(contentsOf: #","experience":"#.utf8)
        out.append(contentsOf: renderedExperience)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The resolve answer (api/openapi.yaml), for `clipctl resolve --json` and `GET /v1/resolve` alike.
    public func json(explain: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        switch match {
        case .advanced(let e, let language):
            members.append((key: "matched", value: "advanced"))
            members.append((key: "invocationURL", value: .string(invocationURL)))
            members.append((key: "experience", value: Self.experienceJSON(e, language: language)))
        case .defaultExperience(let fallback, let locale):
            let localization = locale.flatMap { fallback.experience.localizations[$0] }
            members.append((key: "matched", value: "default"))
            members.append((key: "invocationURL", value: .string(invocationURL)))
            members.append(
                (
                    key: "experience",
                    value: .object([
                        "clip": .string(fallback.experience.clip.rawValue),
                        "action": .string(fallback.experience.action.rawValue),
                        "locale": locale.map(JSONValue.string),
                        "title": fallback.appName.isEmpty ? nil : .string(fallback.appName),
                        "subtitle": localization.map { .string($0.subtitle) },
                        "headerImage": localization?.headerImage.map(JSONValue.string),
                    ])
                ))
        case nil:
            members.append((key: "matched", value: .null))
            members.append((key: "invocationURL", value: .string(invocationURL)))
            members.append((key: "reason", value: .string(reason ?? "no match")))
        }
        if !notes.isEmpty { members.append((key: "notes", value: .array(notes.map(JSONValue.string)))) }
        if explain {
            members.append(
                (
                    key: "explanation",
                    value: .array(
                        candidates.map { c in
                            .object([
                                "id": .integer(c.id),
                                "url": .string(c.url),
                                "status": .string(c.status.rawValue),
                                "outcome": .string(c.outcome.rawValue),
                                "detail": .string(c.detail),
                                "nearMiss": c.nearMiss.map(JSONValue.string),
                            ])
                        })
                ))
        }
        return .object(members)
    }
}
