public import ClipCore
import SQLiteDB
import StrictJSON

/// Hosts belong to teams (HostOwnership states the rule; this is its one enforcement point:
/// every write that puts a team's object on a host calls `hold`, inside its transaction).
extension Registry {
    func loadOwnership(_ host: String) throws -> HostOwnership {
        let holders = try db.query("SELECT team_id, role, origin FROM host_team WHERE host = ?", [.text(host)]).map { row in
            HostOwnership.Holder(
                team: try TeamID(try row.string("team_id")),
                role: HostOwnership.Role(rawValue: try row.string("role")) ?? .shared,
                origin: HostOwnership.Origin(rawValue: try row.string("origin")) ?? .migration)
        }
        return HostOwnership(host: host, holders: holders)
    }

    /// Inside a write: refuses `team`'s object on `host` unless the team holds it; a free host
    /// becomes the team's. Returns a note when it did.
    func hold(_ host: String, for team: TeamID) throws -> [WriteNote] {
        let ownership = try loadOwnership(host)
        do { try ownership.check(team) } catch { throw RegistryError.hostRefused(error) }
        guard ownership.isFree else { return [] }
        try insertHolder(host, team, role: .owner, origin: .firstUse)
        return [.hostOwned(host: host, team: team)]
    }

    /// Inside a write: refuses a host-wide change by `team` (nil: an administrator) unless it
    /// owns the host; a free host becomes the team's. Returns a note when it did.
    @discardableResult
    func govern(_ host: String, by team: TeamID?) throws -> [WriteNote] {
        let ownership = try loadOwnership(host)
        do { try ownership.checkGovernance(by: team) } catch { throw RegistryError.hostRefused(error) }
        guard let team, ownership.isFree else { return [] }
        try insertHolder(host, team, role: .owner, origin: .firstUse)
        return [.hostOwned(host: host, team: team)]
    }

    private func insertHolder(_ host: String, _ team: TeamID, role: HostOwnership.Role, origin: HostOwnership.Origin) throws {
        try db.execute(
            "INSERT INTO host_team(host, team_id, role, origin, created_at) VALUES (?, ?, ?, ?, ?)",
            [.text(host), .text(team.rawValue), .text(role.rawValue), .text(origin.rawValue), .text(timestamp())])
        try recordChange(
            entity: .host, id: host, action: origin == .share ? .share : .claim, before: nil,
            after: ["team": .string(team.rawValue), "role": .string(role.rawValue), "origin": .string(origin.rawValue)])
    }

    /// Who holds each host, sorted by host; only the hosts `team` holds when given.
    public func hostOwnerships(host rawHost: String? = nil, team: TeamID? = nil) throws(RegistryError) -> [HostOwnership] {
        let host = try rawHost.map { (h) throws(RegistryError) in try Self.normalizeHost(h) }
        return try guarded {
            try db.read {
                let hosts = try db.query(
                    """
                    SELECT DISTINCT host FROM host_team WHERE (?1 IS NULL OR host = ?1)
                      AND (?2 IS NULL OR host IN (SELECT host FROM host_team WHERE team_id = ?2)) ORDER BY host
                    """, [.text(host), .text(team?.rawValue)]
                ).map { try $0.string("host") }
                return try hosts.map(loadOwnership)
            }
        }
    }

