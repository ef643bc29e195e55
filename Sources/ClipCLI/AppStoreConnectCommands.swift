import AppStoreConnect
import ArgParse
import ClipCore
import ClipStore
import ClipSync
import ClipSyncEngine
import ClipWire
import Foundation
import StrictJSON

/// `clipctl asc link|pull|plan|apply|status`: the registry against App Store Connect (README "App Store Connect").
/// The work is SyncEngine's; this prints it. The key is read for this run and never stored or printed.
extension Context {
    func ascLink() throws {
        let outcome = try ascRun { try ascEngine().link(parsed.positional(0)!) }
        let link = outcome.value
        if json {
            printJSON(
                .object([
                    "clip": .string(link.clip.rawValue), "ascAppId": .string(link.ascAppID), "ascAppClipId": .string(link.ascAppClipID),
                    "appBundleId": .string(link.appBundleID), "primaryLocale": link.primaryLocale.map { .string($0) } ?? .null,
                    "linkedAt": .string(link.linkedAt), "created": .bool(outcome.created),
                ]))
        } else {
            print(
                "\(outcome.created ? "linked" : "already linked:") \(link.clip.rawValue) → App Store Connect app \(link.ascAppID) "
                    + "(\(link.appBundleID)\(link.primaryLocale.map { ", primary locale \($0)" } ?? "")), App Clip \(link.ascAppClipID)")
        }
    }

    func ascPlan() throws {
        let plans = try ascPlans(prune: parsed.flag("prune"))
        if json {
            printJSON(plans.count == 1 && parsed.value("clip") != nil ? plans[0].json : ["plans": .array(plans.map(\.json))])
        } else {
            for plan in plans { printPlan(plan) }
        }
        if parsed.flag("detailed-exitcode"), plans.contains(where: { !$0.isInSync }) {
            throw CommandFailure(code: 2, message: "")
        }
    }

    func ascStatus() throws {
        let plans = try ascPlans(prune: false)
        if json {
            printJSON(plans.count == 1 && parsed.value("clip") != nil ? plans[0].json : ["plans": .array(plans.map(\.json))])
            return
        }
        for plan in plans {
            print("clip \(plan.clip.rawValue)")
            let rows = plan.steps.map { step in
                [
                    SyncPlan.state(of: step), step.experienceID.map(String.init) ?? "-", step.url, step.ascExperienceID ?? "-",
                    step.ascState ?? "-",
                ]
            }
            for line in table(["STATE", "ID", "URL", "ASC ID", "ASC STATE"], rows) { print(line) }
            print(plan.stateCounts.map { "\($0.count) \($0.state)" }.joined(separator: ", "))
        }
    }

    func ascApply() throws {
        let prune = parsed.flag("prune")
        guard parsed.flag("yes") else {
            // Nothing is sent without --yes: the plan is shown first, as `asc plan` would.
            let plans = try ascPlans(prune: prune)
            for plan in plans where !json { printPlan(plan) }
            guard plans.allSatisfy(\.isInSync) else {
                throw CommandFailure.usage("asc apply changes App Store Connect: review the plan above, then run it again with --yes")
            }
            if json { printJSON(["applied": .array(plans.map { ApplyReport(clip: $0.clip).json })]) }
            return
        }
        if remoteServer != nil {
            if parsed.value("rate-reserve") != nil {
                throw CommandFailure.usage("--rate-reserve is the server's to set; not with --server")
            }
            let answer = try ascRemote("POST", "/v1/asc/apply", query: [], body: ascApplyRequest(prune: prune))
            do { return try finishApply(try ApplyReport.reports(from: answer)) } catch let error as SyncPlanWireError {
                throw CommandFailure(code: ExitCode.failure, message: error.description)
            }
        }
        let engine = try ascEngine()
        if let text = parsed.value("rate-reserve") {
            guard let reserve = Int(text), reserve >= 0 else { throw CommandFailure.usage("--rate-reserve takes a number of requests") }
            engine.rateLimitReserve = reserve
        }
        if io.standardErrorIsTerminal && !json { engine.progress = { [io] line in io.err(line + "\n") } }
        try finishApply(try ascRun { try engine.apply(clip: parsed.value("clip"), prune: prune) })
    }

