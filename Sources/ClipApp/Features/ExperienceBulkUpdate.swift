public import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// One change to every experience a selector matches (docs/sheets.md#selectors): `PATCH /v1/experiences?where=`
/// with the partial experience as its body, and `clipctl update --where SELECTOR`, whose words choose this route
/// (`ExperienceUpdate`). One transaction; `expect` refuses (412) a selector that matches another count; a dry run
/// writes nothing. A team token's selector reaches its own team's experiences only.
public enum ExperienceBulkUpdate: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var selector = ""
        var expect: Int64?
        var dryRun: String?
        var document: JSONValue = .object([])
        var image: [UInt8]?

        public init() {}

        static let selector = FieldFacts(
            name: "where", place: .query, type: .text, placeholder: "SELECTOR",
            help: "change every experience this selects, such as 'host=ride.example,label.city=paris' (docs/sheets.md#selectors)",
            required: true, routeOnly: true)
        static let expect = FieldFacts(
            name: "expect", place: .query, type: .integer(0...Int64(Int32.max)), placeholder: "N",
            help: "refuse, changing nothing, unless the selector matches exactly N experiences", routeOnly: true)
        static let dryRun = FieldFacts(
            name: "dryRun", place: .query, type: .flag, placeholder: "", help: "say what would change; write nothing", option: "dry-run",
            routeOnly: true)
        public static let fields: [InputField<Input>] =
            [.given(selector, \.selector), .integer(expect, \.expect), .optional(dryRun, \.dryRun)]
            + [.member(.experienceClip("CLIP", help: "move to another clip"), of: \.document)]
            + ExperienceCommands.fields(\.document, image: \.image, update: true)
            + [.member(FieldFacts(ExperienceField.poweredBy, negatable: true).helped("set isPoweredBy"), of: \.document)]

        public mutating func check(_ reader: inout ArgumentReader) {
            document = reader.document() ?? .object([])
            image = reader.arguments.attachment
        }
    }

    public typealias Output = SyncReport

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let selector: ExperienceSelector
        do { selector = try ExperienceSelector(input.selector) } catch { throw RegistryError.invalid(error.errors) }
        var errors: [FieldError] = []
        let dryRun = QueryFlag.truth(input.dryRun, field: Input.dryRun.name, into: &errors)
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        try Experiences.checkWritable(input.document, in: session)
        let filter = try session.registry.filter(selector, team: session.caller.team)
        return try session.registry.update(
            matching: filter, with: input.document, image: input.image, expect: input.expect.map { Int($0) }, dryRun: dryRun)
    }

    public static let binding = Binding(
        Self.self, Route("PATCH", "/v1/experiences", body: .json(optional: false)),
        command: .routed(json: .answer, present: ExperienceCommands.presentBulk))
}

extension ExperienceCommands {
    /// `update --where`: the changes, then the count; without `--yes` a dry run, with what to run to make it.
    @Sendable static func presentBulk(_ report: SyncReport, _ words: CommandWords, _ printer: Printer) throws {
        printer.sync(report)
        guard report.dryRun, !words.flag(ExperienceBulkUpdate.Input.dryRun.option) else { return }
        let n = report.outcomes.count + report.unchanged
        printer.err(
            "nothing written: \(n) experience\(n == 1 ? "" : "s") selected; review the changes above, then run the same command with --yes"
                + " (and --expect \(n), so that it changes nothing if the selection changed meanwhile)\n")
    }
}
