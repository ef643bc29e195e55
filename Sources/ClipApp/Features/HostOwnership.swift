public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Who holds each host (`HostOwnership`, docs/rules.md#tenancy): `GET /v1/domains` and `clipctl
/// domain owners [--host HOST]`. Administrators see every host; a team sees the hosts it holds, and
/// only its own entry of each.
public enum HostOwnershipList: Operation {
    public static let callers = CallerRule.token
    public typealias Input = NoInput
    public typealias Output = Items<HostOwnership>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let team = session.caller.team
        return Output(try session.registry.hostOwnerships(team: team).map { HostFields.visible($0, to: team) })
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/domains"),
        command: Command(
            ["domain", "owners"],
            CommandHelp(
                "list which teams hold each host (the first team to use a host owns it)",
                examples: [CommandExample("clipctl domain owners --host bikesrental.example", "Which teams hold a host")]),
            options: [.hostFilter],
            // The command picks its host from the list; a malformed one is refused first (exit 65).
            steps: CommandSteps(check: HostFields.checkFilter),
            json: .line { output, words in .array(HostFields.owning(output, words).map(\.json)) },
            present: { output, words, printer in HostFields.owning(output, words).forEach { HostFields.print($0, printer) } }))
}

/// `GET /v1/domains/{host}`: who holds one host, as the list shows it; a host nobody holds (or no
/// holder the team sees) is not found.
public enum HostOwnershipShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.host(\.host, help: "exact host name")]
    }

    public typealias Output = HostOwnership

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let team = session.caller.team
        guard let ownership = try session.registry.hostOwnerships(host: input.host, team: team).first else {
            throw RegistryError.notFound("host \(input.host) (no team holds it\(team == nil ? "" : ", or it is not your team's"))")
        }
        return HostFields.visible(ownership, to: team)
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/domains/{host}"))
}

/// `PUT /v1/domains/{host}/owner` and `clipctl domain claim HOST --team T` (administrators): the
/// previous owner loses the host, refused while it still has objects there.
public enum HostClaim: Operation {
    public static let callers = CallerRule.admin

    public struct Input: DeclaredInput {
        var host = ""
        var team: TeamID?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .host(\.host, help: "exact host name"), .team(\.team, in: .body, help: "the new owner"),
        ]
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let team = input.team else { throw RegistryError.invalid([]) }
        return Output(try session.registry.claimHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/owner", body: .json(optional: false)),
        command: Command(
            ["domain", "claim"],
            CommandHelp(
                "give a host to a team (administrators)",
                discussion:
                    "The previous owner loses the host; refused while it still has experiences, associations, applinks or webcredentials there.",
                examples: [CommandExample("clipctl domain claim bikesrental.example --team FGHIJ67890", "Move a host to another team")]),
            json: .shape(\.written), present: HostFields.presentAssigned))
}

/// `PUT /v1/domains/{host}/teams/{team}` and `clipctl domain share HOST --team T` (administrators):
/// another team uses the host too (201 when added); confirms a sharing kept from before ownership.
public enum HostShare: Operation {
    public static let callers = CallerRule.admin

    public struct Input: DeclaredInput {
        var host = ""
        var team: TeamID?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .host(\.host, help: "exact host name"), .team(\.team, in: .path, help: "the team"),
        ]
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let team = input.team else { throw RegistryError.invalid([]) }
        return Output(try session.registry.shareHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/teams/{team}", body: .none(.ignoredIfJSON)),
        command: Command(
            ["domain", "share"],
            CommandHelp(
                "let another team use a host too (administrators; agencies that truly share a host)",
                discussion: "Also confirms a sharing that existed before host ownership (doctor reports those).",
                examples: [
                    CommandExample(
                        "clipctl domain share bikesrental.example --team FGHIJ67890", "Let a second team register experiences on a host")
                ]),
            json: .shape(\.written), present: HostFields.presentAssigned))
}

