public import ClipCore
import ClipStore
public import ClipSync
public import ClipSyncEngine
public import ClipWire
public import StrictJSON

/// What an apply would change in App Store Connect (docs/app-store-connect.md): `GET /v1/asc/plan` (admin only, on a
/// server started with a key) and `clipctl asc plan`; `clipctl asc status` reads the same route (`AscStatus`).
public enum AscPlan: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        /// One linked clip; nil: every linked clip.
        public var clip: String?
        /// `prune` as given: also remove experiences only App Store Connect has.
        public var prune: String?
        /// The moment the plan is for: what App Store Connect should hold then (docs/schedules.md#app-store-connect).
        public var at: Instant?
        public init() {}
        static let clip = InputField.linkedClip(\Input.clip)
        static let prune = InputField.flag("prune", \Input.prune, help: "also remove experiences only App Store Connect has")
        public static let fields: [InputField<Input>] = [clip, prune, .moment(\.at)]
    }

    public typealias Output = SyncPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let prune = try flag(input.prune, Input.prune.facts.name)
        let engine = try session.syncEngine()
        engine.at = input.at
        let plans = try synced { () throws(SyncFailure) in try engine.plans(clip: input.clip, prune: prune) }
        return SyncPlans(plans: plans, schedules: try plans.map { try schedule($0, in: session) })
    }

    /// A clip's changes in time (docs/schedules.md#app-store-connect): the pushes to come in the next 90 days, those due
    /// whose step is still pending (overdue), and the latest the scheduler made.
    static func schedule(_ plan: SyncPlan, in session: Session) throws -> PushSchedule {
        let registry = session.registry
        let lead = try registry.ascLink(plan.clip.rawValue)?.leadSeconds ?? AppStoreConnectLink.defaultLeadSeconds
        let experiences = try registry.experiences(Registry.ListFilter(clip: plan.clip))
        let now = registry.instant
        let pending = Set(plan.pending.compactMap(\.experienceID))
        var upcoming = AppStoreConnectSchedule.pushes(
            experiences, after: now, through: Instant(seconds: now.seconds + 90 * 86_400), leadSeconds: lead
        ).map { PushSchedule.Line(kind: $0.kind.rawValue, name: $0.url, dueAt: $0.dueAt.description, pushedAt: nil) }
        let ahead = Set(try registry.campaigns(team: plan.clip.team).filter(\.pushAhead).map(\.id))
        for flip in try registry.upcomingFlips(team: plan.clip.team) where flip.kind == .campaignStart || flip.kind == .campaignEnd {
            let early = ahead.contains(flip.subject)
            let due = early ? Instant(seconds: max(0, flip.dueAt.seconds - lead)) : flip.dueAt
            // One pushed ahead whose push time has come is among those pushed.
            guard due > now else { continue }
            upcoming.append(
                PushSchedule.Line(
                    kind: "campaign",
                    name: "\(flip.kind == .campaignStart ? "start" : "end") of campaign \(flip.name)\(early ? ", ahead" : "")",
                    dueAt: due.description, pushedAt: nil))
        }
        let overdue = AppStoreConnectSchedule.pushes(experiences, after: .earliest, through: now, leadSeconds: lead).filter {
            pending.contains($0.experienceID)
        }.map { PushSchedule.Line(kind: $0.kind.rawValue, name: $0.url, dueAt: $0.dueAt.description, pushedAt: nil) }
        let pushed = try registry.ascScheduledPushes(clip: plan.clip).map {
            PushSchedule.Line(kind: $0.kind, name: $0.name, dueAt: $0.dueAt, pushedAt: $0.pushedAt)
        }
        return PushSchedule(
            clip: plan.clip.rawValue, leadSeconds: lead, upcoming: upcoming.sorted { $0.dueAt < $1.dueAt }, overdue: overdue, pushed: pushed
        )
    }

    /// A flag given as a query item: `true`, `1` or empty, `false` or `0`.
    static func flag(_ text: String?, _ name: String) throws(InvalidArguments) -> Bool {
        switch text?.lowercased() {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        default:
            throw InvalidArguments("\(name) is true or false", [FieldError(field: name, rule: "type", message: "expected true or false")])
        }
    }

    /// The `/v1/asc` routes answer when App Store Connect has, so a command waits up to 15 minutes (or `CLIP_TIMEOUT`
    /// if longer); App Store Connect unavailable to the server (502, 503) is exit 69, as on the database.
    static let serverCall = ServerCall(minimumWaitSeconds: 900, unavailableStatuses: [502, 503])

    /// One plan alone when `--clip` names it (`--json`).
    static let commandJSON = JSONForm<SyncPlans>.line { output, words in
        output.plans.count == 1 && words.value(Input.clip.facts.name) != nil ? output.plans[0].json : output.json
    }

    static let detailedExitCode = FieldFacts.flag("detailed-exitcode", help: "exit 2 when changes are pending")

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/asc/plan"),
        command: Command(
            ["asc", "plan"],
            CommandHelp(
                "what an apply would change in App Store Connect, and why, per experience", discussion: SyncPlans.exitCodes,
                examples: [
                    CommandExample("clipctl asc plan --detailed-exitcode", "Show what an apply would change; exit 2 when something would")
                ]),
            options: [detailedExitCode] + AppStoreConnectKey.options, json: commandJSON, server: serverCall,
            present: { output, words, printer in
                for plan in output.plans { printer.plan(plan) }
                if let status = SyncPlans.exitStatus(
                    refused: output.plans.map(\.allRefused.count).reduce(0, +), pending: !output.plans.allSatisfy(\.isInSync),
                    detailed: words.flag(detailedExitCode.name))
                {
                    throw status
                }
            }))
}

