import ClipCore
import ClipSync
import ClipSyncEngine
public import ClipWire
public import StrictJSON

/// What a build's App Clip invocations need to become each clip's chosen ones (docs/app-store-connect.md
/// #testflight-invocations): `GET /v1/asc/testflight/plan?clip=…&build=…` (admin only, on a server started with a key)
/// and `clipctl asc testflight plan`.
public enum TestFlightPlanRead: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        /// One linked clip; nil: every linked clip with invocations chosen.
        public var clip: String?
        /// The build's version (CFBundleVersion) or App Store Connect id; nil: the newest.
        public var build: String?
        public init() {}
        public static let fields: [InputField<Input>] = [.testFlightClip(\.clip), .build(\.build)]

        public mutating func check(_ reader: inout ArgumentReader) {
            if build == "" { reader.fail(TestFlightPlanRead.build.name, "empty", TestFlightPlanRead.emptyBuild) }
        }
    }

    public typealias Output = TestFlightPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let plans = try synced { () throws(SyncFailure) in try engine.testflightPlans(clip: input.clip, build: input.build) }
        return TestFlightPlans(plans: plans.map(\.json))
    }

    /// `--build`'s facts, as the TestFlight operations declare it (`InputField.build`).
    static let build = InputField<Input>.build(\.build).facts

    static let detailedExitCode = AscPlan.detailedExitCode.helped("exit 2 when changes are pending or there is no build")

    static let emptyBuild = "names no build: give its version (CFBundleVersion) or App Store Connect id, or leave it out for the newest"

    /// `--build ""` names nothing: a usage error before any request (App Store Connect would be sent `filter[version]=`).
    @Sendable static func checkBuild(_ words: CommandWords) throws {
        if words.value(build.name) == "" { throw CommandUsageError("--\(build.name) " + emptyBuild) }
    }

    public static let binding: Binding = Binding(
        Self.self, Route("GET", "/v1/asc/testflight/plan"),
        command: Command(
            ["asc", "testflight", "plan"],
            CommandHelp(
                "what apply would change in a build's App Clip invocations",
                discussion: SyncPlans.exitCodes + " No build with an App Clip is not in sync.",
                examples: [CommandExample("clipctl asc testflight plan", "What the newest build's App Clip would be given")]),
            options: [detailedExitCode] + AppStoreConnectKey.options,
            steps: CommandSteps(check: checkBuild), server: AscPlan.serverCall,
            present: { output, words, printer in
                for plan in output.plans { printer.testflightPlan(plan) }
                let refused = output.plans.map { plan in
                    (plan["steps"]?.arrayValue ?? []).filter { !($0["refusals"]?.arrayValue ?? []).isEmpty }.count
                }
                if let status = SyncPlans.exitStatus(
                    refused: refused.reduce(0, +), pending: output.plans.contains { $0["inSync"]?.boolValue != true },
                    detailed: words.flag(detailedExitCode.name))
                {
                    throw status
                }
            }))
}

/// What the newest builds' App Clips offer testers, beside each clip's chosen invocations, newest first:
/// `GET /v1/asc/testflight/status?clip=…&builds=N` (admin only) and `clipctl asc testflight status`.
public enum TestFlightStatus: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip: String?
        /// How many of the newest builds, 1 to 10.
        public var builds: Int64 = 3
        public init() {}
        public static let fields: [InputField<Input>] = [
            .testFlightClip(\.clip),
            .integer("builds", \.builds, in: 1...10, default: 3, "N", help: "how many of the newest builds, 1 to 10"),
        ]
    }

    public typealias Output = TestFlightPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let plans = try synced { () throws(SyncFailure) in try engine.testflightStatus(clip: input.clip, builds: Int(input.builds)) }
        return TestFlightPlans(plans: plans.map(\.json))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/asc/testflight/status"),
        command: Command(
            ["asc", "testflight", "status"],
            CommandHelp(
                "what the newest builds' App Clips offer testers, beside the chosen invocations",
                discussion: "Per build, newest first: each invocation it offers (nothing), lacks (create) or should drop (remove).",
                examples: [CommandExample("clipctl asc testflight status --builds 5", "What the five newest builds offer testers")]),
            options: AppStoreConnectKey.options, server: AscPlan.serverCall,
            present: { output, _, printer in for plan in output.plans { printer.testflightPlan(plan) } }))
}

