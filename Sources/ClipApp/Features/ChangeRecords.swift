import ArgParse
import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Every change record after a change id, oldest first, a page at a time: `GET /v1/changes` (an
/// admin token's: records span every team, docs/rules.md#tenancy) and `clipctl changes`, which
/// reads up to 10,000 in pages of at most 1,000, as the route serves them.
public enum ChangeList: Operation {
    public static let callers = CallerRule.admin

    public struct Input: OperationInput {
        public var arguments: Arguments
        var since: String?
        var limit: String?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            since = reader.string("since")
            limit = reader.string("limit")
        }
    }

    public typealias Output = ExperienceHistory.Output

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let since = try input.since.map { (text) throws(InvalidArguments) -> Int64 in
            guard let n = Int64(text), n >= 0 else {
                throw InvalidArguments(
                    "since is a change id", [FieldError(field: "since", rule: "type", message: "expected a whole number ≥ 0")])
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
        Self.self, "GET", "/v1/changes",
        command: CommandSpec(
            "changes", summary: "list change records",
            options: [
                .option("since", value: "ID", help: "only records after this id"),
                .option("limit", value: "N", help: "at most N records (default 100)"),
            ], examples: [Example("clipctl changes --since 120 --limit 20", "The 20 change records after record 120")]),
        commandJSON: { .array($0.records.map(ChangeRecordJSON.record)) },
        commandInput: { line, arguments in
            let parsed = line.parsed
            if let text = parsed.value("since") {
                guard let n = Int64(text), n >= 0 else { throw CommandUsageError("--since takes a change id (a whole number)") }
                arguments.append("since", String(n))
            }
            if let text = parsed.value("limit") {
                guard let n = Int(text), (1...10_000).contains(n) else { throw CommandUsageError("--limit takes a number from 1 to 10000") }
                arguments.append("limit", String(n))
            }
        },
        commandAnswer: { _, arguments, run in
            let limit = Int(arguments["limit"] ?? "") ?? 100
            var records: [ChangeRecord] = [], next: Int64? = Int64(arguments["since"] ?? "") ?? 0
            while let after = next, records.count < limit {
                let size = min(limit - records.count, pageSize)
                let page = try Output(json: try run(binding, Arguments([("since", String(after)), ("limit", String(size))])).json)
                records += page.records
                next = page.nextSince
            }
            return OperationAnswer(json: Output(records: records, nextSince: next).json, status: 200)
        },
        standardErrorUnderJSON: true, present: present)

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) {
        for r in output.records { printer.line("\(r.id)  \(r.at)  \(r.actor)  \(r.action) \(r.entity) \(r.entityID)") }
        // Where the rest begins, on standard error (with --json too, whose output stays the array), as the
        // command to run next: the caller's own options kept (never a token: it is a secret).
        guard let next = output.nextSince else { return }
        var words = ["clipctl"]
        for option in ["db", "server"] { if let value = parsed.value(option) { words += ["--\(option)", value] } }
        words += ["changes", "--since", String(next)]
        if let value = parsed.value("limit") { words += ["--limit", value] }
        if parsed.flag("json") { words.append("--json") }
        printer.err("more records follow: \(Shell.command(words))\n")
    }
}
