import AppStoreConnect
import ClipCore
import ClipStore
public import ClipSync
import StrictJSON

/// TestFlight invocations (docs/app-store-connect.md#testflight-invocations): a build's App Clip made to offer the
/// clip's chosen URLs, with the apply's lock, fault handling and request budget (`persevere`, `checkBudget`).
extension SyncEngine {
    /// Which build: its version (CFBundleVersion) or App Store Connect id; nil for the newest upload.
    public typealias BuildSelector = String?

    /// The plan of each linked clip with invocations chosen (or of `clipReference`), for `build`.
    public func testflightPlans(clip clipReference: String?, build: BuildSelector) throws(SyncFailure) -> [TestFlightPlan] {
        try testflightLinks(clipReference).map { link throws(SyncFailure) in try testflightPlan(link, build: build) }
    }

    /// What the `count` newest builds offer testers beside each clip's chosen invocations, newest first: one plan per
    /// build, its steps `nothing` for what a build already offers as chosen (`asc testflight status`).
    public func testflightStatus(clip clipReference: String?, builds count: Int) throws(SyncFailure) -> [TestFlightPlan] {
        var plans: [TestFlightPlan] = []
        for link in try testflightLinks(clipReference) {
            progress("reading App Store Connect's builds for \(link.clip.rawValue)")
            let client = self.client, appID = link.ascAppID
            let builds = try call { () async throws(ASCClientError) -> [ASCBuild] in try await client.builds(appID: appID, limit: count) }
            for build in builds { plans.append(try testflightPlan(link, for: build)) }
        }
        return plans
    }

    /// Makes the build's App Clip offer each clip's chosen invocations: removals first (App Store Connect keeps three),
    /// then updates of titles, then creations. Idempotent and resumable: every plan is made from what App Store
    /// Connect holds, matched by URL, so a create that landed unanswered is found at the next reading. Refused steps
    /// (a URL that no longer resolves) stop it before anything is sent.
    public func testflightApply(clip clipReference: String?, build: BuildSelector) throws(SyncFailure) -> [ApplyReport] {
        let lock = try exclusive()
        defer { withExtendedLifetime(lock) {} }
        var requestsBefore = client.requestCounts
        let links = try testflightLinks(clipReference)
        let plans = try links.map { link throws(SyncFailure) in
            try retryingRead { () throws(SyncFailure) in try testflightPlan(link, build: build) }
        }
        let refused = plans.flatMap(\.refused)
        guard refused.isEmpty else { throw .refused(refused.map(Self.asSyncStep)) }
        var reports: [ApplyReport] = []
        for (link, plan) in zip(links, plans) {
            var report = ApplyReport(clip: plan.clip)
            report.notes += plan.notes
            // The build found first is kept: a newer upload meanwhile waits for the next apply.
            let pinned: BuildSelector = plan.build?.id ?? build
            persevere(
                plan, into: &report,
                reread: { () throws(SyncFailure) -> TestFlightPlan in
                    let fresh = try testflightPlan(link, build: pinned)
                    if !fresh.refused.isEmpty { throw .refused(fresh.refused.map(Self.asSyncStep)) }
                    return fresh
                },
                apply: { (plan: TestFlightPlan, report: inout ApplyReport) throws(SyncFailure) in try testflightSteps(plan, into: &report) }
            )
            let requestsNow = client.requestCounts
            report.requests = requestsNow.merging(requestsBefore.mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value > 0 }
            requestsBefore = requestsNow
            report.rateLimit = client.lastRateLimit
            var summary = report.json
            if case .object(var members) = summary {
                members.append(("build", plan.build.map { .object([("id", .string($0.id)), ("version", .string($0.version))]) } ?? .null))
                summary = .object(members)
            }
            do { try registry.recordASCApplied(clip: report.clip, summary: summary, event: .ascTestflightApplied) } catch {
                report.notes.append("the asc.testflight.applied event was not recorded: \(error)")
            }
            reports.append(report)
            if report.failure != nil { break }
        }
        return reports
    }

