import Foundation
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// Which experience an invocation URL gets: `clipctl resolve URL [--language L] [--explain]`, sent as
/// `GET /v1/resolve`. That route is a hot route the API answers from memory (ClipAPI/HotRoutes.swift,
/// `ClipAPI.resolve`), so this binding does not serve it (`servesRoute: false`). A miss is an answer,
/// not a failure: the route's 404 problem carries it, as `Output.json` writes it (`ClipAPI.resolve` answers
/// with it; `ResolutionJSON.miss(problem:)` reads it back), and the command prints it and exits 1, like grep.
public enum Resolve: Operation {
    public static let callers = CallerRule.open

    public struct Input: DeclaredInput {
        var url = ""
        var language: String?
        var explain = false
        var at: Instant?

        public init() {}

        static let url = InputField<Input>.text("url", \.url, "URL", help: "the invocation URL", required: true, positional: true)
        public static let fields: [InputField<Input>] = [
            url, .text("language", \.language, "LANG", help: "preferred card language (EN, fr-CA, …)"),
            .flag("explain", \.explain, help: "show the winner, the near misses and the candidates nearest the path, and why each lost"),
            .moment(\.at),
        ]

        /// An empty URL is no URL, as the route reads `?url=` (docs/http-api.md): the same words both ways.
        public mutating func check(_ reader: inout ArgumentReader) {
            let name = Self.url.facts.name
            if reader.arguments[name] == "" { reader.fail(name, "required", "is required") }
        }
    }

    public struct Output: OperationOutput {
        public var answer: ResolveAnswer
        /// A match as the route answers it; a miss as its 404 problem: `detail` says why, the other members follow.
        public var json: JSONValue {
            let members = ResolutionJSON.json(answer)
            guard answer.match == nil else { return members }
            return ProblemJSON.problem(
                status: 404, title: "Not Found", detail: "no match: \(answer.reason ?? "")", errors: [],
                extra: (members.objectMembers ?? []).filter { $0.key != "reason" })
        }
        public var status: Int? { answer.match == nil ? 404 : nil }
        public init(_ answer: ResolveAnswer) { self.answer = answer }
        /// The answer a resolution is, as `Resolution.json(explain:)` writes it and `clipctl` reads it back.
        public init(_ resolution: Resolution, explain: Bool) throws {
            answer = try ResolutionJSON.answer(json: resolution.json(explain: explain))
        }
        public init(json: JSONValue) throws(WireError) { answer = try ResolutionJSON.answer(json: json) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            guard status == 404 else {
                answer = try ResolutionJSON.answer(json: json)
                return
            }
            guard let miss = try ResolutionJSON.miss(problem: json) else { throw WireError("a 404 without the resolution") }
            answer = miss
        }
        /// The route's 404 that carries a miss is an answer; another 404 (the route missing) is not.
        public static func isOutput(_ answer: OperationAnswer) -> Bool {
            (200..<300).contains(answer.status) || answer.status == 404 && answer.json["invocationURL"] != nil
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let resolution = try session.registry.resolve(input.url, language: input.language, at: input.at)
        return try Output(resolution, explain: input.explain)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/resolve", served: false),
        command: Command(
            ["resolve"],
            CommandHelp(
                "show which experience an invocation URL gets", discussion: "Exits 1 when nothing matches, like grep.",
                examples: [
                    CommandExample(
                        "clipctl resolve 'https://bikesrental.example/rent?id=123' --explain",
                        "Which experience a scanned URL opens, and why each other candidate lost")
                ]),
            options: [FieldFacts.flag(allOption, help: "with --explain: list every candidate of the host, not only the nearest")],
            steps: CommandSteps(check: { words in
                if words.flag(allOption), !words.flag("explain") { throw CommandUsageError("--all goes with --explain") }
            }),
            json: .shape { ResolutionJSON.json($0.answer) },
            present: { output, words, printer in try present(output.answer, all: words.flag(allOption), printer) }))

    static let allOption = "all"

    /// At most this many lines of candidates by default (issue 34: an explanation on a host of 10,000 fits a screen).
    static let candidateLines = 12

