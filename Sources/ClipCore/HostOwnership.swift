import StrictJSON

/// Who may put things on a host (docs/rules.md#host-ownership).
///
/// A host's AASA lists every clip associated with it, offers its saved passwords to every app in
/// its `webcredentials`, and its experiences answer every invocation URL on it; so a host must
/// belong to a team, and another team must not be able to write there. The rule:
/// - a host nobody holds is taken by the first team that puts something on it (its owner);
/// - an administrator can give a host to a team (`claim`) or let further teams share it
///   (`share`, for agencies that truly serve several teams' clips on one host);
/// - a team's experience, association, applinks rule or webcredentials entry may be written on a
///   host only when that team holds it (owner or sharer); host-wide settings (applinks defaults,
///   substitution variables, generation) only by an administrator or the owner.
public struct HostOwnership: Sendable, Equatable {
    public enum Role: String, Sendable {
        case owner, shared
    }

    /// How a team came to hold the host.
    public enum Origin: String, Sendable {
        /// It was the first team to use the host.
        case firstUse = "first-use"
        /// An administrator gave it the host (`domain claim`).
        case claim
        /// An administrator let it share the host (`domain share`).
        case share
        /// It already used the host, beside other teams, when ownership was introduced
        /// (migration 0004): kept as it was, and reported by `doctor` until confirmed.
        case migration
    }

    public struct Holder: Sendable, Equatable {
        public let team: TeamID
        public let role: Role
        public let origin: Origin
        public init(team: TeamID, role: Role, origin: Origin) {
            self.team = team
            self.role = role
            self.origin = origin
        }
    }

    public let host: String
    /// Sorted by team.
    public let holders: [Holder]

    public init(host: String, holders: [Holder]) {
        self.host = host
        self.holders = holders.sorted { $0.team < $1.team }
    }

    /// Nobody holds the host yet: the first team to use it takes it.
    public var isFree: Bool { holders.isEmpty }
    public var owner: TeamID? { holders.first { $0.role == .owner }?.team }
    public var teams: [TeamID] { holders.map(\.team) }

    /// Whether `team` may put its own objects on the host (taking it when it is free).
    public func admits(_ team: TeamID) -> Bool { isFree || holders.contains { $0.team == team } }

    /// Whether `team` may change what the host's AASA says for everyone (its applinks defaults,
    /// substitution variables and generation): the owner only, or anyone when it is free.
    public func isGoverned(by team: TeamID) -> Bool { isFree || owner == team }

    /// Shared by more than one team, or held by teams that never confirmed it (pre-ownership
    /// data): `doctor` reports it.
    public var isCrossTeam: Bool { holders.count > 1 }

    /// A refused write, with what each audience may be told: a team learns only that the host is
    /// somebody else's; an administrator (or the local CLI) learns whose, and the fix.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The rule name of an import line refused for this reason.
        public static let rule = "host.owner"
        public let host: String
        public let team: TeamID?
        public let holders: [TeamID]
        /// Whether the write was a host-wide setting, which only the owner may change.
        public let hostWide: Bool

        public init(host: String, team: TeamID?, holders: [TeamID], hostWide: Bool) {
            self.host = host
            self.team = team
            self.holders = holders
            self.hostWide = hostWide
        }

        /// For administrators and the local CLI.
        public var description: String {
            let held = holders.isEmpty ? "nobody" : "team " + holders.map(\.rawValue).joined(separator: ", ")
            guard let team else { return "host \(host) is held by \(held)" }
            if hostWide {
                return "host \(host) is held by \(held): only its owner or an administrator changes its host-wide settings"
            }
            return "host \(host) belongs to \(held), not to team \(team.rawValue); nothing was written. "
                + "If team \(team.rawValue) truly shares it, an administrator can say so: "
                + "clipctl domain share \(host) --team \(team.rawValue)"
        }

        /// For the refused team: never who holds the host.
        public var teamMessage: String {
            if hostWide {
                return "host \(host) is not owned by your team: only its owner or an administrator changes its host-wide settings"
            }
            return
                "host \(host) belongs to another team; nothing was written. If team \(team?.rawValue ?? "") truly shares it, an administrator can say so: "
                + "clipctl domain share \(host) --team \(team?.rawValue ?? "")"
        }
    }

    /// Refuses `team` putting its own objects on the host.
    public func check(_ team: TeamID) throws(Refusal) {
        guard admits(team) else { throw Refusal(host: host, team: team, holders: teams, hostWide: false) }
    }

    /// Refuses a host-wide change by `team` (nil: an administrator, always allowed).
    public func checkGovernance(by team: TeamID?) throws(Refusal) {
        guard let team, !isGoverned(by: team) else { return }
        throw Refusal(host: host, team: team, holders: teams, hostWide: true)
    }
}
