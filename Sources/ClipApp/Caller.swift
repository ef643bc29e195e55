public import ClipCore

/// Who performs an operation (docs/rules.md#tenancy): anyone (public routes only), the owner of a
/// local database file (every team's objects), an admin token (every team's), or a team token (its
/// own team's only).
public enum Caller: Sendable, Equatable {
    /// A request without a token, on a public route.
    case anyone
    case local
    case admin(tokenID: Int64)
    case team(TeamID, tokenID: Int64)

    /// The one team a team token acts for; nil for callers that see every team.
    public var team: TeamID? { if case .team(let team, _) = self { team } else { nil } }
}

/// What an operation asks of its caller, applied by the layer before `run` (docs/application-layer.md#operations-and-bindings).
public enum CallerRule: Sendable, Equatable {
    /// Anyone, without a token: the public routes.
    case open
    /// Any token, admin or team; `run` scopes what a team sees through its `Session`.
    case token
    /// An admin token (or the local database's owner).
    case admin
}

/// An operation refused to its caller before it ran: no credentials (HTTP 401) or not enough (HTTP 403).
public enum CallerRefusal: Error, Equatable, CustomStringConvertible {
    case unauthenticated(String)
    case forbidden(String)

    public var description: String {
        switch self {
        case .unauthenticated(let message), .forbidden(let message): message
        }
    }
}
