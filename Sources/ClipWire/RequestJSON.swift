public import ClipCore
public import StrictJSON

/// The request bodies a client sends (a remote `clipctl`; the routes read them with FieldReader).
public enum RequestJSON {
    /// The body of `PUT /v1/apps/{bundleId}`: the team, and the App Store ID and name when they
    /// change (`appStoreID` .some(nil) clears the ID; nil leaves it).
    public static func saveApp(team: TeamID, appStoreID: AppStoreID??, name: String?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [(key: "team", value: .string(team.rawValue))]
        if let appStoreID { members.append((key: "appStoreId", value: appStoreID.map { .string($0.rawValue) } ?? .null)) }
        if let name { members.append((key: "name", value: .string(name))) }
        return .object(members)
    }

    /// The body of `PUT /v1/clips/{bundleId}/default-experience`: the action and a subtitle per locale.
    /// `headerImage`: the SHA-256 of an image the team has (`POST /v1/images`), for every localization.
    public static func setDefaultExperience(action: Action, subtitles: [String: String], headerImage: String? = nil) -> JSONValue {
        .object([
            "action": .string(action.rawValue),
            "localizations": .object(
                subtitles.sorted { $0.key < $1.key }.map { locale, subtitle in
                    var members: [(key: String, value: JSONValue)] = [(key: "subtitle", value: .string(subtitle))]
                    if let headerImage { members.append((key: "headerImage", value: .string(headerImage))) }
                    return (key: locale, value: .object(members))
                }),
        ])
    }

    /// `PUT /v1/clips/{bundleId}`.
    public static func saveClip(team: TeamID) -> JSONValue { .object(["team": .string(team.rawValue)]) }

    /// `PATCH /v1/experiences/{id}` of the status alone (activate, deactivate).
    public static func setStatus(_ status: ExperienceStatus) -> JSONValue { .object(["status": .string(status.rawValue)]) }

    /// `PUT /v1/domains/{host}/owner`.
    public static func claimHost(team: TeamID) -> JSONValue { .object(["team": .string(team.rawValue)]) }

    /// `PUT /v1/domains/{host}/applinks/{bundleId}`.
    public static func setApplinks(components: JSONValue, defaults: JSONValue?, position: Int?) -> JSONValue {
        .object(["components": components, "defaults": defaults, "position": position.map { .integer(Int64($0)) }])
    }

    /// `PUT /v1/domains/{host}/applinks-settings`: a merge (RFC 7396), nil leaves a member, JSON null clears it.
    public static func setApplinksSettings(defaults: JSONValue?, substitutionVariables: JSONValue?) -> JSONValue {
        .object(["defaults": defaults, "substitutionVariables": substitutionVariables])
    }

    /// `PUT /v1/domains/{host}/applinks-generation`.
    public static func setApplinksGeneration(_ enabled: Bool) -> JSONValue { .object(["fromExperiences": .bool(enabled)]) }

    /// `POST /v1/tokens`.
    public static func createToken(name: String, team: TeamID?) -> JSONValue {
        .object(["name": .string(name), "team": team.map { .string($0.rawValue) }])
    }

    public static func addWebhook(url: String, events: WebhookEventPatterns, team: TeamID?) -> JSONValue {
        .object([
            ("url", .string(url)), ("events", .array(events.patterns.map(JSONValue.string))),
            ("team", team.map { .string($0.rawValue) } ?? .null),
        ])
    }
}
