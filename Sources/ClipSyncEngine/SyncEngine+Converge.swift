import AppStoreConnect
import ClipCore
import ClipStore
import ClipSync
import Foundation

/// How long an apply keeps at a step App Store Connect answers badly before it stops (docs/app-store-connect.md
/// #retries-and-convergence). The waits are real sleeps, bounded in number and in total.
public struct Perseverance: Sendable {
    /// Tries of one step, the first included.
    public var attemptsPerStep: Int
    /// Waits between them: `baseDelay * 2^(n-1)`, capped at `maximumDelay`.
    public var baseDelay: Double
    public var maximumDelay: Double
    /// Seconds of retrying in all, in one apply, after which a further failure stops it.
    public var totalBudget: Double

    public init(attemptsPerStep: Int = 5, baseDelay: Double = 2, maximumDelay: Double = 60, totalBudget: Double = 900) {
        self.attemptsPerStep = attemptsPerStep
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.totalBudget = totalBudget
    }

    func delay(attempt: Int) -> Double { min(maximumDelay, baseDelay * Double(1 << min(max(attempt - 1, 0), 20))) }
}

extension SyncFailure {
    /// A failure that may pass: App Store Connect answered 5xx, nothing, or late, an upload or image processing failed,
    /// or a write's outcome is unknown. Read back and tried again; what App Store Connect refused (4xx), a budget spent
    /// for longer than a client waits, the registry's own errors and a stop from outside are final.
    var isTransient: Bool {
        // Bytes damaged on the way: the commit's checksum does not match what arrived; the parts can be sent again
        // (Apple, "Uploading Assets to App Store Connect": a failed part can be resent until commit).
        if case .rejected(_, _, _, let errors) = self {
            return errors.contains { $0.pointer == "/data/attributes/sourceFileChecksum" }
        }
        guard case .appStoreConnect(let error) = self else { return false }
        if case .rejected(409, _, _, let errors) = error, errors.contains(where: { $0.pointer == "/data/attributes/sourceFileChecksum" }) {
            return true
        }
        switch error {
        case .serverError, .timedOut, .outcomeUnknown, .unreachable, .uploadFailed, .imageProcessingTimedOut, .imageProcessingFailed:
            return true
        case .rejected(let status, _, _, _): return status == 404 || status >= 500
        default: return false
        }
    }
}

extension SyncFailure {
    /// Where in a step it failed, so that the same failure repeating can be told from one that moved on.
    var phase: String {
        switch self {
        case .appStoreConnect(.outcomeUnknown(let method, let path, _)): "\(method) \(path)"
        case .appStoreConnect(.serverError(let status, _, _)): "HTTP \(status)"
        case .appStoreConnect(.uploadFailed): "upload"
        case .appStoreConnect(.imageProcessingFailed), .appStoreConnect(.imageProcessingTimedOut): "processing"
        case .appStoreConnect(.timedOut): "timeout"
        case .appStoreConnect(.unreachable): "unreachable"
        default: "checksum"
        }
    }
}

extension SyncEngine {
    /// Applies one clip's plan until App Store Connect holds the registry's experiences. After an ambiguous or failed
    /// answer it waits (backoff), reads App Store Connect again and plans afresh: a create that landed is found by its
    /// link and recorded (`completeRecords`), an image reserved before is resumed by its id, a removal that landed is
    /// recorded, and the rest goes on. It stops on a final failure, or when the same step failed
    /// `perseverance.attemptsPerStep` times or retrying took `totalBudget` seconds, saying what is left.
    func converge(_ firstPlan: SyncPlan, _ firstSide: Sides, prune: Bool, into report: inout ApplyReport) {
        var side = firstSide
        persevere(
            firstPlan, into: &report,
            reread: { () throws(SyncFailure) -> SyncPlan in
                side = try read(side.link)
                let fresh = side.plan(prune: prune)
                let refused = fresh.allRefused
                if !refused.isEmpty { throw .refused(refused) }
                return fresh
            },
            apply: { (plan: SyncPlan, report: inout ApplyReport) throws(SyncFailure) in try apply(plan, side, into: &report) })
    }

    /// The loop every apply converges with (experiences, TestFlight invocations): `apply` the plan; after a transient
    /// failure wait (backoff), `reread` App Store Connect for a fresh plan and go on, until done, a final failure, or the
    /// bounds of `perseverance`. `report.current` names the step under way, so that the same step failing is counted.
    func persevere<Plan>(
        _ firstPlan: Plan, into report: inout ApplyReport, reread: () throws(SyncFailure) -> Plan,
        apply: (Plan, inout ApplyReport) throws(SyncFailure) -> Void
    ) {
        // nil: App Store Connect is to be read again before anything more is sent (a stale plan could create twice).
        var plan: Plan? = firstPlan
        var failures: [String: Int] = [:]
        let started = Date()
        while true {
            do throws(SyncFailure) {
                if plan == nil { plan = try reread() }
                try apply(plan!, &report)
                return
            } catch let failure where failure.isTransient {
                plan = nil
                let stepName = report.current ?? "reading App Store Connect"
                report.current = nil
                // The same failure of the same step repeating is what persists; a step that fails further on each time
                // (reserved, then uploaded, then committed …) is making headway, within a wider bound.
                let attempt = failures["\(stepName)\n\(failure.phase)", default: 0] + 1
                failures["\(stepName)\n\(failure.phase)"] = attempt
                failures[stepName, default: 0] += 1
                let wait = perseverance.delay(attempt: attempt) * client.configuration.waitScale
                guard attempt < perseverance.attemptsPerStep, failures[stepName]! < 3 * perseverance.attemptsPerStep,
                    Date().timeIntervalSince(started) + wait <= perseverance.totalBudget
                else {
                    report.failure = failure
                    return
                }
                report.recovered.append("\(stepName): \(failure.description)")
                progress("  \(stepName): \(failure.description); reading App Store Connect again in \(Self.seconds(wait)) and going on")
                guard pause(wait) else {
                    report.failure = .appStoreConnect(.cancelled)
                    return
                }
            } catch {
                report.failure = error
                return
            }
        }
    }

    /// The reading an apply starts from, tried again like a step when App Store Connect answers it badly.
    func firstRead(_ link: AppStoreConnectLink) throws(SyncFailure) -> Sides {
        try retryingRead { () throws(SyncFailure) in try read(link) }
    }

    /// A reading tried again like a step when App Store Connect answers it badly.
    func retryingRead<T>(_ body: () throws(SyncFailure) -> T) throws(SyncFailure) -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let failure where failure.isTransient && attempt < perseverance.attemptsPerStep {
                let wait = perseverance.delay(attempt: attempt) * client.configuration.waitScale
                progress("  reading App Store Connect: \(failure.description); again in \(Self.seconds(wait))")
                guard pause(wait) else { throw .appStoreConnect(.cancelled) }
                attempt += 1
            }
        }
    }

    /// Sleeps `seconds` on this thread, waking to ask `shouldStop`: false when stopped from outside.
    func pause(_ seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if shouldStop() { return false }
            sleep(min(0.2, end.timeIntervalSinceNow))
        }
        return !shouldStop()
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }
}