/// Makes a build's App Clip offer each clip's chosen invocations: `POST /v1/asc/testflight/apply` (admin only; a body
/// `{"clip", "build"}` or none) and `clipctl asc testflight apply`, which without `--yes` shows the plan and sends nothing.
public enum TestFlightApply: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip: String?
        public var build: String?
        public init() {}
        public static let fields: [InputField<Input>] = [.testFlightClip(\.clip, in: .body), .build(\.build, in: .body)]

        public mutating func check(_ reader: inout ArgumentReader) {
            if build == "" { reader.fields.fail(TestFlightPlanRead.build.name, "empty", TestFlightPlanRead.emptyBuild) }
        }
    }

    public typealias Output = TestFlightApplyOutput

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let reports = try synced { () throws(SyncFailure) in try engine.testflightApply(clip: input.clip, build: input.build) }
        return TestFlightApplyOutput(applied: try ApplyOutput.finished(reports))
    }

    static let reviewFirst = "asc testflight apply changes App Store Connect: review the plan above, then run it again with --yes"

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/asc/testflight/apply", body: .json(optional: true)),
        command: Command(
            ["asc", "testflight", "apply"],
            CommandHelp(
                "make a build's App Clip offer the chosen invocations (idempotent, resumable)",
                discussion: "Without --yes it shows the plan and sends nothing.",
                examples: [
                    CommandExample(
                        "clipctl asc testflight apply --build 1.4 --yes",
                        "In a release pipeline, after the upload: give build 1.4's App Clip its TestFlight invocations")
                ]),
            options: [AscApply.yes] + AppStoreConnectKey.options,
            steps: CommandSteps(
                check: TestFlightPlanRead.checkBuild,
                answer: { words, arguments, run in
                    if words.flag(AscApply.yes.name) { return try run(TestFlightApply.binding, arguments) }
                    let apply = Input(arguments)
                    var plan = TestFlightPlanRead.Input()
                    (plan.clip, plan.build) = (apply.clip, apply.build)
                    let answer = try run(TestFlightPlanRead.binding, plan.arguments)
                    guard words.flag("json") else { return answer }
                    let plans = try TestFlightPlans(json: answer.json).plans
                    guard plans.allSatisfy({ $0["inSync"]?.boolValue == true }) else { throw CommandUsageError(reviewFirst) }
                    let clips = try plans.map { (plan) throws(WireError) in try TestFlightPlans.clip(plan) }
                    return OperationAnswer(json: ApplyOutput(reports: clips.map { ApplyReport(clip: $0) }).json, status: 200)
                }),
            server: ServerCall(minimumWaitSeconds: 900, unavailableStatuses: [409, 502, 503]),
            present: { output, _, printer in try output.present(printer, refusal: reviewFirst) }))
}

extension InputField {
    /// `--clip` of the TestFlight operations: one linked clip; none, every linked clip with invocations chosen.
    fileprivate static func testFlightClip(_ key: any WritableKeyPath<Input, String?> & Sendable, in place: FieldPlace = .query)
        -> InputField
    {
        .linkedClip(key, in: place, help: "only this linked clip (default: every linked clip with invocations chosen)")
    }

    /// `--build`: a build by its version (CFBundleVersion) or App Store Connect id; none, the newest.
    fileprivate static func build(_ key: any WritableKeyPath<Input, String?> & Sendable, in place: FieldPlace = .query) -> InputField {
        .text(
            "build", key, in: place, "VERSION|ID",
            help: "the build: its version (CFBundleVersion) or App Store Connect id (default: the newest)")
    }
}

/// The plans of `GET /v1/asc/testflight/plan` (`{"plans": [...]}`, never cached), each as `TestFlightPlan.json` wrote
/// it: a command prints them from that JSON, the same on a database and over `--server`.
public struct TestFlightPlans: OperationOutput {
    public var plans: [JSONValue]
    public init(plans: [JSONValue]) { self.plans = plans }
    public var json: JSONValue { ["plans": .array(plans)] }
    public var headers: [(name: String, value: String)] { [("Cache-Control", "no-store")] }
    public init(json: JSONValue) throws(WireError) {
        guard let plans = json["plans"]?.arrayValue else { throw WireError("the answer has no plans") }
        for plan in plans { _ = try Self.clip(plan) }
        self.plans = plans
    }