    /// Linked clips: the one named, or every one with invocations chosen.
    func testflightLinks(_ clipReference: String?) throws(SyncFailure) -> [AppStoreConnectLink] {
        let all = try links(clipReference)
        guard clipReference == nil else { return all }
        var chosen: [AppStoreConnectLink] = []
        for link in all
        where try !registryCall({ () throws(RegistryError) in try registry.testFlightInvocations(clip: link.clip.rawValue) }).isEmpty {
            chosen.append(link)
        }
        return chosen
    }

    func testflightPlan(_ link: AppStoreConnectLink, build selector: BuildSelector) throws(SyncFailure) -> TestFlightPlan {
        progress("reading App Store Connect's builds for \(link.clip.rawValue)")
        let client = self.client, appID = link.ascAppID
        let build = try call { () async throws(ASCClientError) -> ASCBuild? in
            var builds = try await client.builds(appID: appID, version: selector, limit: 1)
            if builds.isEmpty, let selector { builds = try await client.builds(appID: appID, id: selector, limit: 1) }
            return builds.first
        }
        if build == nil, let selector { throw .registry(.notFound("build \(selector) of app \(link.appBundleID) in App Store Connect")) }
        return try testflightPlan(link, for: build)
    }

    /// The plan of `build` (nil: none uploaded), from what its App Clip build bundle offers now.
    func testflightPlan(_ link: AppStoreConnectLink, for build: ASCBuild?) throws(SyncFailure) -> TestFlightPlan {
        let client = self.client
        var asc: [ASCBetaInvocation] = []
        if let bundle = build?.appClipBundleID {
            asc = try call { () async throws(ASCClientError) -> [ASCBetaInvocation] in
                try await client.betaInvocations(buildBundleID: bundle)
            }
        }
        let chosen = try registryCall { () throws(RegistryError) in try registry.testFlightInvocations(clip: link.clip.rawValue) }
        return TestFlightPlan.make(
            clip: link.clip, build: build, chosen: chosen, asc: asc, primaryLocale: link.primaryLocale, appBundleID: link.appBundleID)
    }

    func testflightSteps(_ plan: TestFlightPlan, into report: inout ApplyReport) throws(SyncFailure) {
        guard let bundle = plan.build?.appClipBundleID else { return }
        let order: [SyncPlan.Action] = [.remove, .update, .create]
        let steps = plan.pending.sorted { order.firstIndex(of: $0.action) ?? 9 < order.firstIndex(of: $1.action) ?? 9 }
        let client = self.client
        for (index, step) in steps.enumerated() {
            report.left = steps.count - index
            report.pending = steps[index...].map { "\($0.action.rawValue) \($0.url)" }
            report.current = "\(step.action.rawValue) \(step.url)"
            try checkBudget(requests: 1 + step.changes.count)
            progress("[\(index + 1)/\(steps.count)] \(step.action.rawValue) \(step.url)")
            var id = step.ascInvocationID
            switch step.action {
            case .remove:
                guard let id else { continue }
                try call { () async throws(ASCClientError) in try await client.deleteBetaInvocation(id: id) }
            case .create:
                let url = step.url, titles = step.titles.map { (locale: $0.locale, title: $0.title) }
                id = try call { () async throws(ASCClientError) in
                    try await client.createBetaInvocation(buildBundleID: bundle, url: url, titles: titles)
                }
            case .update:
                guard let invocation = id else { continue }
                for change in step.changes {
                    try call { () async throws(ASCClientError) in
                        switch change {
                        case .create(let locale, let title):
                            try await client.createBetaInvocationLocalization(invocationID: invocation, locale: locale, title: title)
                        case .update(let id, _, _, let title): try await client.updateBetaInvocationLocalization(id: id, title: title)
                        case .remove(let id, _): try await client.deleteBetaInvocationLocalization(id: id)
                        }
                    }
                }
            default: continue
            }
            report.done.append(.init(experienceID: nil, url: step.url, action: step.action, ascExperienceID: id))
        }
        report.left = 0
        report.pending = []
        report.current = nil
    }

    /// A refused invocation as the apply's refusals are reported (`SyncFailure.refused`: exit 65 / HTTP 422).
    static func asSyncStep(_ step: TestFlightPlan.Step) -> SyncPlan.Step {
        SyncPlan.Step(
            experienceID: nil, url: step.url, ascExperienceID: step.ascInvocationID, ascState: nil, action: step.action, changes: [],
            refusals: step.refusals, drifted: false, notes: [])
    }
}