/// `clipctl asc status`: the steps of `GET /v1/asc/plan` as states (in sync, pending, drifted), beside App Store
/// Connect's ids and states; the route is `AscPlan`'s, served once, under its binding.
public enum AscStatus: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip: String?
        public init() {}
        public static let fields: [InputField<Input>] = [.linkedClip(\.clip)]
    }

    public typealias Output = SyncPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var plan = AscPlan.Input()
        plan.clip = input.clip
        return try AscPlan.run(plan, in: session)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/asc/plan", served: false),
        command: Command(
            ["asc", "status"],
            CommandHelp(
                "per experience: in sync, pending or drifted, with App Store Connect's ids and states",
                examples: [
                    CommandExample(
                        "clipctl asc status --clip ABCDE12345.com.example.bikes.Clip", "Which experiences are in sync, pending or drifted")
                ]),
            options: AppStoreConnectKey.options, json: AscPlan.commandJSON, server: AscPlan.serverCall,
            present: { output, _, printer in
                for (i, plan) in output.plans.enumerated() {
                    printer.status(plan)
                    if i < output.schedules.count { printer.schedule(output.schedules[i]) }
                }
            }))
}

/// Makes App Store Connect hold the registry's experiences: `POST /v1/asc/apply` (admin only; a body `{"clip", "prune"}`
/// or none) and `clipctl asc apply`, which without `--yes` shows the plan and sends nothing.
public enum AscApply: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip: String?
        public var prune = false
        public init() {}
        public static let fields: [InputField<Input>] = [
            .linkedClip(\.clip, in: .body),
            .flag("prune", \.prune, in: .body, help: "also remove experiences only App Store Connect has"),
        ]
    }

    public typealias Output = ApplyOutput

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let reports = try synced { () throws(SyncFailure) in try engine.apply(clip: input.clip, prune: input.prune) }
        return try ApplyOutput.finished(reports)
    }

    static let reviewFirst = "asc apply changes App Store Connect: review the plan above, then run it again with --yes"

    /// `--yes`: send the changes; without it the plan is shown and nothing is sent.
    static let yes = FieldFacts.flag("yes", help: "send the changes")
    /// The key's requests left to other tools: the server's to set (`serve`), refused with `--server`.
    static let rateReserve = FieldFacts.option(
        "rate-reserve", "N", help: "requests of the key's hourly limit left to other tools; stop (resumable) below it", default: "100")

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/asc/apply", body: .json(optional: true)),
        command: Command(
            ["asc", "apply"],
            CommandHelp(
                "make App Store Connect hold the registry's experiences (idempotent, resumable)",
                discussion: """
                    Without --yes it shows the plan and sends nothing. Steps App Store Connect would refuse stop it \
                    before anything is sent. An interrupted apply is finished by the next one, without duplicates.
                    """,
                examples: [CommandExample("clipctl asc apply --yes", "Send the registry's experiences to App Store Connect")]),
            options: [yes, rateReserve, ProgressChoice.option] + AppStoreConnectKey.options,
            steps: CommandSteps(answer: { words, arguments, run in
                if words.flag(yes.name) { return try run(AscApply.binding, arguments) }
                // Nothing is sent without --yes: the plan is shown first, as `asc plan` would.
                let apply = Input(arguments)
                var plan = AscPlan.Input()
                plan.clip = apply.clip
                if apply.prune { plan.prune = "true" }
                return try ApplyOutput.reviewAnswer(try run(AscPlan.binding, plan.arguments), words, refusal: reviewFirst)
            }),
            server: ServerCall(
                refusal: { words in
                    if words.value(rateReserve.name) != nil { return "--\(rateReserve.name) is the server's to set; not with --server" }
                    do throws(CommandUsageError) { _ = try ProgressChoice(words) } catch { return error.description }
                    return nil
                },
                minimumWaitSeconds: 900, unavailableStatuses: [409, 502, 503]),
            present: { output, _, printer in try output.present(printer, refusal: reviewFirst) }))
}