    static func clip(_ plan: JSONValue) throws(WireError) -> AppID {
        guard let text = plan["clip"]?.stringValue, let clip = try? AppID(text), plan["steps"]?.arrayValue != nil else {
            throw WireError("a plan without clip or steps")
        }
        return clip
    }
}

/// A TestFlight apply's reports (`{"applied": [...]}`, as `ApplyOutput`), or for a command without `--yes` the
/// TestFlight plans to review.
public struct TestFlightApplyOutput: OperationOutput {
    public var applied: ApplyOutput
    /// The plans shown instead of applying; nil for an apply.
    public var review: [JSONValue]?

    init(applied: ApplyOutput, review: [JSONValue]? = nil) {
        self.applied = applied
        self.review = review
    }

    public var json: JSONValue { review.map { TestFlightPlans(plans: $0).json } ?? applied.json }
    public var headers: [(name: String, value: String)] { [("Cache-Control", "no-store")] }

    public init(json: JSONValue) throws(WireError) {
        if json["applied"] == nil {
            self.init(applied: ApplyOutput(reports: []), review: try TestFlightPlans(json: json).plans)
        } else {
            self.init(applied: try ApplyOutput(json: json))
        }
    }

    func present(_ printer: Printer, refusal: String) throws {
        guard let review else { return try applied.present(printer, refusal: refusal) }
        for plan in review { printer.testflightPlan(plan) }
        guard review.allSatisfy({ $0["inSync"]?.boolValue == true }) else { throw CommandUsageError(refusal) }
    }
}

extension Printer {
    /// One clip's TestFlight plan, from `TestFlightPlan.json`: each step with the titles a create sends, its changes
    /// and refusals, then a summary.
    func testflightPlan(_ plan: JSONValue) {
        let build = plan["build"].flatMap { b in
            b["version"]?.stringValue.map { "build \($0) (\(b["id"]?.stringValue ?? ""))" }
        }
        line("clip \(plan["clip"]?.stringValue ?? ""), \(build ?? "no build")")
        let steps = plan["steps"]?.arrayValue ?? []
        let rows = steps.map { [$0["action"]?.stringValue ?? "", $0["url"]?.stringValue ?? "", $0["ascInvocationId"]?.stringValue ?? "-"] }
        let lines = Printer.table(["ACTION", "URL", "ASC ID"], rows)
        if !steps.isEmpty { line(lines[0]) }
        for (step, row) in zip(steps, lines.dropFirst()) {
            line(row)
            if step["action"]?.stringValue == "create" {
                for title in step["titles"]?.arrayValue ?? [] {
                    line("      \(title["locale"]?.stringValue ?? ""): \"\(title["title"]?.stringValue ?? "")\"")
                }
            }
            for change in step["changes"]?.arrayValue ?? [] { line("      \(change.stringValue ?? "")") }
            for refusal in step["refusals"]?.arrayValue ?? [] {
                refused(
                    refusal["rule"]?.stringValue ?? "", refusal["message"]?.stringValue ?? "", fix: refusal["fix"]?.stringValue ?? "")
            }
        }
        for note in plan["notes"]?.arrayValue ?? [] { line("  note: \(note.stringValue ?? "")") }
        if plan["build"]?["appClipBuildBundle"]?.stringValue == nil {
            line("no build with an App Clip: nothing to give the invocations to (upload one, or name it with --build)")
        } else if plan["inSync"]?.boolValue == true {
            line("in sync: nothing to do")
        } else {
            let pending = steps.filter { $0["action"]?.stringValue != "nothing" }.count
            let refused = steps.filter { !($0["refusals"]?.arrayValue ?? []).isEmpty }.count
            var summary = "pending: \(pending) change(s)"
            if refused > 0 { summary += "; \(refused) would be refused (see fix)" }
            line(summary)
        }
    }
}
