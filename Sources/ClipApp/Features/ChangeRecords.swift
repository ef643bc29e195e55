import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Every change record after a change id, oldest first, a page at a time: `GET /v1/changes` (an
/// admin token's: records span every team, docs/rules.md#tenancy) and `clipctl changes`, which
/// reads up to 10,000 in pages of at most 1,000, as the route serves them.
public enum ChangeList: Operation {
    public static let callers = CallerRule.admin

    /// `since` and `limit` as given: the route reads them in its own words; the command reads up to 10,000 records.
    public struct Input: DeclaredInput {
        var since: String?
        var limit: String?
        public init() {}
        static let since = InputField<Input>.text("since", \.since, "ID", help: "only records after this id")
        static let limit = InputField<Input>.limit(\.limit, help: "at most N records", commandDefault: 100)
        public static let fields: [InputField<Input>] = [since, limit]
    }

    public typealias Output = ExperienceHistory.Output

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let since = try input.since.map { (text) throws(InvalidArguments) -> Int64 in
            guard let n = Int64(text), n >= 0 else {
                throw InvalidArguments(
                    "since is a change id",
                    [FieldError(field: Input.since.facts.name, rule: "type", message: "expected a whole number ≥ 0")])
            }
            return n
        }
        let limit = try PageLimit.read(input.limit, fallback: 100)
        // One more than asked says whether any follow: nextSince only when some do.
        let records = try session.registry.changes(since: since ?? 0, limit: limit + 1)
        let page = Array(records.prefix(limit))
        return Output(records: page, nextSince: records.count > limit ? page.last?.id : nil)
    }

    /// The most records one request reads (the route's `limit`).
    static let pageSize = PageLimit.largest

    public static let binding: Binding = Binding(
        Self.self, Route("GET", "/v1/changes"),
        command: Command(
            ["changes"],
            CommandHelp(
                "list change records",
                examples: [CommandExample("clipctl changes --since 120 --limit 20", "The 20 change records after record 120")]),
            steps: CommandSteps(check: check, answer: answer, standardErrorUnderJSON: true),
            json: .shape { .array($0.records.map(ChangeRecordJSON.record)) }, present: present))

    /// The command's own words for a malformed `--since` or `--limit` (exit 64): it reads up to 10,000 records.
    @Sendable static func check(_ words: CommandWords) throws {
        if let text = words.value(Input.since.facts.option), Int64(text).map({ $0 < 0 }) ?? true {
            throw CommandUsageError("--\(Input.since.facts.option) takes a change id (a whole number)")
        }
        if let text = words.value(Input.limit.facts.option), !(Int(text).map { (1...10_000).contains($0) } ?? false) {
            throw CommandUsageError("--\(Input.limit.facts.option) takes a number from 1 to 10000")
        }
    }

    /// The records the command asks for, read in pages of at most `pageSize`.
    @Sendable static func answer(_ words: CommandWords, _ arguments: Arguments, _ run: OperationRunner) throws -> OperationAnswer {
        let (since, limit) = (Input.since.facts.name, Input.limit.facts.name)
        let wanted = Int(arguments[limit] ?? "") ?? 100
        var records: [ChangeRecord] = [], next: Int64? = Int64(arguments[since] ?? "") ?? 0
        while let after = next, records.count < wanted {
            let size = min(wanted - records.count, pageSize)
            let page = try Output(json: try run(binding, Arguments([(since, String(after)), (limit, String(size))])).json)
            records += page.records
            next = page.nextSince
        }
        return OperationAnswer(json: Output(records: records, nextSince: next).json, status: 200)
    }

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) {
        for r in output.records { printer.line("\(r.id)  \(r.at)  \(r.actor)  \(r.action) \(r.entity) \(r.entityID)") }
        // Where the rest begins, on standard error (with --json too, whose output stays the array), as the
        // command to run next: the caller's own options kept (never a token: it is a secret).
        guard let next = output.nextSince else { return }
        var words = ["clipctl"]
        for option in ["db", "server"] { if let value = parsed.value(option) { words += ["--\(option)", value] } }
        let (since, limit) = (Input.since.facts.option, Input.limit.facts.option)
        words += ["changes", "--\(since)", String(next)]
        if let value = parsed.value(limit) { words += ["--\(limit)", value] }
        if parsed.flag("json") { words.append("--json") }
        printer.err("more records follow: \(Shell.command(words))\n")
    }
}