    /// Gives `host` to `team` (an administrator's act). The previous owner loses it, which is
    /// refused while it still has objects there (remove them, or share the host with it).
    @discardableResult
    public func claimHost(_ rawHost: String, team: TeamID) throws(RegistryError) -> WriteOutcome<HostOwnership> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            try requireTeam(team)
            let before = try loadOwnership(host)
            if before.owner == team { return WriteOutcome(before) }
            var notes: [WriteNote] = []
            if let previous = before.owner {
                let uses = try objects(of: previous, on: host)
                guard uses.isEmpty else {
                    throw RegistryError.conflict(
                        "team \(previous.rawValue) still has \(uses.joined(separator: ", ")) on \(host); remove them first, or share the host with both teams (clipctl domain share \(host) --team \(team.rawValue))"
                    )
                }
                try db.execute("DELETE FROM host_team WHERE host = ? AND team_id = ?", [.text(host), .text(previous.rawValue)])
                try recordChange(
                    entity: .host, id: host, action: .release, before: ["team": .string(previous.rawValue), "role": "owner"], after: nil)
                notes.append(.hostReleased(host: host, team: previous))
            }
            try db.execute("DELETE FROM host_team WHERE host = ? AND team_id = ?", [.text(host), .text(team.rawValue)])
            try insertHolder(host, team, role: .owner, origin: .claim)
            notes.append(.hostOwned(host: host, team: team))
            return WriteOutcome(try loadOwnership(host), notes: notes)
        }
    }

    /// Lets `team` share `host` (an administrator's act); confirms a sharing kept from before
    /// ownership existed. A free host is shared without an owner.
    @discardableResult
    public func shareHost(_ rawHost: String, team: TeamID) throws(RegistryError) -> WriteOutcome<HostOwnership> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            try requireTeam(team)
            let before = try loadOwnership(host)
            if let held = before.holders.first(where: { $0.team == team }) {
                guard held.origin == .migration else { return WriteOutcome(before) }
                try db.execute("UPDATE host_team SET origin = 'share' WHERE host = ? AND team_id = ?", [.text(host), .text(team.rawValue)])
                try recordChange(
                    entity: .host, id: host, action: .share, before: ["team": .string(team.rawValue), "origin": "migration"],
                    after: ["team": .string(team.rawValue), "origin": "share"])
                return WriteOutcome(try loadOwnership(host), notes: [.hostShareConfirmed(host: host, team: team)])
            }
            try insertHolder(host, team, role: .shared, origin: .share)
            return WriteOutcome(try loadOwnership(host), created: true, notes: [.hostShared(host: host, team: team)])
        }
    }

    /// Ends `team`'s share of `host` (an administrator's act); refused while it has objects there,
    /// and for the owner (claim the host for another team instead).
    @discardableResult
    public func unshareHost(_ rawHost: String, team: TeamID) throws(RegistryError) -> WriteOutcome<HostOwnership> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let before = try loadOwnership(host)
            guard let held = before.holders.first(where: { $0.team == team }) else {
                throw RegistryError.notFound("team \(team.rawValue)'s share of \(host)")
            }
            guard held.role == .shared else {
                throw RegistryError.conflict(
                    "team \(team.rawValue) owns \(host); give it to another team with clipctl domain claim \(host) --team T")
            }
            let uses = try objects(of: team, on: host)
            guard uses.isEmpty else {
                throw RegistryError.conflict(
                    "team \(team.rawValue) still has \(uses.joined(separator: ", ")) on \(host); remove them first")
            }
            try db.execute("DELETE FROM host_team WHERE host = ? AND team_id = ?", [.text(host), .text(team.rawValue)])
            try recordChange(
                entity: .host, id: host, action: .unshare, before: ["team": .string(team.rawValue), "role": "shared"], after: nil)
            return WriteOutcome(try loadOwnership(host), notes: [.hostShareEnded(host: host, team: team)])
        }
    }

    private func requireTeam(_ team: TeamID) throws {
        guard try !db.query("SELECT 1 FROM team WHERE id = ?", [.text(team.rawValue)]).isEmpty else {
            throw RegistryError.notFound("team \(team.rawValue)")
        }
    }

    /// Every team object that sits on a host, as `uses(kind, host, team_id)`: what HostOwnership
    /// governs (an experience not removed, an association, an applinks rule, webcredentials).
    static let hostUses = """
        WITH uses(kind, host, team_id) AS (
            SELECT 'association', d.host, a.team_id FROM domain_association d JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
            UNION ALL SELECT 'experience', e.host, a.team_id FROM advanced_experience e JOIN clip c ON c.bundle_id = e.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id WHERE e.removed_at IS NULL
            UNION ALL SELECT 'applinks rule', x.host, a.team_id FROM applinks_details x JOIN app a ON a.bundle_id = x.app_bundle_id
            UNION ALL SELECT 'webcredentials entry', w.host, a.team_id FROM webcredentials w JOIN app a ON a.bundle_id = w.app_bundle_id)
        """

    /// What `team` has on `host`, counted by kind ("2 experience(s)", …); empty when nothing.
    func objects(of team: TeamID, on host: String) throws -> [String] {
        try db.query(
            Self.hostUses + " SELECT kind, count(*) AS n FROM uses WHERE host = ? AND team_id = ? GROUP BY kind ORDER BY kind",
            [.text(host), .text(team.rawValue)]
        ).map { "\(try $0.int("n")) \(try $0.string("kind"))(s)" }
    }
}
