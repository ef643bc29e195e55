import ArgParse
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

    public struct Input: OperationInput {
        /// One linked clip; nil: every linked clip with invocations chosen.
        public var clip: String?
        /// The build's version (CFBundleVersion) or App Store Connect id; nil: the newest.
        public var build: String?
        public init(reading reader: inout ArgumentReader) {
            clip = reader.string("clip")
            build = reader.string("build")
            if build == "" { reader.fail("build", "empty", TestFlightPlanRead.emptyBuild) }
        }
        public var arguments: Arguments {
            var arguments = Arguments()
            arguments.append("clip", clip)
            arguments.append("build", build)
            return arguments
        }
    }

    public typealias Output = TestFlightPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let plans = try synced { () throws(SyncFailure) in try engine.testflightPlans(clip: input.clip, build: input.build) }
        return TestFlightPlans(plans: plans.map(\.json))
    }

    static let options: [OptionSpec] = [
        .option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip with invocations chosen)"),
        .option(
            "build", value: "VERSION|ID", help: "the build: its version (CFBundleVersion) or App Store Connect id (default: the newest)"),
    ]

    static let emptyBuild = "names no build: give its version (CFBundleVersion) or App Store Connect id, or leave it out for the newest"

    /// `--build ""` names nothing: a usage error before any request (App Store Connect would be sent `filter[version]=`).
    static func checkBuild(_ parsed: CommandWords) throws {
        if parsed.value("build") == "" { throw CommandUsageError("--build " + emptyBuild) }
    }

    @Sendable static func commandInput(_ line: CommandLine, _ arguments: inout Arguments) {
        arguments.append("clip", line.parsed.value("clip"))
        arguments.append("build", line.parsed.value("build"))
    }

    public static let binding: Binding = Binding(
        Self.self, "GET", "/v1/asc/testflight/plan",
        command: CommandSpec(
            "plan", summary: "what apply would change in a build's App Clip invocations",
            discussion: SyncPlans.exitCodes + " No build with an App Clip is not in sync.",
            options: options + [.flag("detailed-exitcode", help: "exit 2 when changes are pending or there is no build")]
                + AppStoreConnectKey.options,
            examples: [Example("clipctl asc testflight plan", "What the newest build's App Clip would be given")]),
        under: ["asc", "testflight"], commandInput: commandInput,
        commandAnswer: { parsed, arguments, run in
            try checkBuild(parsed)
            return try run(TestFlightPlanRead.binding, arguments)
        },
        serverCall: AscPlan.serverCall,
        present: { output, parsed, printer in
            for plan in output.plans { printer.testflightPlan(plan) }
            let refused = output.plans.map { plan in
                (plan["steps"]?.arrayValue ?? []).filter { !($0["refusals"]?.arrayValue ?? []).isEmpty }.count
            }
            if let status = SyncPlans.exitStatus(
                refused: refused.reduce(0, +), pending: output.plans.contains { $0["inSync"]?.boolValue != true },
                detailed: parsed.flag("detailed-exitcode"))
            {
                throw status
            }
        })
}

/// What the newest builds' App Clips offer testers, beside each clip's chosen invocations, newest first:
/// `GET /v1/asc/testflight/status?clip=…&builds=N` (admin only) and `clipctl asc testflight status`.
public enum TestFlightStatus: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: OperationInput {
        public var clip: String?
        /// How many of the newest builds, 1 to 10.
        public var builds: Int
        public init(reading reader: inout ArgumentReader) {
            clip = reader.string("clip")
            builds = Int(reader.integer("builds", in: 1...10) ?? 3)
        }
        public var arguments: Arguments {
            var arguments = Arguments()
            arguments.append("clip", clip)
            arguments.append("builds", String(builds))
            return arguments
        }
    }

    public typealias Output = TestFlightPlans

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let plans = try synced { () throws(SyncFailure) in try engine.testflightStatus(clip: input.clip, builds: input.builds) }
        return TestFlightPlans(plans: plans.map(\.json))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/asc/testflight/status",
        command: CommandSpec(
            "status", summary: "what the newest builds' App Clips offer testers, beside the chosen invocations",
            discussion: "Per build, newest first: each invocation it offers (nothing), lacks (create) or should drop (remove).",
            options: [
                TestFlightPlanRead.options[0],
                .option("builds", value: "N", help: "how many of the newest builds, 1 to 10 (default 3)"),
            ] + AppStoreConnectKey.options,
            examples: [Example("clipctl asc testflight status --builds 5", "What the five newest builds offer testers")]),
        under: ["asc", "testflight"],
        commandInput: { line, arguments in
            arguments.append("clip", line.parsed.value("clip"))
            arguments.append("builds", line.parsed.value("builds"))
        },
        serverCall: AscPlan.serverCall,
        present: { output, _, printer in for plan in output.plans { printer.testflightPlan(plan) } })
}

/// Makes a build's App Clip offer each clip's chosen invocations: `POST /v1/asc/testflight/apply` (admin only; a body
/// `{"clip", "build"}` or none) and `clipctl asc testflight apply`, which without `--yes` shows the plan and sends nothing.
public enum TestFlightApply: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: OperationInput {
        public var clip: String?
        public var build: String?
        public init(reading reader: inout ArgumentReader) {
            clip = reader.fields.string("clip")
            build = reader.fields.string("build")
            if build == "" { reader.fields.fail("build", "empty", TestFlightPlanRead.emptyBuild) }
        }
        public var arguments: Arguments {
            Arguments(body: .object(["clip": clip.map { .string($0) }, "build": build.map { .string($0) }]))
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
        Self.self, "POST", "/v1/asc/testflight/apply",
        command: CommandSpec(
            "apply", summary: "make a build's App Clip offer the chosen invocations (idempotent, resumable)",
            discussion: "Without --yes it shows the plan and sends nothing.",
            options: TestFlightPlanRead.options + [.flag("yes", help: "send the changes")] + AppStoreConnectKey.options,
            examples: [
                Example(
                    "clipctl asc testflight apply --build 1.4 --yes",
                    "In a release pipeline, after the upload: give build 1.4's App Clip its TestFlight invocations")
            ]),
        under: ["asc", "testflight"], takesBody: true,
        commandInput: { line, arguments in
            arguments.body = .object([
                "clip": line.parsed.value("clip").map { .string($0) }, "build": line.parsed.value("build").map { .string($0) },
            ])
        },
        commandAnswer: { parsed, arguments, run in
            try TestFlightPlanRead.checkBuild(parsed)
            if parsed.flag("yes") { return try run(TestFlightApply.binding, arguments) }
            var planned = Arguments()
            planned.append("clip", parsed.value("clip"))
            planned.append("build", parsed.value("build"))
            let answer = try run(TestFlightPlanRead.binding, planned)
            guard parsed.flag("json") else { return answer }
            let plans = try TestFlightPlans(json: answer.json).plans
            guard plans.allSatisfy({ $0["inSync"]?.boolValue == true }) else { throw CommandUsageError(reviewFirst) }
            let clips = try plans.map { (plan) throws(WireError) in try TestFlightPlans.clip(plan) }
            return OperationAnswer(json: ApplyOutput(reports: clips.map { ApplyReport(clip: $0) }).json, status: 200)
        },
        serverCall: ServerCall(minimumWaitSeconds: 900, unavailableStatuses: [409, 502, 503]), bodyOptional: true,
        present: { output, _, printer in try output.present(printer, refusal: reviewFirst) })
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
        guard review.allSatisfy({ $0["inSync"]?.boolValue == true }) else { throw CommandExitStatus(code: 64, message: refusal) }
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
