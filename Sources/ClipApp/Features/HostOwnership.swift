import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// Who holds each host (`HostOwnership`, docs/rules.md#tenancy): `GET /v1/domains` and `clipctl
/// domain owners [--host HOST]`. Administrators see every host; a team sees the hosts it holds, and
/// only its own entry of each.
public enum HostOwnershipList: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        public init(reading reader: inout ArgumentReader) { arguments = reader.arguments }
    }

    public struct Output: OperationOutput {
        public var ownerships: [HostOwnership]
        public init(ownerships: [HostOwnership]) { self.ownerships = ownerships }
        public var json: JSONValue { ListJSON.items(ownerships.map { HostOwnershipJSON.ownership($0) }) }
        public init(json: JSONValue) throws(WireError) {
            ownerships = try ListJSON.items(json: json).map { (v) throws(WireError) in try HostOwnershipJSON.ownership(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let team = session.caller.team
        return Output(ownerships: try session.registry.hostOwnerships(team: team).map { HostFields.visible($0, to: team) })
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/domains",
        command: CommandSpec(
            "owners", summary: "list which teams hold each host (the first team to use a host owns it)",
            options: [.option("host", value: "HOST", help: "only this host")],
            examples: [Example("clipctl domain owners --host bikesrental.example", "Which teams hold a host")]),
        under: ["domain"],
        lineJSON: { output, parsed in .array(HostFields.owning(output, parsed).map { HostOwnershipJSON.ownership($0) }) },
        clientOptions: ["host"],
        commandInput: { line, _ in
            // The command picks its host from the list; a malformed one is refused first (exit 65).
            if let host = line.parsed.value("host") { _ = try Registry.normalizeHost(host) }
        },
        present: { output, parsed, printer in HostFields.owning(output, parsed).forEach { HostFields.print($0, printer) } })
}

/// `GET /v1/domains/{host}`: who holds one host, as the list shows it; a host nobody holds (or no
/// holder the team sees) is not found.
public enum HostOwnershipShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
        }
    }

    public typealias Output = HostFields.Read

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let team = session.caller.team
        guard let ownership = try session.registry.hostOwnerships(host: input.host, team: team).first else {
            throw RegistryError.notFound("host \(input.host) (no team holds it\(team == nil ? "" : ", or it is not your team's"))")
        }
        return Output(HostFields.visible(ownership, to: team))
    }

    public static let binding = Binding(Self.self, "GET", "/v1/domains/{host}")
}

/// `PUT /v1/domains/{host}/owner` and `clipctl domain claim HOST --team T` (administrators): the
/// previous owner loses the host, refused while it still has objects there.
public enum HostClaim: Operation {
    public static let callers = CallerRule.admin

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var team: TeamID?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            let fields = reader.fields
            if let t = fields.string("team", required: true) {
                team = fields.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") }
            }
        }
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let team = input.team else { throw RegistryError.invalid([]) }
        return Output(try session.registry.claimHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/owner",
        command: CommandSpec(
            "claim", summary: "give a host to a team (administrators)",
            discussion:
                "The previous owner loses the host; refused while it still has experiences, associations, applinks or webcredentials there.",
            positionals: [PositionalSpec("HOST", help: "exact host name")],
            options: [.option("team", value: "TEAMID", help: "the new owner (required)")],
            examples: [Example("clipctl domain claim bikesrental.example --team FGHIJ67890", "Move a host to another team")]),
        under: ["domain"], commandJSON: { HostOwnershipJSON.assigned($0.outcome) }, takesBody: true,
        commandInput: { line, arguments in
            let team = try HostFields.team(line)
            arguments.append("host", line.parsed.positionals.first)
            arguments.body = RequestJSON.claimHost(team: team)
        },
        present: HostFields.presentAssigned)
}

/// `PUT /v1/domains/{host}/teams/{team}` and `clipctl domain share HOST --team T` (administrators):
/// another team uses the host too (201 when added); confirms a sharing kept from before ownership.
public enum HostShare: Operation {
    public static let callers = CallerRule.admin

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var team: TeamID?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            let raw = reader.string("team") ?? ""
            team = reader.attempt { () throws(ValidationFailure) in try TeamID(raw, field: "team") }
        }
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let team = input.team else { throw RegistryError.invalid([]) }
        return Output(try session.registry.shareHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/teams/{team}",
        command: CommandSpec(
            "share", summary: "let another team use a host too (administrators; agencies that truly share a host)",
            discussion: "Also confirms a sharing that existed before host ownership (doctor reports those).",
            positionals: [PositionalSpec("HOST", help: "exact host name")],
            options: [.option("team", value: "TEAMID", help: "the team (required)")],
            examples: [
                Example("clipctl domain share bikesrental.example --team FGHIJ67890", "Let a second team register experiences on a host")
            ]),
        under: ["domain"], commandJSON: { HostOwnershipJSON.assigned($0.outcome) }, unreadBody: .ignoredIfJSON,
        commandInput: HostFields.hostAndTeam,
        present: HostFields.presentAssigned)
}

