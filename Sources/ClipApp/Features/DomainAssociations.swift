import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// `PUT /v1/clips/{bundleId}/domains/{host}` and `clipctl domain add CLIP HOST`: lists the clip in
/// the host's AASA (201, or 200 when it already was). Another team's clip is not found.
public enum DomainAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var clip: String
        var host: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            clip = reader.string("bundleId") ?? ""
            host = reader.string("host") ?? ""
        }
    }

    public struct Output: OperationOutput {
        public var outcome: WriteOutcome<DomainAssociation>
        public init(_ outcome: WriteOutcome<DomainAssociation>) { self.outcome = outcome }
        public var json: JSONValue { CatalogJSON.withNotes(CatalogJSON.association(outcome.value), outcome.notes) }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            let association = outcome.value
            return outcome.created ? [("Location", "/v1/clips/\(association.clip.bundleID.rawValue)/domains/\(association.host)")] : []
        }
        public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            outcome = WriteOutcome(try CatalogJSON.association(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let clip = try ClipFields.visibleClip(input.clip, in: session)
        return Output(try session.registry.addDomain(clip: clip.appID.rawValue, host: input.host))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/clips/{bundleId}/domains/{host}",
        command: CommandSpec(
            "add", summary: "associate a host with a clip",
            positionals: [PositionalSpec("CLIP", help: "the clip"), PositionalSpec("HOST", help: "exact host name")],
            examples: [
                Example(
                    "clipctl domain add ABCDE12345.com.example.bikes.Clip go.bikesrental.example",
                    "List the clip in go.bikesrental.example's AASA")
            ]),
        under: ["domain"], commandJSON: { .object(["notes": CatalogJSON.notes($0.outcome.notes)]) }, unreadBody: .ignoredIfJSON,
        commandInput: DomainAssociationFields.clipAndHost,
        present: { output, _, printer in
            let notes = output.outcome.notes
            printer.line(notes.isEmpty ? "already associated" : notes.map(\.text).joined(separator: "\n"))
        })
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
        Self.self, "DELETE", "/v1/clips/{bundleId}/domains/{host}",
        command: CommandSpec(
            "remove", summary: "end an association",
            positionals: [PositionalSpec("CLIP", help: "the clip"), PositionalSpec("HOST", help: "exact host name")],
            examples: [
                Example(
                    "clipctl domain remove ABCDE12345.com.example.bikes.Clip go.bikesrental.example", "Take the clip out of the host's AASA"
                )
            ]),
        under: ["domain"], commandJSON: { _ in CommandJSON.removed() }, unreadBody: .ignored,
        commandInput: DomainAssociationFields.clipAndHost,
        present: { _, parsed, printer in
            let words = parsed.positionals
            printer.line("removed the association of \(words.count > 1 ? words[1] : "") with \(words.first ?? "")")
        })
}

/// `clipctl domain list [--host HOST]`: the associations of the clips the caller sees, by host, read
/// from `clip list`'s answer (`GET /v1/clips`, each clip with its hosts), so it has no route of its own.
public enum DomainAssociationFields {
    public static let listBinding = Binding(
        ClipList.self, "GET", "/v1/clips",
        command: CommandSpec(
            "list", summary: "list associations", options: [.option("host", value: "HOST", help: "only this host")],
            examples: [Example("clipctl domain list --host bikesrental.example", "List the clips associated with a host")]),
        under: ["domain"], lineJSON: { output, parsed in .array(associations(output, parsed).map(CatalogJSON.listedAssociation)) },
        clientOptions: ["host"], servesRoute: false,
        commandInput: { line, _ in
            // Every clip is read; a malformed host is refused first (exit 65).
            if let host = line.parsed.value("host") { _ = try Registry.normalizeHost(host) }
        },
        present: { output, parsed, printer in
            for association in associations(output, parsed) { printer.line("\(association.host)  \(association.clip.rawValue)") }
        })

    /// The clips' associations sorted by host, then clip; only those of `--host` when given.
    static func associations(_ output: ClipList.Output, _ parsed: CommandWords) -> [DomainAssociation] {
        let raw = parsed.value("host"), wanted = raw.flatMap { try? Registry.normalizeHost($0) }
        return output.clips.flatMap { clip in clip.hosts.map { DomainAssociation(clip: clip.appID, host: $0) } }
            .filter { raw == nil || $0.host == wanted }
            .sorted { ($0.host, $0.clip.bundleID.rawValue) < ($1.host, $1.clip.bundleID.rawValue) }
    }

    @Sendable static func clipAndHost(_ line: CommandLine, _ arguments: inout Arguments) {
        let words = line.parsed.positionals
        arguments.append("bundleId", words.first)
        arguments.append("host", words.count > 1 ? words[1] : nil)
    }
}
