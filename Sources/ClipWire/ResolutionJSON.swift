public import ClipCore
public import StrictJSON

/// The answer to "which experience does this URL get", as `clipctl resolve` prints it: what
/// `Resolution.json(explain:)` (ClipCore) says, read back. `GET /v1/resolve` answers it too, and
/// its fast path (ClipStore's LiveIndex) writes the same bytes itself.
public struct ResolveAnswer: Sendable, Equatable {
    /// The card of an advanced experience, in the language chosen.
    public struct AdvancedCard: Sendable, Equatable {
        /// The experience as the answer shows it (`Resolution.experienceJSON`): id, URL, clip,
        /// version, the fields of the answer, and its one card, in `language`.
        public var experience: AdvancedExperience
        public var language: Language
        public var id: Int64 { experience.id }
        public var url: String { experience.url.canonical }
        public var clip: AppID { experience.clip }
        public var action: Action { experience.action }
        public var title: String { experience.defaultCard.title }
        public var subtitle: String { experience.defaultCard.subtitle }
        public var version: Int { experience.version }
    }

    /// The card of a clip's default experience; `title` is the app's name, when it has one.
    public struct DefaultCard: Sendable, Equatable {
        public var clip: AppID
        public var action: Action
        public var locale: String?
        public var title: String?
        public var subtitle: String?
        public var headerImage: String?
    }

    public enum Match: Sendable, Equatable {
        case advanced(AdvancedCard)
        case defaultExperience(DefaultCard)
    }

    /// One candidate of the host and why it won or lost (`--explain`).
    public struct Candidate: Sendable, Equatable {
        public var id: Int64
        public var url: String
        public var status: ExperienceStatus
        public var outcome: CandidateReport.Outcome
        public var detail: String
        public var nearMiss: String?
    }

    public var invocationURL: String
    /// nil: nothing matched, for `reason`.
    public var match: Match?
    public var reason: String?
    public var notes: [String]
    /// Present when an explanation was asked for.
    public var explanation: [Candidate]?
}

