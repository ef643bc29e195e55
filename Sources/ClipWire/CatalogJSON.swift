public import AppleFormats
public import ClipCore
public import StrictJSON

/// The JSON forms of apps, clips, domain associations, default experiences, applinks, banners
/// and write results, shared by the HTTP API and `clipctl` (local and remote alike), so that
/// both print the same thing; with the readers a remote `clipctl` needs for the server's answers.
public enum CatalogJSON {
    // MARK: Apps

    public static func app(_ app: App) -> JSONValue {
        .object([
            "bundleId": .string(app.bundleID.rawValue), "team": .string(app.team.rawValue), "appId": .string(app.appID.rawValue),
            "appStoreId": app.appStoreID.map { .string($0.rawValue) } ?? .null, "name": .string(app.name),
            "version": .integer(Int64(app.version)),
        ])
    }

    public static func app(json value: JSONValue) throws(WireError) -> App {
        let r = WireReader(value, "app")
        return App(
            bundleID: try r.bundle("bundleId"), team: try r.team("team"), appStoreID: try r.optionalAppStoreID("appStoreId"),
            name: try r.string("name"), version: try r.int("version"))
    }

    /// An app saved by `PUT /v1/apps/{bundleId}` (`clipctl app set`): the app, with the notes of
    /// what the save created or changed.
    public static func savedApp(_ outcome: WriteOutcome<App>) -> JSONValue {
        withNotes(app(outcome.value), outcome.notes)
    }

    // MARK: Clips and domain associations

    public static func clip(_ clip: Clip, notes: [WriteNote]? = nil) -> JSONValue {
        .object([
            "clip": .string(clip.appID.rawValue), "bundleId": .string(clip.appID.bundleID.rawValue),
            "app": .string(clip.appBundleID.rawValue),
            "team": .string(clip.appID.team.rawValue), "hosts": .array(clip.hosts.map(JSONValue.string)),
            "notes": notes.map(Self.notes),
        ])
    }

    public static func clip(json value: JSONValue) throws(WireError) -> Clip {
        let r = WireReader(value, "clip")
        return Clip(appID: try r.clip("clip"), appBundleID: try r.bundle("app"), hosts: try r.strings("hosts"))
    }

    public static func association(_ a: DomainAssociation) -> JSONValue {
        .object(["clip": .string(a.clip.rawValue), "host": .string(a.host)])
    }

    /// `clipctl domain list --json`'s entry: `{host, clip}`.
    public static func listedAssociation(_ a: DomainAssociation) -> JSONValue {
        .object(["host": .string(a.host), "clip": .string(a.clip.rawValue)])
    }

    public static func association(json value: JSONValue) throws(WireError) -> DomainAssociation {
        let r = WireReader(value, "domain association")
        return DomainAssociation(clip: try r.clip("clip"), host: try r.string("host"))
    }

    // MARK: Default experiences

    public static func defaultExperience(_ d: DefaultExperience) -> JSONValue {
        .object([
            "clip": .string(d.clip.rawValue),
            "action": .string(d.action.rawValue),
            "localizations": .object(
                d.localizations.keys.sorted().map { locale in
                    let l = d.localizations[locale]!
                    return (
                        key: locale, value: .object(["subtitle": .string(l.subtitle), "headerImage": l.headerImage.map(JSONValue.string)])
                    )
                }),
            "version": .integer(Int64(d.version)),
        ])
    }

    public static func defaultExperience(json value: JSONValue) throws(WireError) -> DefaultExperience {
        let r = WireReader(value, "default experience")
        var localizations: [String: DefaultExperience.Localization] = [:]
        for (locale, entry) in value["localizations"]?.objectMembers ?? [] {
            let l = WireReader(entry, "localization \(locale)")
            localizations[locale] = .init(subtitle: try l.string("subtitle"), headerImage: try l.optionalString("headerImage"))
        }
        guard let action = Action(rawValue: try r.string("action")) else { throw WireError("default experience: unknown action") }
        return DefaultExperience(clip: try r.clip("clip"), action: action, localizations: localizations, version: try r.int("version"))
    }

    // MARK: Applinks

    /// One app's `applinks` details on a host, as the AASA file lists it.
    public static func applinks(_ d: ApplinksDetails) -> JSONValue {
        .object(["appIDs": .array([.string(d.app.rawValue)]), "components": d.components, "defaults": d.defaults])
    }

    public static func applinksSettings(_ s: ApplinksHostSettings) -> JSONValue {
        .object(["defaults": s.defaults ?? .null, "substitutionVariables": s.substitutionVariables ?? .null])
    }

    /// The answer to turning applinks-from-experiences on or off: the experience URLs the
    /// generated details do not give to their app.
    public static func applinksGeneration(
        host: String, enabled: Bool, unmatched: [ExperienceApplinks.Miss],
        notes: [WriteNote] = []
    ) -> JSONValue {
        withNotes(.object(["host": .string(host), "fromExperiences": .bool(enabled), "unmatched": .array(unmatched.map(miss))]), notes)
    }

    public static func applinksGeneration(json value: JSONValue) throws(WireError) -> WriteOutcome<[ExperienceApplinks.Miss]> {
        WriteOutcome(try (value["unmatched"]?.arrayValue ?? []).map(miss(json:)), notes: notes(json: value))
    }

