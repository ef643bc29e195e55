import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// An experience's change records, oldest first, a page at a time: `GET /v1/experiences/{id}/history`
/// and `clipctl history ID|URL`. A team token reads its own team's experiences only; a removed
/// experience keeps its history (by id).
public enum ExperienceHistory: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        public var experience = ""
        public var since: Int64 = 0
        public var limit = 100

        public init() {}

        public static let since = InputField.integer(
            "since", \Input.since, in: 0...Int64.max, default: 0, "ID", help: "only records after this change id")
        public static let fields: [InputField<Input>] = [.experience(\.experience), since, .page(\.limit, of: "records")]
    }

    public typealias Output = ChangePage

    public static func run(_ input: Input, in session: Session) throws -> Output {
        // An id is written in one way only (ExperienceReference): "01", "+1", "1.0" and "0" name no experience.
        let experience = try session.registry.experience(input.experience, includingRemoved: true)
        try session.checkVisible(team: experience.clip.team, "experience \(input.experience)")
        // One more than asked says whether more follow.
        let records = try session.registry.changes(
            of: .experience, id: String(experience.id), since: input.since, limit: input.limit + 1, namingTokensOf: session.caller.team)
        let page = Array(records.prefix(input.limit))
        return Output(records: page, nextSince: records.count > input.limit ? page.last?.id : nil)
    }

    /// A member's value as `history` prints it: its JSON, or `(none)` when the object had no such member.
    static func shown(_ value: JSONValue?) -> String { value.map { JSONWriter.string($0) } ?? "(none)" }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/experiences/{id}/history"),
        command: Command(
            ["history"],
            CommandHelp(
                "show an experience's change records, oldest first",
                discussion: "Removed experiences keep their history: name them by id. 'clipctl changes' lists every record.",
                examples: [
                    CommandExample("clipctl history https://bikesrental.example/rent", "Every change made to an experience, oldest first"),
                    CommandExample("clipctl history 1 --since 40 --limit 10", "The next ten of experience 1's records after change 40"),
                ]),
            present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) {
        for r in output.records {
            let changed = r.changedMembers
            let actor = r.actorName.map { "token " + Shell.quote($0) } ?? r.actor
            // The version the record made, which `revert --to` names (a removal makes none).
            let version = r.after?["version"].map { "  version " + JSONWriter.string($0) } ?? ""
            printer.line(
                "\(r.id)  \(r.at)  \(actor)  \(r.action.rawValue)\(version)"
                    + (changed.isEmpty ? "" : "  " + changed.joined(separator: ", ")))
            for member in changed {
                printer.line("    \(member): \(Self.shown(r.before?[member])) → \(Self.shown(r.after?[member]))")
            }
        }
        // Where the rest begins: the same command line from the next record on.
        if let next = output.nextSince {
            printer.err("more records follow: \(Shell.command(words.again(setting: Input.since.facts, to: String(next))))\n")
        }
    }
}
