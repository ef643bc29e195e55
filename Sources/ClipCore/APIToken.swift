/// An API token as the registry lists it (never its secret): admin tokens manage everything;
/// team tokens only their team's objects (docs/rules.md, tenancy).
public struct APIToken: Sendable, Equatable {
    public let id: Int64
    public let name: String
    /// nil for an admin token.
    public let team: TeamID?
    public let createdAt: String
    public let lastUsedAt: String?
    public let revokedAt: String?

    public init(id: Int64, name: String, team: TeamID?, createdAt: String, lastUsedAt: String? = nil, revokedAt: String? = nil) {
        self.id = id
        self.name = name
        self.team = team
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}
