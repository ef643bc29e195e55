import AppleFormats
import AppStoreConnect
import ClipCore
import ClipStore
public import ClipSync
public import ClipSyncEngine
public import ClipWire
import Foundation

/// `verify`'s App Store Connect parts (docs/operations.md#app-store-connect-and-apples-own-verdict): the sync engine's
/// plan (`asc plan`) and Apple's domain statuses, read once per request for every linked clip, then set beside each
/// host's site and CDN checks. Without a key, or with App Store Connect unreachable, both parts say "not checked" and
/// why; the site and CDN checks are answered all the same.
public enum AppStoreConnectVerification {
    /// What App Store Connect said, or why it was not asked.
    public enum Reading: Sendable {
        case notChecked(why: String, fix: String)
        /// Each linked clip's plan, the hosts its AASA lists, and its newest App Clip build's domain statuses.
        /// `statusesUnread`: why the domain statuses could not be read, when the plans could.
        case read(
            plans: [SyncPlan], clipHosts: [String: Set<String>], statuses: [SyncEngine.DomainStatuses], statusesUnread: String? = nil)
    }

    /// No key where verify runs: the same words locally and over `--server`, so both print the same.
    static let noKey = Reading.notChecked(
        why: "no App Store Connect key is configured",
        fix: "set ASC_KEY_ID, ASC_ISSUER_ID and ASC_PRIVATE_KEY_PATH for clipctl, and start clipctl serve with them (or "
            + "--asc-key-id, --asc-issuer-id, --asc-key) for a server (docs/app-store-connect.md)")

    /// Reads App Store Connect on this thread with the session's key; never throws: a failure is `notChecked`.
    static func read(_ hosts: [String], in session: Session) -> Reading {
        guard let access = session.appStoreConnect else { return noKey }
        let engine: SyncEngine
        do {
            engine = SyncEngine(registry: session.registry, client: try access.client())
        } catch {
            let why = (error as? CommandUsageError)?.description ?? "\(error)"
            // ASCCredentials.LoadError.missing: nothing (or not all) of the key is set.
            if why.contains("credentials are incomplete") { return noKey }
            return .notChecked(
                why: "the App Store Connect key is not usable: \(why)",
                fix: "correct the key (docs/app-store-connect.md), then verify again")
        }
        engine.shouldStop = access.shouldStop
        do {
            // Only the linked clips whose AASA lists a host verified: a request reads nothing of other clips.
            var clipHosts: [String: Set<String>] = [:]
            var links: [AppStoreConnectLink] = []
            for link in try session.registry.ascLinks() {
                let listed = Set(try session.registry.clip(link.clip.rawValue).hosts)
                guard !listed.isDisjoint(with: hosts) else { continue }
                clipHosts[link.clip.rawValue] = listed
                links.append(link)
            }
            let plans = try links.map { link throws(SyncFailure) in try engine.plans(clip: link.clip.rawValue, prune: false)[0] }
            do {
                let statuses = try links.map { link throws(SyncFailure) in try engine.domainStatuses(link) }
                return .read(plans: plans, clipHosts: clipHosts, statuses: statuses)
            } catch {
                return .read(
                    plans: plans, clipHosts: clipHosts, statuses: [], statusesUnread: "App Store Connect could not be read: \(error)")
            }
        } catch let failure as SyncFailure {
            return .notChecked(why: "App Store Connect could not be read: \(failure.description)", fix: "verify again later")
        } catch {
            return .notChecked(why: "App Store Connect could not be read: \(error)", fix: "verify again later")
        }
    }