/// The plans of `GET /v1/asc/plan`: `{"plans": [...]}`, never cached (RFC 9111 §5.2.2.5).
public struct SyncPlans: OperationOutput {
    public var plans: [SyncPlan]
    /// Each plan's clip's changes in time, in the plans' order.
    public var schedules: [PushSchedule]
    public init(plans: [SyncPlan], schedules: [PushSchedule] = []) {
        self.plans = plans
        self.schedules = schedules
    }
    public var json: JSONValue { ["plans": .array(plans.map(\.json)), "schedules": .array(schedules.map(\.json))] }
    public var headers: [(name: String, value: String)] { [("Cache-Control", "no-store")] }
    public init(json: JSONValue) throws(WireError) {
        do { plans = try SyncPlan.plans(from: json) } catch { throw WireError(error.description) }
        schedules = try (json["schedules"]?.arrayValue ?? []).map { (value) throws(WireError) in try PushSchedule(json: value) }
    }

    static let exitCodes =
        "Exits 65 when App Store Connect would refuse a step (an apply would stop before sending anything), else 0; "
        + "with --detailed-exitcode 0 when in sync and 2 when changes are pending."

    /// How `asc plan` and `asc testflight plan` end (`exitCodes`): steps App Store Connect would refuse fail as the apply
    /// of them does (`SyncFailure.refused`), with or without --detailed-exitcode.
    static func exitStatus(refused: Int, pending: Bool, detailed: Bool) -> CommandVerdict? {
        if refused > 0 { return .wouldBeRefused("\(refused) step(s) would be refused: an apply would send nothing (see each fix)") }
        return detailed && pending ? .pending() : nil
    }
}

/// An apply's reports (`{"applied": [...]}`), or for a command without `--yes` the plans to review.
public struct ApplyOutput: OperationOutput {
    public var reports: [ApplyReport]
    /// The plans shown instead of applying (`asc apply` without `--yes`); nil for an apply.
    public var review: [SyncPlan]?

    init(reports: [ApplyReport], review: [SyncPlan]? = nil) {
        self.reports = reports
        self.review = review
    }

    public var json: JSONValue { review.map { SyncPlans(plans: $0).json } ?? ["applied": .array(reports.map(\.json))] }
    public var headers: [(name: String, value: String)] { [("Cache-Control", "no-store")] }

    public init(json: JSONValue) throws(WireError) {
        do {
            if json["applied"] == nil {
                self.init(reports: [], review: try SyncPlan.plans(from: json))
            } else {
                self.init(reports: try ApplyReport.reports(from: json))
            }
        } catch { throw WireError(error.description) }
    }

    /// The reports of a finished apply; one that stopped fails as its failure would (422, 502, 503…; exit 65, 69…),
    /// with what it did before.
    static func finished(_ reports: [ApplyReport]) throws -> ApplyOutput {
        let output = ApplyOutput(reports: reports)
        if let failure = reports.compactMap(\.failure).first {
            throw PartialFailure(cause: failure.operationError, partial: output.json)
        }
        return output
    }

