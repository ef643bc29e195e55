import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// Undo (issue 35's kill switch and undo; docs/rules.md#change-records): `POST /v1/experiences/{id}/revert?version=N` and
/// `clipctl revert ID|URL --to N` make an experience again what it was at version N, from its change records, as one new
/// version with its change record and webhook. `If-Match` guards it as it guards an update.
public enum ExperienceRevert: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var id = ""
        var version: Int64?
        var preconditions = Arguments()
        public init() {}

        static let version = FieldFacts(
            name: "version", place: .query, type: .integer(1...Int64(Int32.max)), placeholder: "VERSION",
            help: "the version to restore (clipctl history lists them)", required: true, option: "to")
        public static let fields: [InputField<Input>] = [
            .experienceID(\.id, help: "experience id or registered URL"), .integer(version, \.version),
        ]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    public typealias Output = ExperienceWritten

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let current = try Experiences.visible(input.id, in: session)
        guard let version = input.version.map({ Int($0) }) else {
            throw RegistryError.invalid([FieldError(field: Input.version.name, rule: "required", message: "is required")])
        }
        let expected = try input.preconditions.existingPreconditions(
            kind: "e\(current.id)", current: current.version, "experience \(current.id)")
        var output = Output(
            try session.registry.revert(String(current.id), toVersion: version, expectedVersion: expected), at: session.registry.instant)
        output.versionBefore = current.version
        return output
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/experiences/{id}/revert", body: .none(.refused)),
        command: Command(
            ["revert"],
            CommandHelp(
                "make an experience again what it was at an earlier version, as one new version",
                discussion: "The earlier version's fields come from the change records (clipctl history ID lists the versions).",
                examples: [CommandExample("clipctl revert 12 --to 3", "Undo every change to experience 12 since its version 3")]),
            // The experience is read first, so that what is printed says whether the revert changed it.
            steps: CommandSteps(input: { line, arguments in
                guard let version = line.parsed.value(Input.version.option) else {
                    throw CommandUsageError("missing --\(Input.version.option)")
                }
                let e = try ExperienceCommands.read(line.parsed.positional(0) ?? "", line)
                arguments.append(Input.fields[0].facts.name, String(e.id))
                arguments.append(Input.version.name, version)
                arguments.commandRead = .object([(key: "before", value: ExperienceJSON.full(e))])
            }),
            json: .shape(ExperienceCommands.writtenJSON),
            present: { output, words, printer in
                let e = output.outcome.value, to = words.value(Input.version.option) ?? "?"
                if output.versionBefore != e.version {
                    printer.line(
                        "reverted experience \(e.id) to the fields of version \(to): now version \(e.version), \(e.status.rawValue)")
                } else {
                    printer.line("nothing to change: experience \(e.id) already has the fields of version \(to)")
                }
                ExperienceCommands.printExtras(output.outcome, printer)
            }))
}
