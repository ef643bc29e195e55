import ArgParse
import AppStoreConnect
import ClipCore
import ClipStore
import ClipSync
import Foundation
import StrictJSON
import Locking
import SystemCrypto

/// `clipctl asc link|plan|status`: the registry against App Store Connect (README "App Store Connect").
/// Local database only; the key is read for this run and never stored or printed.
extension Context {
    func ascLink() throws {
        let registry = try ascRegistry()
        let clip = try registry.clip(parsed.positional(0)!)
        let client = try ascClient()
        let bundle = clip.appBundleID.rawValue
        let (app, appClip) = try blocking { () async throws(ASCClientError) -> (ASCApp?, ASCAppClip?) in
            guard let app = try await client.app(bundleID: bundle) else { return (nil, nil) }
            return (app, try await client.appClip(appID: app.id, bundleID: clip.appID.bundleID.rawValue))
        }
        guard let app else {
            throw CommandFailure(
                code: ExitCode.failure,
                message: "App Store Connect has no app with bundle ID \(bundle) for this key (create it there, or check the key's team)")
        }
        guard let appClip else {
            throw CommandFailure(
                code: ExitCode.failure,
                message: "App Store Connect's app \(bundle) (\(app.id)) has no App Clip \(clip.appID.bundleID.rawValue) "
                    + "(upload a build with the App Clip first)")
        }
        let outcome = try registry.link(
            AppStoreConnectLink(
                clip: clip.appID, ascAppID: app.id, ascAppClipID: appClip.id, appBundleID: app.bundleID, primaryLocale: app.primaryLocale))
        let link = outcome.value
        if json {
            printJSON([
                "clip": .string(link.clip.rawValue), "ascAppId": .string(link.ascAppID), "ascAppClipId": .string(link.ascAppClipID),
                "appBundleId": .string(link.appBundleID), "primaryLocale": link.primaryLocale.map { .string($0) } ?? .null,
                "linkedAt": .string(link.linkedAt), "created": .bool(outcome.created),
            ])
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
            printTable(["STATE", "ID", "URL", "ASC ID", "ASC STATE"], rows)
            let states = Dictionary(grouping: plan.steps, by: SyncPlan.state(of:))
            print(
                ["in-sync", "pending", "drifted", "asc-only"].compactMap { s in states[s].map { "\($0.count) \(s)" } }.joined(
                    separator: ", "))
        }
    }

    // MARK: - Plumbing

    private func ascRegistry() throws -> Registry {
        if remoteServer != nil {
            throw CommandFailure.usage("asc works on the database itself for now; run it where the database is (--server does not apply)")
        }
        return try registry()
    }

    /// The plan of each linked clip (or of --clip), from one read of App Store Connect per clip.
    private func ascPlans(prune: Bool) throws -> [SyncPlan] {
        let registry = try ascRegistry()
        let links: [AppStoreConnectLink]
        if let reference = parsed.value("clip") {
            guard let link = try registry.ascLink(reference) else {
                throw CommandFailure(
                    code: ExitCode.failure, message: "clip \(reference) is not linked: run clipctl asc link \(reference) first")
            }
            links = [link]
        } else {
            links = try registry.ascLinks()
            guard !links.isEmpty else {
                throw CommandFailure(
                    code: ExitCode.failure, message: "no clip is linked to App Store Connect: run clipctl asc link CLIP first")
            }
        }
        let client = try ascClient()
        return try links.map { link in
            let clip = try registry.clip(link.clip.rawValue)
            let experiences = try registry.experiences(Registry.ListFilter(clip: link.clip))
            var imageMD5: [String: String] = [:]
            for sha in Set(experiences.compactMap(\.headerImage)) {
                imageMD5[sha] = Digest.hex(try Digest.md5(try registry.headerImage(sha).bytes))
            }
            let appClipID = link.ascAppClipID
            let asc = try blocking { () async throws(ASCClientError) in try await client.advancedExperiences(appClipID: appClipID) }
            return SyncPlan.make(
                clip: link.clip, experiences: experiences, associatedHosts: Set(clip.hosts), asc: asc, link: link,
                records: try registry.ascSyncRecords(clip: link.clip), imageMD5: imageMD5, prune: prune)
        }
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
        if plan.isInSync {
            print("in sync: nothing to do")
        } else {
            let counts = Dictionary(grouping: plan.pending, by: \.action.rawValue).sorted { $0.key < $1.key }.map {
                "\($0.value.count) \($0.key)"
            }
            var summary = "pending: " + (counts.isEmpty ? "none" : counts.joined(separator: ", "))
            if !plan.refused.isEmpty { summary += "; \(plan.refused.count) would be refused (see fix)" }
            print(summary)
        }
    }

    private func printTable(_ header: [String], _ rows: [[String]]) {
        for line in table(header, rows) { print(line) }
    }

    private func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// A client with the key from the flags or the environment; the key's warnings (a file others can read) on stderr.
    private func ascClient() throws -> ASCClient {
        let loaded: ASCCredentials.Loaded
        do {
            loaded = try ASCCredentials.load(
                from: .init(
                    keyID: parsed.value("key-id"), issuerID: parsed.value("issuer-id"), privateKeyPath: parsed.value("private-key"),
                    environment: environment))
        } catch {
            throw CommandFailure(code: ExitCode.usage, message: error.description)
        }
        for warning in loaded.warnings { io.err("warning: \(warning)\n") }
        do {
            return try ASCClient(
                baseURL: parsed.value("asc-url") ?? ASCClient.baseURL(environment: environment),
                tokens: ASCTokenCache(credentials: loaded.credentials))
        } catch {
            throw CommandFailure(code: ExitCode.usage, message: error.description)
        }
    }

    /// Runs an App Store Connect exchange to its end on this thread (clipctl's commands are synchronous).
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws(ASCClientError) -> T) throws -> T {
        let result = Locked<Result<T, ASCClientError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, ASCClientError>
            do throws(ASCClientError) { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        switch result.withLock({ $0 })! {
        case .success(let value): return value
        case .failure(let error):
            switch error {
            case .unreachable, .timedOut: throw CommandFailure(code: ExitCode.unavailable, message: error.description)
            default: throw CommandFailure(code: ExitCode.failure, message: error.description)
            }
        }
    }
}