/// `DELETE /v1/domains/{host}/teams/{team}` and `clipctl domain unshare HOST --team T`
/// (administrators): refused while the team has objects there, and for the owner.
public enum HostUnshare: Operation {
    public static let callers = CallerRule.admin

    public struct Input: DeclaredInput {
        var host = ""
        var team = ""
        public init() {}
        static let team = InputField<Input>.team(\.team, help: "the team")
        public static let fields: [InputField<Input>] = [.host(\.host, help: "exact host name"), team]
    }

    public typealias Output = HostFields.Assigned

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // A team that cannot exist holds no share: not found, as an unknown one.
        guard let team = try? TeamID(input.team, field: Input.team.facts.name) else { throw RegistryError.notFound("team \(input.team)") }
        return Output(try session.registry.unshareHost(input.host, team: team))
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/domains/{host}/teams/{team}", body: .none(.ignored)),
        command: Command(
            ["domain", "unshare"],
            CommandHelp(
                "end a team's share of a host (administrators); refused while it has objects there",
                examples: [CommandExample("clipctl domain unshare bikesrental.example --team FGHIJ67890", "End that second team's share")]),
            // The command reads a team ID (exit 65 otherwise), where the route finds no such team.
            steps: CommandSteps(check: { words in
                guard let text = words.value(Input.team.facts.option) else { return }
                _ = try ClipFields.parsed { () throws(ValidationFailure) in try TeamID(text, field: Input.team.facts.name) }
            }),
            json: .shape(\.written), present: HostFields.presentAssigned))
}

/// What the host ownership operations share: their output, the team's view, `--host` and the text form.
public enum HostFields {
    /// A host's holders after a claim, share or unshare, with the write's notes; 201 when the write
    /// added a holder (a share, RFC 9110 §9.3.4).
    public struct Assigned: WriteAnswer {
        public var outcome: WriteOutcome<HostOwnership>
        public init(_ outcome: WriteOutcome<HostOwnership>) { self.outcome = outcome }
        public var status: Int? { outcome.created ? 201 : 200 }
    }

    /// A team sees only its own entry of a host it holds; callers of every team see all of them.
    static func visible(_ ownership: HostOwnership, to team: TeamID?) -> HostOwnership {
        guard let team else { return ownership }
        return HostOwnership(host: ownership.host, holders: ownership.holders.filter { $0.team == team })
    }

    /// The hosts `domain owners` prints: all of them, or the one `--host` names.
    static func owning(_ output: HostOwnershipList.Output, _ words: CommandWords) -> [HostOwnership] {
        guard let wanted = wanted(words) else { return output.items }
        return output.items.filter { $0.host == wanted }
    }

    /// `--host HOST` (`FieldFacts.hostFilter`): a malformed one is refused before anything is read (exit 65).
    @Sendable static func checkFilter(_ words: CommandWords) throws {
        if let host = words.value(FieldFacts.hostFilter.option) { _ = try Registry.normalizeHost(host) }
    }

    /// The host `--host` names, normalized (nil inside when it names none); nil without `--host`.
    static func wanted(_ words: CommandWords) -> String?? {
        words.value(FieldFacts.hostFilter.option).map { try? Registry.normalizeHost($0) }
    }

    @Sendable static func presentAssigned(_ output: Assigned, _ words: CommandWords, _ printer: Printer) {
        let notes = output.outcome.notes
        printer.line(notes.isEmpty ? "nothing to change" : notes.map(\.text).joined(separator: "\n"))
        print(output.outcome.value, printer)
    }

    static func print(_ ownership: HostOwnership, _ printer: Printer) {
        let teams = ownership.holders.map { h in "\(h.team.rawValue) (\(h.role.rawValue)\(h.origin == .migration ? ", unconfirmed" : ""))" }
        printer.line("\(ownership.host)  \(teams.isEmpty ? "free" : teams.joined(separator: ", "))")
    }
}