    func ascPull() throws {
        var prefer: PullPreference?
        if let text = parsed.value("prefer") {
            guard let value = PullPreference(rawValue: text) else { throw CommandFailure.usage("--prefer takes asc or registry") }
            prefer = value
        }
        let engine = try ascEngine()
        if io.standardErrorIsTerminal && !json { engine.progress = { [io] line in io.err(line + "\n") } }
        let reports = try ascRun { try engine.pull(clip: parsed.value("clip"), prefer: prefer) }
        if json {
            printJSON(["pulled": .array(reports.map(\.json))])
        } else {
            for report in reports {
                print("clip \(report.clip.rawValue)")
                for adopted in report.adopted { print("  adopted \(adopted.url) as experience \(adopted.id)") }
                for difference in report.differing {
                    let what =
                        report.tookASC.contains(difference.experienceID)
                        ? "took App Store Connect's"
                        : report.keptRegistry.contains(difference.experienceID) ? "kept the registry's (asc apply pushes it)" : "differs"
                    print("  \(what): experience \(difference.experienceID) \(difference.url)")
                    for change in difference.changes {
                        print("      \(change.field): registry \(change.after), App Store Connect \(change.before)")
                    }
                }
                if let outcome = report.defaultExperience { print("  default experience: \(outcome)") }
                for change in report.defaultExperienceChanges {
                    print("      \(change.field): registry \(change.after), App Store Connect \(change.before)")
                }
                for note in report.notes { print("  note: \(note)") }
                var settled: [String] = []
                if !report.tookASC.isEmpty { settled.append("\(report.tookASC.count) took App Store Connect's") }
                if !report.keptRegistry.isEmpty { settled.append("\(report.keptRegistry.count) kept the registry's") }
                let unsettled = report.differing.count - report.tookASC.count - report.keptRegistry.count
                if unsettled > 0 || settled.isEmpty { settled.append("\(unsettled) differ") }
                print("\(report.adopted.count) adopted, \(report.same) in sync, " + settled.joined(separator: ", "))
            }
        }
        let unsettled = reports.map(\.unsettled).reduce(0, +)
        if prefer == nil, unsettled > 0 {
            throw CommandFailure(
                code: 2,
                message: "\(unsettled) experience(s) differ and were left as they are: run asc pull --prefer asc to take App Store "
                    + "Connect's values, or --prefer registry to keep the registry's (asc apply then pushes them)")
        }
    }

    // MARK: - Plumbing

    func finishApply(_ reports: [ApplyReport]) throws {
        if json {
            printJSON(["applied": .array(reports.map(\.json))])
        } else {
            for report in reports {
                print("clip \(report.clip.rawValue)")
                for done in report.done {
                    print("  \(done.action.rawValue) \(done.url)" + (done.ascExperienceID.map { " → \($0)" } ?? ""))
                }
                for note in report.notes { print("  note: \(note)") }
                for recovered in report.recovered { print("  read back and went on: \(recovered)") }
                if report.failure != nil { for step in report.pending { print("  left: \(step)") } }
                if !report.requests.isEmpty {
                    let kinds = report.requests.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
                    print("requests: " + kinds.joined(separator: ", ") + " (\(report.requests.values.reduce(0, +)) in all)")
                }
                var summary = report.done.isEmpty ? "in sync: nothing to do" : "applied \(report.done.count) change(s)"
                if report.failure != nil { summary = "stopped after \(report.done.count) change(s), \(report.left) left" }
                if let limit = report.rateLimit, let remaining = limit.hourRemaining {
                    summary += "; the key has \(remaining)\(limit.hourLimit.map { " of \($0)" } ?? "") requests left this hour"
                }
                print(summary)
            }
        }
        if let failure = reports.compactMap(\.failure).first { throw Self.commandFailure(failure) }
    }

