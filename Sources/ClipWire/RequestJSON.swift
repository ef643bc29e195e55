public import ClipCore
public import StrictJSON

/// The request bodies a client sends (a remote `clipctl`; the routes read them with FieldReader).
public enum RequestJSON {
    /// `PUT /v1/clips/{bundleId}`.
    public static func saveClip(team: TeamID) -> JSONValue { .object(["team": .string(team.rawValue)]) }

    /// `PATCH /v1/experiences/{id}` of the status alone (activate, deactivate).
    public static func setStatus(_ status: ExperienceStatus) -> JSONValue { .object(["status": .string(status.rawValue)]) }

    /// `POST /v1/tokens`.
    public static func createToken(name: String, team: TeamID?) -> JSONValue {
        .object(["name": .string(name), "team": team.map { .string($0.rawValue) }])
    }
}
