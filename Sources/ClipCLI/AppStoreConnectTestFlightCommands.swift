import AppStoreConnect
import ArgParse
import ClipCore
import ClipSync
import ClipSyncEngine
import StrictJSON

/// `clipctl asc testflight plan|apply` (docs/app-store-connect.md#testflight-invocations); `set` and `show` are
/// operations of the application layer (ClipApp/Features/TestFlightInvocations.swift).
extension Context {
    func ascTestflightPlan() throws {
        let engine = try ascEngine()
        let plans = try ascRun { try engine.testflightPlans(clip: parsed.value("clip"), build: parsed.value("build")) }
        if json {
            printJSON(["plans": .array(plans.map(\.json))])
        } else {
            for plan in plans { printTestflightPlan(plan) }
        }
        if parsed.flag("detailed-exitcode"), plans.contains(where: { !$0.isInSync }) {
            throw CommandFailure(code: 2, message: "")
        }
    }

    func ascTestflightApply() throws {
        let engine = try ascEngine()
        guard parsed.flag("yes") else {
            let plans = try ascRun { try engine.testflightPlans(clip: parsed.value("clip"), build: parsed.value("build")) }
            for plan in plans where !json { printTestflightPlan(plan) }
            guard plans.allSatisfy(\.isInSync) else {
                throw CommandFailure.usage(
                    "asc testflight apply changes App Store Connect: review the plan above, then run it again with --yes")
            }
            if json { printJSON(["applied": .array(plans.map { ApplyReport(clip: $0.clip).json })]) }
            return
        }
        if io.standardErrorIsTerminal && !json { engine.progress = { [io] line in io.err(line + "\n") } }
        try finishApply(try ascRun { try engine.testflightApply(clip: parsed.value("clip"), build: parsed.value("build")) })
    }

    private func printTestflightPlan(_ plan: TestFlightPlan) {
        let build = plan.build.map { "build \($0.version) (\($0.id))" } ?? "no build"
        print("clip \(plan.clip.rawValue), \(build)")
        let rows = plan.steps.map { [$0.action.rawValue, $0.url, $0.ascInvocationID ?? "-"] }
        let lines = table(["ACTION", "URL", "ASC ID"], rows)
        if !plan.steps.isEmpty { print(lines[0]) }
        for (step, line) in zip(plan.steps, lines.dropFirst()) {
            print(line)
            if step.action == .create { for title in step.titles { print("      \(title.locale): \"\(title.title)\"") } }
            for change in step.changes { print("      \(change)") }
            for refusal in step.refusals {
                print("      refused [\(refusal.rule)]: \(refusal.message)")
                print("        fix: \(refusal.fix)")
            }
        }
        for note in plan.notes { print("  note: \(note)") }
        if plan.isInSync {
            print("in sync: nothing to do")
        } else {
            var summary = "pending: \(plan.pending.count) change(s)"
            if !plan.refused.isEmpty { summary += "; \(plan.refused.count) would be refused (see fix)" }
            print(summary)
        }
    }
}