    /// Both parts for `host`, set beside its site and CDN checks (pure: the unit tests give it a stub reading).
    public static func assemble(host: String, checks: [HostVerification.Check], _ reading: Reading) -> (
        AppStoreConnectComparison, AppleVerdict
    ) {
        switch reading {
        case .notChecked(let why, let fix):
            return (
                AppStoreConnectComparison(verdict: "not-checked", evidence: "not checked: \(why)", fix: fix),
                AppleVerdict(verdict: "not-checked", evidence: "not checked: \(why)", fix: fix)
            )
        case .read(let plans, let clipHosts, let statuses, let statusesUnread):
            let steps = plans.flatMap { plan in plan.steps.filter { Self.host(of: $0.url) == host }.map { (plan.clip.rawValue, $0) } }
            let using = Set(steps.map(\.0)).union(clipHosts.filter { $0.value.contains(host) }.map(\.key))
            if let why = statusesUnread, !using.isEmpty {
                return (
                    comparison(host: host, steps: steps, linkedClips: using.count),
                    AppleVerdict(verdict: "not-checked", evidence: "not checked: \(why)", fix: "verify again later")
                )
            }
            return (
                comparison(host: host, steps: steps, linkedClips: using.count),
                appleVerdict(host: host, checks: checks, statuses: statuses.filter { using.contains($0.clip.rawValue) })
            )
        }
    }

    static func host(of url: String) -> String? { URLComponents(string: url)?.host?.lowercased() }

    static func comparison(host: String, steps: [(String, SyncPlan.Step)], linkedClips: Int) -> AppStoreConnectComparison {
        guard linkedClips > 0 else {
            return AppStoreConnectComparison(
                verdict: "not-linked", evidence: "no clip linked to App Store Connect has an experience on \(host) or lists it",
                fix: "clipctl asc link CLIP links the clip whose experiences use \(host)")
        }
        let pending = steps.filter { $0.1.action != .nothing }.map { clip, step in
            AppStoreConnectComparison.PendingStep(clip: clip, url: step.url, action: step.action.rawValue, summary: summary(step))
        }
        guard !pending.isEmpty else {
            return AppStoreConnectComparison(
                verdict: "in-step",
                evidence: "in step: App Store Connect holds the \(steps.count) experience(s) on \(host) as the registry has them",
                fix: nil)
        }
        let refused = steps.contains { !$0.1.refusals.isEmpty }
        return AppStoreConnectComparison(
            verdict: "pending",
            evidence: "\(pending.count) change\(pending.count == 1 ? "" : "s") pending: "
                + ShownList.text(pending.map { "\($0.action) \($0.url)" }, separator: "; "),
            fix: refused
                ? "fix what App Store Connect would refuse (clipctl asc plan), then run clipctl asc apply" : "run clipctl asc apply",
            pending: pending)
    }

    /// A plan step in a few words: the fields it changes and what App Store Connect would refuse.
    static func summary(_ step: SyncPlan.Step) -> String {
        var parts: [String] = []
        switch step.action {
        case .create: parts.append("not in App Store Connect yet")
        case .remove: parts.append(step.notes.first ?? "to be removed")
        default: parts.append(step.changes.isEmpty ? step.action.rawValue : step.changes.map(\.field).joined(separator: ", ") + " differ")
        }
        parts += step.refusals.map { "App Store Connect would refuse it: \($0.message)" }
        return parts.joined(separator: "; ")
    }

    static func appleVerdict(host: String, checks: [HostVerification.Check], statuses: [SyncEngine.DomainStatuses]) -> AppleVerdict {
        guard !statuses.isEmpty else {
            return AppleVerdict(
                verdict: "not-checked", evidence: "not checked: no linked clip uses \(host)",
                fix: "clipctl asc link CLIP links the clip whose experiences use \(host)")
        }
        let builds = statuses.map { s in
            AppleVerdict.Build(
                clip: s.clip.rawValue, buildID: s.build?.id, buildVersion: s.build?.version,
                readings: s.build == nil
                    ? []
                    : [
                        reading("cache", s.cache, host: host, clip: s.clip, checks),
                        reading("debug", s.debug, host: host, clip: s.clip, checks),
                    ])
        }
        let states = builds.flatMap(\.readings).map(\.state)
        if states.contains("invalid") {
            return AppleVerdict(
                verdict: "invalid", evidence: "Apple found \(host) invalid for a build: see each code below", fix: nil, builds: builds)
        }
        if !states.isEmpty && states.allSatisfy({ $0 == "valid" }) {
            return AppleVerdict(verdict: "valid", evidence: "Apple validated \(host) for each App Clip build", fix: nil, builds: builds)
        }
        let none = builds.contains { $0.buildID == nil }
        return AppleVerdict(
            verdict: "no-status",
            evidence: none
                ? "no recent build has an App Clip" : "App Store Connect has no status of \(host) for a build (not yet checked by Apple)",
            fix: none ? "upload a build with the App Clip" : "wait: Apple checks a build's domains after it is processed", builds: builds)
    }

