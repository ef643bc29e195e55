public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// `PUT /v1/clips/{bundleId}/domains/{host}` and `clipctl domain add CLIP HOST`: lists the clip in
/// the host's AASA (201, or 200 when it already was). Another team's clip is not found.
public enum DomainAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var clip = ""
        var host = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.clip(\.clip, help: "the clip"), .host(\.host, help: "exact host name")]
    }

    /// The association, 201 with its place when the write made it, with the write's notes.
    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<DomainAssociation>
        public init(_ outcome: WriteOutcome<DomainAssociation>) { self.outcome = outcome }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            let association = outcome.value
            return outcome.created ? [("Location", "/v1/clips/\(association.clip.bundleID.rawValue)/domains/\(association.host)")] : []
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.clip, in: session)
        return Output(try session.registry.addDomain(clip: clip.appID.rawValue, host: input.host))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/clips/{bundleId}/domains/{host}", body: .none(.ignoredIfJSON)),
        command: Command(
            ["domain", "add"],
            CommandHelp(
                "associate a host with a clip",
                examples: [
                    CommandExample(
                        "clipctl domain add ABCDE12345.com.example.bikes.Clip go.bikesrental.example",
                        "List the clip in go.bikesrental.example's AASA")
                ]),
            json: .shape { .object(["notes": CatalogJSON.notes($0.outcome.notes)]) },
            present: { output, _, printer in
                let notes = output.outcome.notes
                printer.line(notes.isEmpty ? "already associated" : notes.map(\.text).joined(separator: "\n"))
            }))
}

/// `DELETE /v1/clips/{bundleId}/domains/{host}` and `clipctl domain remove CLIP HOST`: refused while
/// the clip has experiences on the host.
public enum DomainRemove: Operation {
    public static let callers = CallerRule.token
    public typealias Input = DomainAdd.Input
    public typealias Output = NoContent

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.clip, in: session)
        try session.registry.removeDomain(clip: clip.appID.rawValue, host: input.host)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/clips/{bundleId}/domains/{host}", body: .none(.ignored)),
        command: Command(
            ["domain", "remove"],
            CommandHelp(
                "end an association",
                examples: [
                    CommandExample(
                        "clipctl domain remove ABCDE12345.com.example.bikes.Clip go.bikesrental.example",
                        "Take the clip out of the host's AASA")
                ]),
            json: .shape { _ in CommandJSON.removed() },
            present: { _, words, printer in
                printer.line("removed the association of \(words.positional(1) ?? "") with \(words.positional(0) ?? "")")
            }))
}

/// `clipctl domain list [--host HOST]`: the associations of the clips the caller sees, by host, read
/// from `clip list`'s answer (`GET /v1/clips`, each clip with its hosts), so it has no route of its own.
public enum DomainAssociationList: Operation {
    public static let callers = CallerRule.token

    public typealias Input = NoInput

    /// `GET /v1/clips`'s answer: every clip the caller sees, with its hosts.
    public typealias Output = Items<Clip>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.clips(app: nil, team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/clips", served: false),
        command: Command(
            ["domain", "list"],
            CommandHelp(
                "list associations",
                examples: [CommandExample("clipctl domain list --host bikesrental.example", "List the clips associated with a host")]),
            options: [.hostFilter],
            // Every clip is read; a malformed host is refused first (exit 65).
            steps: CommandSteps(check: HostFields.checkFilter),
            json: .line { output, words in .array(associations(output, words).map(CatalogJSON.listedAssociation)) },
            present: { output, words, printer in
                for association in associations(output, words) { printer.line("\(association.host)  \(association.clip.rawValue)") }
            }))

    /// The clips' associations sorted by host, then clip; only those of `--host` when given.
    static func associations(_ output: Output, _ words: CommandWords) -> [DomainAssociation] {
        let wanted = HostFields.wanted(words)
        return output.items.flatMap { clip in clip.hosts.map { DomainAssociation(clip: clip.appID, host: $0) } }
            .filter { wanted == nil || $0.host == wanted }
            .sorted { ($0.host, $0.clip.bundleID.rawValue) < ($1.host, $1.clip.bundleID.rawValue) }
    }
}