/// `DELETE /v1/domains/{host}/teams/{team}` and `clipctl domain unshare HOST --team T`
/// (administrators): refused while the team has objects there, and for the owner.
public enum HostUnshare: Operation {
    public static let callers = CallerRule.admin

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var team: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            team = reader.string("team") ?? ""
        }
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // A team that cannot exist holds no share: not found, as an unknown one.
        guard let team = try? TeamID(input.team, field: "team") else { throw RegistryError.notFound("team \(input.team)") }
        return Output(try session.registry.unshareHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, "DELETE", "/v1/domains/{host}/teams/{team}",
        command: CommandSpec(
            "unshare", summary: "end a team's share of a host (administrators); refused while it has objects there",
            positionals: [PositionalSpec("HOST", help: "exact host name")],
            options: [.option("team", value: "TEAMID", help: "the team (required)")],
            examples: [Example("clipctl domain unshare bikesrental.example --team FGHIJ67890", "End that second team's share")]),
        under: ["domain"], commandJSON: { HostOwnershipJSON.assigned($0.outcome) }, unreadBody: .ignored,
        commandInput: HostFields.hostAndTeam,
        present: HostFields.presentAssigned)
}

/// What the host ownership operations share: their outputs, the team's view and the text form.
public enum HostFields {
    /// One host's holders, as a caller sees them.
    public struct Read: OperationOutput {
        public var ownership: HostOwnership
        public init(_ ownership: HostOwnership) { self.ownership = ownership }
        public var json: JSONValue { HostOwnershipJSON.ownership(ownership) }
        public init(json: JSONValue) throws(WireError) { ownership = try HostOwnershipJSON.ownership(json: json) }
    }

    /// A host's holders after a claim, share or unshare, with the write's notes; 201 when the write
    /// added a holder (a share, RFC 9110 §9.3.4).
    public struct Assigned: OperationOutput {
        public var outcome: WriteOutcome<HostOwnership>
        public init(_ outcome: WriteOutcome<HostOwnership>) { self.outcome = outcome }
        public var json: JSONValue { HostOwnershipJSON.ownership(outcome.value, notes: outcome.notes) }
        public var status: Int? { outcome.created ? 201 : 200 }
        public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            outcome = WriteOutcome(
                try HostOwnershipJSON.ownership(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
        }
    }

    /// A team sees only its own entry of a host it holds; callers of every team see all of them.
    static func visible(_ ownership: HostOwnership, to team: TeamID?) -> HostOwnership {
        guard let team else { return ownership }
        return HostOwnership(host: ownership.host, holders: ownership.holders.filter { $0.team == team })
    }

    /// The hosts `domain owners` prints: all of them, or the one `--host` names.
    static func owning(_ output: HostOwnershipList.Output, _ parsed: CommandWords) -> [HostOwnership] {
        guard let raw = parsed.value("host") else { return output.ownerships }
        let host = try? Registry.normalizeHost(raw)
        return output.ownerships.filter { $0.host == host }
    }

    /// `--team`, which the command needs, as a team ID (exit 64 without it, 65 when malformed).
    static func team(_ line: CommandLine) throws -> TeamID {
        let text = try line.required("team")
        return try ClipFields.parsed { () throws(ValidationFailure) in try TeamID(text, field: "team") }
    }

    @Sendable static func hostAndTeam(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let team = try team(line)
        arguments.append("host", line.parsed.positionals.first)
        arguments.append("team", team.rawValue)
    }

    @Sendable static func presentAssigned(_ output: Assigned, _ parsed: CommandWords, _ printer: Printer) {
        let notes = output.outcome.notes
        printer.line(notes.isEmpty ? "nothing to change" : notes.map(\.text).joined(separator: "\n"))
        print(output.outcome.value, printer)
    }

    static func print(_ ownership: HostOwnership, _ printer: Printer) {
        let teams = ownership.holders.map { h in "\(h.team.rawValue) (\(h.role.rawValue)\(h.origin == .migration ? ", unconfirmed" : ""))" }
        printer.line("\(ownership.host)  \(teams.isEmpty ? "free" : teams.joined(separator: ", "))")
    }
}