    /// A command without `--yes`: the plan's answer to present, or under `--json` an apply with nothing done when every
    /// plan is in sync (exit 64 when one is not: nothing on standard output).
    static func reviewAnswer(_ planned: OperationAnswer, _ parsed: CommandWords, refusal: String) throws -> OperationAnswer {
        guard parsed.flag("json") else { return planned }
        let plans = try SyncPlans(json: planned.json).plans
        guard plans.allSatisfy(\.isInSync) else { throw CommandUsageError(refusal) }
        return OperationAnswer(json: ApplyOutput(reports: plans.map { ApplyReport(clip: $0.clip) }).json, status: 200)
    }

    func present(_ printer: Printer, refusal: String) throws {
        if let review {
            for plan in review { printer.plan(plan) }
            guard review.allSatisfy(\.isInSync) else { throw CommandUsageError(refusal) }
            return
        }
        for report in reports { printer.applied(report) }
    }
}

/// The App Store Connect key's options of the `asc` commands (their values stay in this process: never sent).
enum AppStoreConnectKey {
    static let keyID = FieldFacts.option("key-id", "ID", help: "App Store Connect API key ID (env ASC_KEY_ID)")
    static let issuerID = FieldFacts.option("issuer-id", "UUID", help: "the key's issuer ID (env ASC_ISSUER_ID)")
    static let privateKey = FieldFacts.option(
        "private-key", "FILE", help: "the key's .p8 file (env ASC_PRIVATE_KEY_PATH, or ASC_PRIVATE_KEY with the PEM)")
    static let baseURL = FieldFacts.option("asc-url", "URL", help: "App Store Connect API base URL (env ASC_API_URL)")
    static let options = [keyID, issuerID, privateKey, baseURL]
}

extension InputField {
    /// `--clip`: one linked clip (`asc`); none, every linked clip.
    static func linkedClip(
        _ key: any WritableKeyPath<Input, String?> & Sendable, in place: FieldPlace = .query,
        help: String = "only this linked clip (default: every linked clip)"
    ) -> InputField {
        .text("clip", key, in: place, "CLIP", help: help)
    }
}

/// A linked clip's App Store Connect changes in time (docs/schedules.md#app-store-connect), as `asc status` shows them.
public struct PushSchedule: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        /// `create`, `remove` or `campaign`.
        public var kind: String
        /// The experience's URL, or which campaign start or end.
        public var name: String
        public var dueAt: String
        /// When the scheduler's apply carried it; nil for one to come or overdue.
        public var pushedAt: String?
    }

    public var clip: String
    public var leadSeconds: Int64
    public var upcoming: [Line]
    /// Due, and still pending in the plan: no apply has carried it.
    public var overdue: [Line]
    /// The latest the scheduler pushed, latest first.
    public var pushed: [Line]

    var json: JSONValue {
        func lines(_ list: [Line]) -> JSONValue {
            .array(
                list.map {
                    .object([
                        ("kind", .string($0.kind)), ("name", .string($0.name)), ("dueAt", .string($0.dueAt)),
                        ("pushedAt", $0.pushedAt.map(JSONValue.string) ?? .null),
                    ])
                })
        }
        return .object([
            ("clip", .string(clip)), ("leadSeconds", .integer(leadSeconds)), ("upcoming", lines(upcoming)), ("overdue", lines(overdue)),
            ("pushed", lines(pushed)),
        ])
    }

    init(clip: String, leadSeconds: Int64, upcoming: [Line], overdue: [Line], pushed: [Line]) {
        self.clip = clip
        self.leadSeconds = leadSeconds
        self.upcoming = upcoming
        self.overdue = overdue
        self.pushed = pushed
    }

    init(json: JSONValue) throws(WireError) {
        func lines(_ key: String) throws(WireError) -> [Line] {
            try (json[key]?.arrayValue ?? []).map { (v) throws(WireError) in
                guard let kind = v["kind"]?.stringValue, let name = v["name"]?.stringValue, let due = v["dueAt"]?.stringValue else {
                    throw WireError("a push schedule's \(key) line is malformed")
                }
                return Line(kind: kind, name: name, dueAt: due, pushedAt: v["pushedAt"]?.stringValue)
            }
        }
        guard let clip = json["clip"]?.stringValue, case .integer(let lead)? = json["leadSeconds"] else {
            throw WireError("a push schedule is malformed")
        }
        self.init(
            clip: clip, leadSeconds: lead, upcoming: try lines("upcoming"), overdue: try lines("overdue"), pushed: try lines("pushed"))
    }
}