    private func ascPlans(prune: Bool) throws -> [SyncPlan] {
        if remoteServer != nil {
            var query: [(String, String)] = []
            if let clip = parsed.value("clip") { query.append(("clip", clip)) }
            if prune { query.append(("prune", "true")) }
            do { return try SyncPlan.plans(from: try ascRemote("GET", "/v1/asc/plan", query: query, body: nil)) } catch let error
                as SyncPlanWireError
            {
                throw CommandFailure(code: ExitCode.failure, message: error.description)
            }
        }
        let engine = try ascEngine()
        return try ascRun { try engine.plans(clip: parsed.value("clip"), prune: prune) }
    }

    /// An `/v1/asc` route of the server named by --server: an apply answers when it is done, so it waits up to
    /// 15 minutes (or CLIP_TIMEOUT if longer).
    private func ascRemote(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) throws -> JSONValue {
        guard let remote = try backend() as? RemoteBackend else { throw CommandFailure.usage("--server is not set") }
        let patient = try RemoteBackend(server: remote.base, token: remote.token, timeoutSeconds: max(remote.timeoutSeconds, 900))
        let answer = try patient.send(
            method, path, query: query.map { ($0.0, Optional($0.1)) }, body: body.map { Data(JSONWriter.bytes($0)) })
        // App Store Connect unavailable to the server (its rate limit, unreachable, the server stopping): exit 69, as on
        // the database itself; the rest as every remote command maps a problem.
        // Another apply running is exit 69 over --server as on the database (issue 24): the server's 409 on this route.
        if answer.status == 409, path == "/v1/asc/apply" {
            let problem = ProblemJSON.problem(json: answer.json)
            throw CommandFailure(code: ExitCode.unavailable, message: problem.detail ?? SyncFailure.applyRunning.description)
        }
        if [502, 503].contains(answer.status) {
            let problem = ProblemJSON.problem(json: answer.json)
            throw CommandFailure(code: ExitCode.unavailable, message: problem.detail ?? "the server answered \(answer.status)")
        }
        return try patient.checked(answer).json
    }

    private func ascApplyRequest(prune: Bool) -> JSONValue {
        .object(["clip": parsed.value("clip").map { .string($0) }, "prune": .bool(prune)])
    }

    private func printPlan(_ plan: SyncPlan) {
        print("clip \(plan.clip.rawValue)")
        let rows = plan.steps.map { step in
            [step.action.rawValue, step.experienceID.map(String.init) ?? "-", step.url, step.ascExperienceID ?? "-"]
        }
        let lines = table(["ACTION", "ID", "URL", "ASC ID"], rows)
        print(lines[0])
        for (step, line) in zip(plan.steps, lines.dropFirst()) {
            print(line + (step.drifted ? "  (changed in App Store Connect since the last push)" : ""))
            for change in step.changes { print("      \(change.field): \(change.before) → \(change.after)") }
            for refusal in step.refusals {
                print("      refused [\(refusal.rule)]: \(refusal.message)")
                print("        fix: \(refusal.fix)")
            }
            for note in step.notes { print("      note: \(note)") }
        }
        if let defaultPlan = plan.defaultExperience {
            let version = defaultPlan.appStoreVersion.map { "App Store version \($0)" } ?? "no App Store version being edited"
            print("default experience (\(version)): \(defaultPlan.action.rawValue)")
            for change in defaultPlan.changes { print("      \(change.field): \(change.before) → \(change.after)") }
            for refusal in defaultPlan.refusals {
                print("      refused [\(refusal.rule)]: \(refusal.message)")
                print("        fix: \(refusal.fix)")
            }
            for note in defaultPlan.notes { print("      note: \(note)") }
        }
        if plan.isInSync {
            print("in sync: nothing to do")
        } else {
            var counts = plan.pendingCounts.map { "\($0.count) \($0.action)" }
            if let action = plan.defaultExperience?.action, action != .nothing { counts.append("default experience \(action.rawValue)") }
            var summary = "pending: " + (counts.isEmpty ? "none" : counts.joined(separator: ", "))
            let refused = plan.allRefused.count
            if refused > 0 { summary += "; \(refused) would be refused (see fix)" }
            print(summary)
        }
    }