public enum ResolutionJSON {
    /// The answer in the form `Resolution.json(explain:)` writes (the experience by `Resolution.experienceJSON` itself).
    public static func json(_ answer: ResolveAnswer) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        switch answer.match {
        case .advanced(let e):
            members.append((key: "matched", value: "advanced"))
            members.append((key: "invocationURL", value: .string(answer.invocationURL)))
            members.append(
                (
                    key: "experience",
                    value: Resolution.experienceJSON(e.experience, language: e.language)
                ))
        case .defaultExperience(let d):
            members.append((key: "matched", value: "default"))
            members.append((key: "invocationURL", value: .string(answer.invocationURL)))
            members.append(
                (
                    key: "experience",
                    value: .object([
                        "clip": .string(d.clip.rawValue), "action": .string(d.action.rawValue), "locale": d.locale.map(JSONValue.string),
                        "title": d.title.map(JSONValue.string), "subtitle": d.subtitle.map(JSONValue.string),
                        "headerImage": d.headerImage.map(JSONValue.string),
                    ])
                ))
        case nil:
            members.append((key: "matched", value: .null))
            members.append((key: "invocationURL", value: .string(answer.invocationURL)))
            members.append((key: "reason", value: .string(answer.reason ?? "no match")))
        }
        if !answer.notes.isEmpty { members.append((key: "notes", value: .array(answer.notes.map(JSONValue.string)))) }
        if let explanation = answer.explanation {
            members.append(
                (
                    key: "explanation",
                    value: .array(
                        explanation.map { c in
                            .object([
                                "id": .integer(c.id), "url": .string(c.url), "status": .string(c.status.rawValue),
                                "outcome": .string(c.outcome.rawValue), "detail": .string(c.detail),
                                "nearMiss": c.nearMiss.map(JSONValue.string),
                            ])
                        })
                ))
        }
        return .object(members)
    }

    /// Reads an answer of `GET /v1/resolve` (200), or the resolution `clipctl` encoded itself.
    public static func answer(json value: JSONValue) throws(WireError) -> ResolveAnswer {
        let r = WireReader(value, "resolution")
        let match: ResolveAnswer.Match?
        var reason: String?
        switch value["matched"] {
        case .string("advanced")?:
            match = .advanced(try advancedCard(WireReader(value["experience"] ?? .null, "resolution experience")))
        case .string("default")?:
            let d = WireReader(value["experience"] ?? .null, "resolution experience")
            match = .defaultExperience(
                ResolveAnswer.DefaultCard(
                    clip: try d.clip("clip"), action: try d.value("action", as: Action.self), locale: try d.optionalString("locale"),
                    title: try d.optionalString("title"), subtitle: try d.optionalString("subtitle"),
                    headerImage: try d.optionalString("headerImage")))
        case .null?:
            match = nil
            reason = try r.string("reason")
        default:
            throw r.fail("matched")
        }
        let notes = value["notes"] == nil ? [] : try r.strings("notes")
        var explanation: [ResolveAnswer.Candidate]?
        if let items = value["explanation"] {
            guard let items = items.arrayValue else { throw r.fail("explanation") }
            explanation = try items.map { (item) throws(WireError) in
                let c = WireReader(item, "resolution candidate")
                return ResolveAnswer.Candidate(
                    id: try c.int64("id"), url: try c.string("url"), status: try c.value("status", as: ExperienceStatus.self),
                    outcome: try c.value("outcome", as: CandidateReport.Outcome.self), detail: try c.string("detail"),
                    nearMiss: try c.optionalString("nearMiss"))
            }
        }
        return ResolveAnswer(
            invocationURL: try r.string("invocationURL"), match: match, reason: reason, notes: notes,
            explanation: explanation)
    }

    /// The experience member of an advanced answer, read as `Resolution.experienceJSON` writes it.
    static func advancedCard(_ e: WireReader) throws(WireError) -> ResolveAnswer.AdvancedCard {
        let id = try e.int64("id")
        guard let url = try? NormalizedURL(canonical: try e.string("url")) else { throw e.fail("url") }
        let clip = try e.clip("clip")
        var experience = AdvancedExperience(id: id, url: url, clip: clip, localizations: [:])
        for (position, field) in ExperienceField.all.enumerated() where field.inAnswer {
            let value: FieldValue
            switch (field.kind, e.value[field.name]) {
            case (_, nil) where field.isOptional, (_, .null?) where field.isOptional: value = .none
            case (.enumeration, .string(let text)?):
                guard let n = field.cases.firstIndex(of: text) else { throw e.fail(field.name) }
                value = .code(n)
            case (.flag, .bool(let flag)?): value = .code(flag ? 1 : 0)
            case (.text, .string(let text)?): value = .text(text)
            case (.json, let json?): value = .json(json)
            default: throw e.fail(field.name)
            }
            field.set(value, in: &experience)
            if position == ExperienceField.languagePosition {
                experience.localizations[experience.defaultLanguage] = CardText(
                    title: try e.string("title"), subtitle: try e.string("subtitle"))
            }
        }
        experience.version = try e.int("version")
        return ResolveAnswer.AdvancedCard(experience: experience, language: experience.defaultLanguage)
    }

    /// The resolution a 404 problem of `GET /v1/resolve` carries (its `detail` says the reason), or
    /// nil when it carries none (another 404: the route itself missing).
    public static func miss(problem: JSONValue) throws(WireError) -> ResolveAnswer? {
        guard let invocationURL = problem["invocationURL"] else { return nil }
        let detail = problem["detail"]?.stringValue ?? ""
        var members: [(key: String, value: JSONValue)] = [
            (key: "matched", value: .null), (key: "invocationURL", value: invocationURL),
            (key: "reason", value: .string(detail.hasPrefix("no match: ") ? String(detail.dropFirst(10)) : detail)),
        ]
        for key in ["notes", "explanation"] { if let v = problem[key] { members.append((key: key, value: v)) } }
        return try answer(json: .object(members))
    }
}
