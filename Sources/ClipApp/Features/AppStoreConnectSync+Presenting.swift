import AppStoreConnect
import ClipCore
import ClipSync
import ClipSyncEngine
import Foundation

// How `clipctl asc plan|status|apply` print their answers (docs/app-store-connect.md), the same on a database and
// over --server: from the answer's JSON read back.
extension Printer {
    /// `asc plan`: each step that does something with its changes, refusals and their fixes (the experiences
    /// already in step are counted: `--json` lists every step), then the default experience and a summary.
    func plan(_ plan: SyncPlan) {
        line("clip \(plan.clip.rawValue)")
        // In step: nothing to do for an experience both sides have, and nothing to say about it.
        let shown = plan.steps.filter {
            $0.action != .nothing || $0.experienceID == nil || $0.drifted || !$0.refusals.isEmpty || !$0.notes.isEmpty
        }
        let rows = shown.map { step in
            [step.action.rawValue, step.experienceID.map(String.init) ?? "-", step.url, step.ascExperienceID ?? "-"]
        }
        let lines = Printer.table(["ACTION", "ID", "URL", "ASC ID"], rows)
        if shown.count < plan.steps.count {
            let n = plan.steps.count - shown.count
            line("\(n) experience\(n == 1 ? "" : "s") already in step with App Store Connect (not listed; --json lists every step)")
        }
        if !shown.isEmpty { line(lines[0]) }
        for (step, row) in zip(shown, lines.dropFirst()) {
            line(row + (step.drifted ? "  (changed in App Store Connect since the last push)" : ""))
            for change in step.changes { line("      \(change.field): \(change.before) → \(change.after)") }
            for refusal in step.refusals { refused(refusal.rule, refusal.message, fix: refusal.fix) }
            for note in step.notes { line("      note: \(note)") }
        }
        if let defaultPlan = plan.defaultExperience {
            let version = defaultPlan.appStoreVersion.map { "App Store version \($0)" } ?? "no App Store version being edited"
            line("default experience (\(version)): \(defaultPlan.action.rawValue)")
            for change in defaultPlan.changes { line("      \(change.field): \(change.before) → \(change.after)") }
            for refusal in defaultPlan.refusals { refused(refusal.rule, refusal.message, fix: refusal.fix) }
            for note in defaultPlan.notes { line("      note: \(note)") }
        }
        if plan.isInSync {
            line("in sync: nothing to do")
        } else {
            var counts = plan.pendingCounts.map { "\($0.count) \($0.action)" }
            if let action = plan.defaultExperience?.action, action != .nothing { counts.append("default experience \(action.rawValue)") }
            var summary = "pending: " + (counts.isEmpty ? "none" : counts.joined(separator: ", "))
            let refused = plan.allRefused.count
            if refused > 0 { summary += "; \(refused) would be refused (see fix)" }
            line(summary)
        }
    }

    /// `asc status`: each step's state beside App Store Connect's ids and states.
    func status(_ plan: SyncPlan) {
        line("clip \(plan.clip.rawValue)")
        let rows = plan.steps.map { step in
            [
                SyncPlan.state(of: step), step.experienceID.map(String.init) ?? "-", step.url, step.ascExperienceID ?? "-",
                step.ascState ?? "-",
            ]
        }
        for row in Printer.table(["STATE", "ID", "URL", "ASC ID", "ASC STATE"], rows) { line(row) }
        line(plan.stateCounts.map { "\($0.count) \($0.state)" }.joined(separator: ", "))
    }

    /// A clip's App Store Connect changes in time: to come, overdue, pushed (docs/schedules.md#app-store-connect).
    func schedule(_ s: PushSchedule) {
        guard !s.upcoming.isEmpty || !s.overdue.isEmpty || !s.pushed.isEmpty else { return }
        line("in time (lead \(s.leadSeconds / 3600) h \(s.leadSeconds % 3600 / 60) min):")
        for l in s.overdue { line("  OVERDUE   \(l.dueAt)  \(l.kind) \(l.name): no apply has carried it yet") }
        for l in s.upcoming { line("  scheduled \(l.dueAt)  \(l.kind) \(l.name)") }
        for l in s.pushed { line("  pushed    \(l.dueAt)  \(l.kind) \(l.name), at \(l.pushedAt ?? "-")") }
    }

    /// What an apply did for one clip, where it stopped and the key's budget left.
    func applied(_ report: ApplyReport) {
        line("clip \(report.clip.rawValue)")
        for done in report.done {
            line("  \(done.action.rawValue) \(done.url)" + (done.ascExperienceID.map { " → \($0)" } ?? ""))
        }
        for note in report.notes { line("  note: \(note)") }
        for recovered in report.recovered { line("  read back and went on: \(recovered)") }
        if report.failure != nil { for step in report.pending { line("  left: \(step)") } }
        if !report.requests.isEmpty {
            let kinds = report.requests.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
            line("requests: " + kinds.joined(separator: ", ") + " (\(report.requests.values.reduce(0, +)) in all)")
        }
        var summary = report.done.isEmpty ? "in sync: nothing to do" : "applied \(report.done.count) change(s)"
        if report.failure != nil { summary = "stopped after \(report.done.count) change(s), \(report.left) left" }
        if let limit = report.rateLimit, let remaining = limit.hourRemaining {
            summary += "; the key has \(remaining)\(limit.hourLimit.map { " of \($0)" } ?? "") requests left this hour"
        }
        line(summary)
    }

    /// A step App Store Connect would refuse, and its fix (`asc plan`, `asc testflight plan`).
    func refused(_ rule: String, _ message: String, fix: String) {
        line("      refused [\(rule)]: \(message)")
        line("        fix: \(fix)")
    }

    /// Columns padded to their widest cell, two spaces apart; the last one unpadded.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
