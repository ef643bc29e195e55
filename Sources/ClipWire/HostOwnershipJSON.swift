public import ClipCore
public import StrictJSON

/// Who holds a host (HostOwnership): `{host, owner, teams: [{team, role, origin}]}`, with the
/// notes of a write that changed it.
public enum HostOwnershipJSON {
    public static func ownership(_ o: HostOwnership, notes: [WriteNote] = []) -> JSONValue {
        CatalogJSON.withNotes(
            .object([
                "host": .string(o.host),
                "owner": o.owner.map { .string($0.rawValue) } ?? .null,
                "teams": .array(
                    o.holders.map { h in
                        .object(["team": .string(h.team.rawValue), "role": .string(h.role.rawValue), "origin": .string(h.origin.rawValue)])
                    }),
            ]), notes)
    }

    /// An ownership changed by a write, with its notes (always present, possibly empty: the
    /// answer of `clipctl domain claim|share|unshare`).
    public static func assigned(_ outcome: WriteOutcome<HostOwnership>) -> JSONValue {
        guard case .object(var members) = ownership(outcome.value) else { return .null }
        members.append((key: "notes", value: CatalogJSON.notes(outcome.notes)))
        return .object(members)
    }

    public static func ownership(json value: JSONValue) throws(WireError) -> HostOwnership {
        let r = WireReader(value, "host ownership")
        var holders: [HostOwnership.Holder] = []
        for entry in value["teams"]?.arrayValue ?? [] {
            let h = WireReader(entry, "holder")
            guard let role = HostOwnership.Role(rawValue: try h.string("role")),
                let origin = HostOwnership.Origin(rawValue: try h.string("origin"))
            else { throw WireError("host ownership: unknown role or origin") }
            holders.append(.init(team: try h.team("team"), role: role, origin: origin))
        }
        return HostOwnership(host: try r.string("host"), holders: holders)
    }
}
