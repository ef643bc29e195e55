public import ClipCore
public import ClipStore

/// One operation's access to the registry, as one caller: the store and the tenancy rules applied
/// to what the operation reads (docs/rules.md#tenancy).
public struct Session {
    public let registry: Registry
    public let caller: Caller

    public init(registry: Registry, caller: Caller) {
        self.registry = registry
        self.caller = caller
    }

    /// Checks `rule` for this caller; the layer calls it before every operation.
    public func admit(_ rule: CallerRule) throws(CallerRefusal) {
        switch (rule, caller) {
        case (.open, _), (_, .local), (.token, .admin), (.token, .team), (.admin, .admin): return
        case (_, .anyone): throw .unauthenticated("this route needs Authorization: Bearer TOKEN")
        case (.admin, .team): throw .forbidden("this route needs an admin token")
        }
    }

    /// A team token sees only its team's objects: another team's is not found, so that its
    /// existence is not told (docs/rules.md#tenancy).
    public func checkVisible(team: TeamID, _ what: String) throws(RegistryError) {
        switch caller {
        case .local, .admin: return
        case .team(let own, _) where own == team: return
        case .team, .anyone: throw RegistryError.notFound(what)
        }
    }
}