    func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// The engine over the local database, with a client keyed from the flags or the environment; the key's warnings
    /// (a file others can read) on stderr.
    func ascEngine() throws -> SyncEngine {
        if remoteServer != nil {
            throw CommandFailure.usage(
                "asc \(parsed.path.last ?? "") works on the database itself; over --server only asc plan, status and apply run")
        }
        return SyncEngine(registry: try registry(), client: try ascClient())
    }

    private func ascClient() throws -> ASCClient {
        try appStoreConnectClient(
            keyID: parsed.value("key-id"), issuerID: parsed.value("issuer-id"), privateKeyPath: parsed.value("private-key"),
            baseURL: parsed.value("asc-url"))
    }

    /// A client with the key these flags or the environment name; the key's warnings (a file others can read) on stderr.
    func appStoreConnectClient(
        keyID: String?, issuerID: String?, privateKeyPath: String?, baseURL: String?, purpose: String = ""
    ) throws -> ASCClient {
        let loaded: ASCCredentials.Loaded
        do {
            loaded = try ASCCredentials.load(
                from: .init(keyID: keyID, issuerID: issuerID, privateKeyPath: privateKeyPath, environment: environment))
        } catch {
            throw CommandFailure(code: ExitCode.usage, message: purpose + error.description)
        }
        for warning in loaded.warnings { io.err("warning: \(warning)\n") }
        // On a terminal, a wait of a second or more is said (a 429's Retry-After, a backoff).
        let io = self.io
        let sleeper: ASCClient.Sleeper = { seconds in
            if io.standardErrorIsTerminal && seconds >= 1 {
                io.err("waiting \(Int(seconds.rounded())) s before asking App Store Connect again\n")
            }
            await ASCClient.systemSleeper(seconds)
        }
        var configuration = ASCClient.Configuration()
        // A test's knob (docs/app-store-connect.md): every wait the client and an apply choose, scaled.
        if let text = environment["CLIP_ASC_WAIT_SCALE"], let scale = Double(text), scale >= 0, scale <= 1 {
            configuration.waitScale = scale
        }
        do {
            return try ASCClient(
                baseURL: baseURL ?? ASCClient.baseURL(environment: environment), tokens: ASCTokenCache(credentials: loaded.credentials),
                configuration: configuration, sleeper: sleeper)
        } catch {
            throw CommandFailure(code: ExitCode.usage, message: purpose + error.description)
        }
    }

    func ascRun<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as SyncFailure { throw Self.commandFailure(failure) }
    }

    static func commandFailure(_ failure: SyncFailure) -> CommandFailure {
        switch failure {
        case .registry(let error): return CommandFailure(error)
        case .appStoreConnect(.unreachable), .appStoreConnect(.timedOut), .rateBudget, .appStoreConnect(.rateLimited),
            .appStoreConnect(.cancelled):
            return CommandFailure(code: ExitCode.unavailable, message: failure.description)
        case .appStoreConnect(.token): return CommandFailure(code: ExitCode.usage, message: failure.description)
        case .applyRunning: return CommandFailure(code: ExitCode.unavailable, message: failure.description)
        // As a server's 422 reads over --server: the field errors when there are any, else the whole message.
        case .refused, .rejected:
            let errors = failure.fieldErrors
            return CommandFailure(
                code: ExitCode.invalidInput, message: errors.isEmpty ? failure.description : "invalid input", fieldErrors: errors)
        default: return CommandFailure(code: ExitCode.failure, message: failure.description)
        }
    }
}