    static func reading(
        _ source: String, _ status: ASCDomainStatus?, host: String, clip: AppID, _ checks: [HostVerification.Check]
    ) -> AppleVerdict.Reading {
        var r = AppleVerdict.Reading(source: source, state: "no-status")
        guard let status else { return r }
        guard let domain = status.domains.first(where: { $0.domain.lowercased() == host }) else {
            r.state = "not-listed"
            r.lastUpdatedDate = status.lastUpdatedDate
            r.fix = "put appclips:\(host) in the App Clip's Associated Domains entitlement, then upload a new build"
            return r
        }
        r.isValid = domain.isValid
        r.lastUpdatedDate = domain.lastUpdatedDate ?? status.lastUpdatedDate
        r.errorCode = domain.errorCode
        r.state = domain.isValid == true && domain.errorCode == nil ? "valid" : "invalid"
        let site = checks.first { $0.place == "site" }, cdn = checks.first { $0.place == "apple-cdn" }
        guard let code = domain.errorCode else {
            r.agreement = r.state == "valid" ? validAgreement(site, cdn) : nil
            return r
        }
        let explained = AppleDomainErrorCode.explain(code)
        let fill = { (text: String) in
            text.replacingOccurrences(of: "HOST", with: host).replacingOccurrences(of: "CLIP", with: clip.rawValue)
        }
        r.knownCode = AppleDomainErrorCode.isKnown(code)
        r.meaning = fill(explained.meaning)
        r.likelyCause = fill(explained.likelyCause)
        r.fix = fill(explained.fix)
        r.agreement = agreement(explained, site: site, date: r.lastUpdatedDate)
        return r
    }

    /// Apple's valid reading beside the site's and the CDN's answers here.
    static func validAgreement(_ site: HostVerification.Check?, _ cdn: HostVerification.Check?) -> String {
        let failing = [site, cdn].compactMap { $0 }.filter { $0.verdict != "ok" }
        if failing.isEmpty { return "agrees: the site and Apple's CDN serve the registry's file" }
        return "Apple validated it, but here " + failing.map { "\($0.place) answers \($0.verdict)" }.joined(separator: ", ")
            + ": Apple's next fetch will likely see the same"
    }

    /// An error code beside what the site answered Apple's bot here.
    static func agreement(_ code: AppleDomainErrorCode, site: HostVerification.Check?, date: String?) -> String {
        guard let site else { return "the site was not checked here" }
        let said = "the site answered \(site.verdict) (\(site.evidence))"
        switch code.scope {
        case .apple: return "a failure on Apple's side or unnamed; here \(said)"
        case .entitlement:
            if code.agreeingSiteVerdicts.contains(site.verdict), site.differences.contains(where: { $0.section == "appclips.apps" }) {
                return "agrees: \(said), and its appclips section differs from the registry's"
            }
            return "about the build's entitlement or the file's app identifiers; here \(said)"
        case .site:
            if code.agreeingSiteVerdicts.contains(site.verdict) { return "agrees: \(said)" }
            if site.verdict == "ok" {
                return "disagrees: the site answers ok now; Apple's reading (\(date ?? "undated")) likely predates a fix, "
                    + "or Apple reached the site another way (its own addresses and resolver)"
            }
            return "a different failure: \(said)"
        }
    }
}
