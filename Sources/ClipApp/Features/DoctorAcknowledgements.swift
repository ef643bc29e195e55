public import ClipCore
import ClipStore
public import ClipWire
import DoctorAndPublish
public import StrictJSON

/// A doctor rule acknowledged over a scope (docs/aasa-tools.md#acknowledged-findings): `POST /v1/doctor/acknowledgements`
/// and `clipctl doctor ack RULE (--where SELECTOR | --label KEY=VALUE …) [--note TEXT]`. The rule's findings on the
/// experiences the scope selects stay out of `doctor`'s report. A team token's reaches its own team's experiences only.
public enum DoctorAcknowledge: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var rule = ""
        var selector: String?
        var note: String?

        public init() {}

        static let rule = InputField<Input>.text(
            "rule", \.rule, in: .body, "RULE",
            help: "the doctor rule, such as title-length (docs/aasa-tools.md#clipctl-doctor---host-h---json)", required: true,
            positional: true)
        static let selector = InputField<Input>.text(
            "where", \.selector, in: .body, "SELECTOR",
            help: "the experiences it covers, such as 'host=ride.example,label.city=london' (docs/sheets.md#selectors)")
        static let note = InputField<Input>.text("note", \.note, in: .body, "TEXT", help: "why, for whoever reads doctor --acknowledged")
        public static let fields: [InputField<Input>] = [rule, selector, note]
    }

    public typealias Output = Acknowledged

    /// The acknowledgement, 201 when new; the same rule and scope again answers the one there is (200).
    public struct Acknowledged: WriteAnswer {
        public var outcome: WriteOutcome<DoctorAcknowledgement>
        public init(_ outcome: WriteOutcome<DoctorAcknowledgement>) { self.outcome = outcome }
        public var status: Int? { outcome.created ? 201 : 200 }
        /// With `changed`: false when it already was as asked (nothing written, no change record).
        public var json: JSONValue {
            guard case .object(var members) = CatalogJSON.withNotes(outcome.value.json, outcome.notes) else { return .null }
            members.append((key: "changed", value: .bool(outcome.changed)))
            return .object(members)
        }
        public var headers: [(name: String, value: String)] { [("Location", "/v1/doctor/acknowledgements/\(outcome.value.id)")] }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var errors: [FieldError] = []
        if Doctor.Rule(rawValue: input.rule) == nil {
            let near = NearMiss.meant(input.rule, among: Doctor.Rule.allCases.map(\.rawValue)).map { " (did you mean \($0)?)" }
            errors.append(
                FieldError(
                    field: Input.rule.facts.name, rule: "enum",
                    message: "\"\(input.rule.truncatedForMessage)\" is not a doctor rule\(near ?? ""): one of "
                        + Doctor.Rule.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        var scope = ExperienceSelector()
        do { scope = try ExperienceSelector(input.selector ?? "", field: Input.selector.facts.name) } catch { errors += error.errors }
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        return Output(try session.registry.acknowledge(rule: input.rule, scope: scope, team: session.caller.team, note: input.note))
    }

    /// `--label KEY=VALUE`, repeatable: a term of the scope beside `--where`.
    static let label = FieldFacts(
        name: "label", place: .command, type: .text, placeholder: "KEY=VALUE", help: "the experiences with this label (repeatable)",
        repeatable: true)

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/doctor/acknowledgements", status: 201, body: .json(optional: false)),
        command: Command(
            ["doctor", "ack"],
            CommandHelp(
                "keep a doctor rule quiet for the experiences a scope selects",
                discussion: "doctor --acknowledged lists each acknowledgement with the findings it quiets; doctor unack ID ends one.",
                examples: [
                    CommandExample(
                        "clipctl doctor ack title-length --label city=london --note 'London signage uses long names'",
                        "Keep the older title guidance quiet for the London stations")
                ]),
            options: [label],
            steps: CommandSteps(input: { line, arguments in
                var input = Input()
                input.rule = line.parsed.positional(0) ?? ""
                // Each label a `label.KEY=VALUE` term, written as a selector writes one.
                let labels = line.parsed.all(label.option).map { "label." + ExperienceSelector.escaped($0) }
                let terms = (line.parsed.value(Input.selector.facts.option).map { [$0] } ?? []) + labels
                input.selector = terms.isEmpty ? nil : terms.joined(separator: ",")
                input.note = line.parsed.value(Input.note.facts.option)
                arguments = input.arguments
            }),
            json: .answer,
            present: { output, _, printer in
                let a = output.outcome.value
                let verb = output.outcome.created ? "acknowledged" : output.outcome.changed ? "noted anew" : "already acknowledged"
                printer.line("\(verb) \(a.rule) for \(a.scope.text) (acknowledgement \(a.id))")
                printer.notes(output.outcome.notes)
            }))
}

/// `GET /v1/doctor/acknowledgements`: those the caller sees (a team token, its team's), oldest first. `clipctl doctor`
/// reads them to quiet what they cover, and `doctor --acknowledged` lists them.
public enum DoctorAcknowledgementList: Operation {
    public static let callers = CallerRule.token
    public typealias Input = NoInput
    public typealias Output = Items<DoctorAcknowledgement>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.acknowledgements(team: session.caller.team))
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/doctor/acknowledgements"))
}

/// `DELETE /v1/doctor/acknowledgements/{id}` (204) and `clipctl doctor unack ID`: the rule's findings there are reported again.
public enum DoctorAcknowledgementRemove: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var id = ""
        public init() {}
        public static let fields: [InputField<Input>] = [
            .text("id", \.id, in: .path, "ID", help: "the acknowledgement's id (doctor --acknowledged lists them)", required: true)
        ]
    }

    public typealias Output = DoctorAcknowledgement

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let id = Int64(input.id), id > 0 else { throw RegistryError.notFound("acknowledgement \(input.id.prefix(40))") }
        return try session.registry.removeAcknowledgement(id: id, team: session.caller.team).value
    }

    public static let binding: Binding = Binding(
        Self.self, Route("DELETE", "/v1/doctor/acknowledgements/{id}", status: 204, body: .none(.ignored)),
        command: Command(
            ["doctor", "unack"],
            CommandHelp(
                "end an acknowledgement: its rule's findings are reported again",
                examples: [CommandExample("clipctl doctor unack 2", "Report acknowledgement 2's findings again")]),
            steps: CommandSteps(
                check: { words in
                    guard (Int64(words.positional(0) ?? "") ?? 0) > 0 else {
                        throw CommandUsageError("an acknowledgement id is a positive number")
                    }
                },
                answer: { words, arguments, run in
                    // The route answers 204: the acknowledgement is read first (another team's is not found).
                    let id = Int64(words.positional(0) ?? "") ?? 0
                    let listed = try DoctorAcknowledgementList.Output(json: try run(DoctorAcknowledgementList.binding, Arguments()).json)
                    guard let acknowledgement = listed.items.first(where: { $0.id == id }) else {
                        throw RegistryError.notFound("acknowledgement \(id)")
                    }
                    _ = try run(binding, arguments)
                    return OperationAnswer(json: acknowledgement.json, status: 200)
                }),
            present: { a, _, printer in printer.line("removed acknowledgement \(a.id) (\(a.rule) for \(a.scope.text))") }))
}