    public static func miss(_ m: ExperienceApplinks.Miss) -> JSONValue {
        .object([
            "url": .string(m.url), "app": .string(m.app.rawValue), "decision": .string(m.result.decision.rawValue),
            "rule": .string(m.result.rule),
        ])
    }

    public static func applinks(json value: JSONValue, host: String) throws(WireError) -> ApplinksDetails {
        guard let app = value["appIDs"]?.arrayValue?.first?.stringValue, let id = try? AppID(app),
            let components = value["components"]
        else {
            throw WireError("applinks details of \(host): appIDs or components missing")
        }
        // JSONValue is nil-literal-expressible: spell out Optional.none, not `nil`.
        let defaults = value["defaults"].flatMap { $0.isNull ? JSONValue?.none : .some($0) }
        return ApplinksDetails(app: id, components: components, defaults: defaults)
    }

    public static func miss(json value: JSONValue) throws(WireError) -> ExperienceApplinks.Miss {
        let r = WireReader(value, "unmatched experience URL")
        guard let decision = AASAEvaluator.Decision(rawValue: try r.string("decision")) else { throw r.fail("decision") }
        return ExperienceApplinks.Miss(
            app: try r.clip("app"), url: try r.string("url"),
            result: .init(decision: decision, rule: try r.string("rule")))
    }

    // MARK: Banner

    public static func banner(_ b: PageBanner) -> JSONValue {
        .object([
            "url": .string(b.pageURL), "clip": .string(b.clip.rawValue), "experience": b.experienceID.map(JSONValue.integer),
            "content": .string(b.banner.content), "metaTag": .string(b.banner.metaTag), "notes": .array(b.notes.map(JSONValue.string)),
        ])
    }

    public static func banner(json value: JSONValue) throws(WireError) -> PageBanner {
        let r = WireReader(value, "banner")
        return PageBanner(
            banner: SmartBanner.Banner(content: try r.string("content"), metaTag: try r.string("metaTag")),
            clip: try r.clip("clip"), pageURL: try r.string("url"), experienceID: try r.optionalInt64("experience"),
            notes: try r.strings("notes"))
    }

    // MARK: Experiences (the form is ExperienceJSON's; these read the API's answers back)

    /// An experience in its full form (`ExperienceJSON.full`), read back.
    public static func experience(json value: JSONValue) throws(WireError) -> AdvancedExperience {
        guard case .object(let members) = value else { throw WireError("experience: not an object") }
        let answerOnly = ExperienceJSON.readOnlyFields.union(["notes", "warnings"])
        var e: AdvancedExperience
        do { e = try ExperienceJSON.decode(.object(members.filter { !answerOnly.contains($0.key) })).experience } catch {
            throw WireError("experience: \(error.errors.map(\.description).joined(separator: "; "))")
        }
        let r = WireReader(value, "experience")
        e.id = try r.int64("id")
        e.version = try r.int("version")
        e.createdAt = try r.string("createdAt")
        e.updatedAt = try r.string("updatedAt")
        return e
    }

    /// A write's answer (`written`) read back; `created` is the caller's to say (201 or not).
    public static func written(json value: JSONValue, created: Bool) throws(WireError) -> WriteOutcome<AdvancedExperience> {
        WriteOutcome(
            try experience(json: value), created: created, notes: notes(json: value),
            warnings: (value["warnings"]?.arrayValue ?? []).compactMap(ProblemJSON.fieldError(json:)))
    }

    // MARK: Write results

    /// A write's notes, as their text (WriteNote.text).
    public static func notes(_ notes: [WriteNote]) -> JSONValue { .array(notes.map { .string($0.text) }) }

    /// The notes of an answer (none when it has no `notes` member).
    public static func notes(json value: JSONValue) -> [WriteNote] {
        (value["notes"]?.arrayValue ?? []).compactMap(\.stringValue).map(WriteNote.init(text:))
    }

    /// `object` with `notes` appended when there are any.
    public static func withNotes(_ object: JSONValue, _ notes: [WriteNote]) -> JSONValue {
        guard !notes.isEmpty, case .object(var members) = object else { return object }
        members.append((key: "notes", value: Self.notes(notes)))
        return .object(members)
    }

    /// An experience as a write answers it: the full form plus `notes` and `warnings` when any.
    public static func written(
        _ e: AdvancedExperience, notes: [WriteNote], warnings: [FieldError], state: ExperienceState? = nil
    ) -> JSONValue {
        guard case .object(var members) = ExperienceJSON.full(e, state: state) else { return .null }
        if !notes.isEmpty { members.append((key: "notes", value: Self.notes(notes))) }
        if !warnings.isEmpty { members.append((key: "warnings", value: .array(warnings.map(ProblemJSON.fieldError)))) }
        return .object(members)
    }

    public static func written(_ outcome: WriteOutcome<AdvancedExperience>, state: ExperienceState? = nil) -> JSONValue {
        written(outcome.value, notes: outcome.notes, warnings: outcome.warnings, state: state)
    }

    /// An answer's `state` member (`ExperienceJSON.full`), when it has one this version knows.
    public static func state(json value: JSONValue) -> ExperienceState? { value["state"]?.stringValue.flatMap(ExperienceState.init) }
}