    /// The candidates an explanation shows first (docs/rules.md#explanations-and-near-misses): the winner, the near
    /// misses, those whose path covers the URL's (less specific or deactivated, then a query item missing), then the
    /// others by how much of the invocation URL they share, ignoring case, nearest first. Each kind after the winner has
    /// at most `perKind` places before the rest of them, so that many of one kind cannot hide the others.
    public static func shortlist(_ candidates: [ResolveAnswer.Candidate], invocationURL: String, perKind: Int = 3)
        -> [ResolveAnswer.Candidate]
    {
        func rank(_ c: ResolveAnswer.Candidate) -> Int {
            switch c.outcome {
            case .chosen: 0
            case .pathMismatch: c.nearMiss == nil ? 4 : 1
            case .lessSpecific, .deactivated, .scheduled, .ended: 2
            case .queryMismatch: 3
            }
        }
        let target = Array(invocationURL.lowercased().utf8)
        func shared(_ c: ResolveAnswer.Candidate) -> Int { zip(Array(c.url.lowercased().utf8), target).prefix { $0 == $1 }.count }
        let ordered = candidates.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element), rank(b.element))
            if ra != rb { return ra < rb }
            if ra == 4 {
                let (sa, sb) = (shared(a.element), shared(b.element))
                if sa != sb { return sa > sb }
            }
            return a.offset < b.offset
        }.map(\.element)
        var taken: [Int: Int] = [:]
        var first: [ResolveAnswer.Candidate] = [], rest: [ResolveAnswer.Candidate] = []
        for c in ordered {
            let kind = rank(c)
            taken[kind, default: 0] += 1
            if kind == 0 || taken[kind]! <= perKind { first.append(c) } else { rest.append(c) }
        }
        return first + rest
    }

    static func present(_ answer: ResolveAnswer, all: Bool = false, _ printer: Printer) throws {
        switch answer.match {
        case .advanced(let e)?:
            printer.line("advanced experience \(e.id): \(e.url)")
            printer.line("  clip:   \(e.clip.rawValue)")
            printer.line("  card:   \(e.title) — \(e.subtitle) [\(e.language.tag)]")
            printer.line("  action: \(e.action.rawValue)")
        case .defaultExperience(let d)?:
            printer.line("default experience of \(d.clip.rawValue) (no advanced experience matches)")
            if let locale = d.locale {
                printer.line("  card:   \(d.title ?? "(the app's name)") — \(d.subtitle ?? "") [\(locale)]")
            }
            printer.line("  action: \(d.action.rawValue)")
        case nil:
            printer.line("no match: \(answer.reason ?? "")")
        }
        for note in answer.notes { printer.line("  note: \(note)") }
        if let candidates = answer.explanation {
            let shown = all ? candidates : shortlist(candidates, invocationURL: answer.invocationURL)
            printer.line(
                candidates.isEmpty
                    ? "candidates: none on this host" : "candidates: \(candidates.count) on this host\(all ? "" : ", nearest first")")
            var lines = 0, listed = 0
            for c in shown {
                let cost = c.nearMiss == nil ? 1 : 2
                if !all, lines + cost > candidateLines { break }
                printer.line("  \(c.id)  \(c.outcome.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))  \(c.url)  (\(c.detail))")
                if let nearMiss = c.nearMiss { printer.line("      warning: near miss: \(nearMiss)") }
                lines += cost
                listed += 1
            }
            let rest = shown.dropFirst(listed)
            if !rest.isEmpty {
                let outcomes = CandidateReport.Outcome.allCases.compactMap { outcome -> String? in
                    let n = rest.filter { $0.outcome == outcome }.count
                    return n == 0 ? nil : "\(n) \(outcome.rawValue)"
                }
                printer.line("  … and \(rest.count) more (\(outcomes.joined(separator: ", "))): --all lists every one")
            }
        }
        // Exit 1 on no match, like grep; the answer above already says why.
        if answer.match == nil { throw CommandVerdict.negative() }
    }
}
