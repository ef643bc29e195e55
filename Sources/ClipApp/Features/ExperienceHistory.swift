import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// An experience's change records, oldest first, a page at a time: `GET /v1/experiences/{id}/history`
/// and `clipctl history ID|URL`. A team token reads its own team's experiences only; a removed
/// experience keeps its history (by id).
public enum ExperienceHistory: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        /// The experience's id, or its registered URL.
        public var experience: String
        /// Only the records after this change id.
        public var since: Int64
        public var limit: Int

        public init(experience: String, since: Int64 = 0, limit: Int = 100) {
            self.experience = experience
            self.since = since
            self.limit = limit
        }

        public init(reading reader: inout ArgumentReader) {
            experience = reader.string("id", required: true) ?? ""
            since = reader.integer("since", in: 0...Int64.max) ?? 0
            limit = reader.pageLimit(fallback: 100)
        }

        public var arguments: Arguments {
            Arguments([("id", experience), ("since", String(since)), ("limit", String(limit))])
        }
    }

    public struct Output: OperationOutput {
        public var records: [ChangeRecord]
        /// The `since` of the next page; nil on the last.
        public var nextSince: Int64?

        public var json: JSONValue { ListJSON.changes(records.map(ChangeRecordJSON.record), nextSince: nextSince) }

        public init(records: [ChangeRecord], nextSince: Int64?) {
            self.records = records
            self.nextSince = nextSince
        }

        public init(json: JSONValue) throws(WireError) {
            records = try ListJSON.items(json: json).map { (v) throws(WireError) in try ChangeRecordJSON.record(json: v) }
            nextSince = json["nextSince"].flatMap { if case .integer(let n) = $0 { n } else { nil } }
        }
    }

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
        Self.self, "GET", "/v1/experiences/{id}/history",
        command: CommandSpec(
            "history", summary: "show an experience's change records, oldest first",
            discussion: "Removed experiences keep their history: name them by id. 'clipctl changes' lists every record.",
            positionals: [PositionalSpec("ID|URL", help: "experience id or registered URL")],
            options: [
                .option("since", value: "ID", help: "only records after this change id (default 0)"),
                .option("limit", value: "N", help: "at most this many records, 1 to 1000 (default 100)"),
            ],
            examples: [
                Example("clipctl history https://bikesrental.example/rent", "Every change made to an experience, oldest first"),
                Example("clipctl history 1 --since 40 --limit 10", "The next ten of experience 1's records after change 40"),
            ])
    ) { output, parsed, printer in
        for r in output.records {
            let changed = r.changedMembers
            let actor = r.actorName.map { "token " + Shell.quote($0) } ?? r.actor
            printer.line(
                "\(r.id)  \(r.at)  \(actor)  \(r.action.rawValue)" + (changed.isEmpty ? "" : "  " + changed.joined(separator: ", ")))
            for member in changed {
                printer.line("    \(member): \(Self.shown(r.before?[member])) → \(Self.shown(r.after?[member]))")
            }
        }
        // Where the rest begins, as the command to run next: the caller's own options kept (never a token).
        if let next = output.nextSince {
            var words = ["clipctl"]
            for option in ["db", "server"] { if let value = parsed.value(option) { words += ["--\(option)", value] } }
            words += ["history", parsed.positionals.first ?? "", "--since", String(next)]
            if let limit = parsed.value("limit") { words += ["--limit", limit] }
            printer.err("more records follow: \(Shell.command(words))\n")
        }
    }
}
