public import ClipCore
public import StrictJSON

/// API tokens as listed (never their secret), and a new token with its secret, shown once.
public enum TokenJSON {
    public static func token(_ t: APIToken) -> JSONValue {
        .object([
            "id": .integer(t.id), "name": .string(t.name), "scope": .string(t.team.map { "team:\($0.rawValue)" } ?? "admin"),
            "team": t.team.map { .string($0.rawValue) }, "createdAt": .string(t.createdAt),
            "lastUsedAt": t.lastUsedAt.map(JSONValue.string), "revokedAt": t.revokedAt.map(JSONValue.string),
        ])
    }

    public static func created(_ t: APIToken, secret: String) -> JSONValue {
        guard case .object(var members) = token(t) else { return .null }
        members.append((key: "secret", value: .string(secret)))
        return .object(members)
    }

    public static func token(json value: JSONValue) throws(WireError) -> APIToken {
        let r = WireReader(value, "token")
        return APIToken(
            id: try r.int64("id"), name: try r.string("name"), team: try r.optionalTeam("team"),
            createdAt: try r.string("createdAt"), lastUsedAt: try r.optionalString("lastUsedAt"),
            revokedAt: try r.optionalString("revokedAt"))
    }

    public static func created(json value: JSONValue) throws(WireError) -> (token: APIToken, secret: String) {
        (try token(json: value), try WireReader(value, "token").string("secret"))
    }
}
