public import ClipCore
public import ClipStore
public import ClipWire
import Foundation
import Locking
import ClipSync
import ClipSyncEngine
import StrictJSON

/// The schedule (docs/schedules.md#the-scheduler): `GET /v1/schedule` and `clipctl schedule list`, what falls due and
/// what was applied, the caller's team's (every team's for an admin).
public enum ScheduleList: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var until: Instant?
        var limit = 100
        public init() {}
        static let until = FieldFacts(
            name: "until", place: .query, type: .instant, placeholder: "TIME",
            help: "only what falls due before this time, such as '2027-09-01 Europe/Paris'")
        public static let fields: [InputField<Input>] = [
            .parsed(until, \.until, parse: InputField<Input>.instantRule, format: \.description), .page(\.limit, of: "flips"),
        ]
    }

    public typealias Output = ScheduleListing

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let team = session.caller.team
        return Output(
            upcoming: try session.registry.upcomingFlips(team: team, until: input.until, limit: input.limit),
            applied: try session.registry.appliedFlips(team: team, limit: input.limit))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/schedule"),
        command: Command(
            ["schedule", "list"],
            CommandHelp(
                "show what falls due (windows that open or close, campaigns that start or end) and what was applied",
                examples: [CommandExample("clipctl schedule list --until '2027-09-01 Europe/Paris'", "Everything due before September")]),
            present: { output, _, printer in
                printer.line(output.upcoming.isEmpty ? "nothing is due" : "due:")
                for f in output.upcoming { printer.line("  \(f.dueAt)  \(f.kind.rawValue)  \(f.subject)  \(f.name)") }
                if !output.applied.isEmpty { printer.line("applied (latest first):") }
                for f in output.applied { printer.line("  \(ScheduleRun.line(f))") }
            }))
}

/// `POST /v1/schedule/run` and `clipctl schedule run`: applies what fell due, once, for setups that run no server (a
/// cron job); `clipctl serve` runs it every second. An admin's (or the database owner's): it applies every team's.
public enum ScheduleRun: Operation {
    public static let callers = CallerRule.admin
    public typealias Input = NoInput
    public typealias Output = Items<ScheduledFlip>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.runSchedule())
    }

    static func line(_ f: ScheduledFlip) -> String {
        let late = f.isLate ? "  LATE by \(f.delaySeconds ?? 0) s" : ""
        return
            "\(f.dueAt)  \(f.kind.rawValue)  \(f.subject)  \(f.name)  applied \(f.appliedAt.map(\.description) ?? "-") by \(f.by ?? "schedule")\(late)"
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/schedule/run", body: .none(.refused)),
        command: Command(
            ["schedule", "run"],
            CommandHelp(
                "apply what fell due, once (clipctl serve does it every second)",
                discussion:
                    "A flip that fell due while nothing ran is applied now and recorded as late. Safe to run beside a server, or twice.",
                examples: [CommandExample("clipctl schedule run", "Apply the flips due by now")]),
            present: { output, _, printer in
                printer.line(
                    output.items.isEmpty ? "nothing was due" : "applied \(output.items.count) flip\(output.items.count == 1 ? "" : "s"):")
                for f in output.items { printer.line("  \(line(f))") }
            }))
}

/// `clipctl serve`'s scheduler (docs/schedules.md#the-scheduler): every second it asks whether a flip fell due, and
/// applies what did through the pool (`Registry.runSchedule`), so that the read model and the webhooks follow as they
/// follow any write. Other runners beside it (another server, `schedule run`) apply nothing twice.
public final class ScheduleRunner: Sendable {
    let pool: RegistryPool
    /// A server's App Store Connect access: with it, the scheduled changes of linked clips are pushed as they fall due.
    let appStoreConnect: AppStoreConnectAccess?
    let log: @Sendable (_ level: String, _ message: String) -> Void
    /// After a failed push, the next is tried no sooner than this (seconds since 1970).
    private let nextPushAttempt = Locked<Int64>(0)
    /// The moment the last look reached (in memory between pushes: looking writes nothing).
    private let lookedUntil = Locked<Instant?>(nil)
    /// What the last look pushed (`kind id dueAt`): the second it ended in is looked at again, and not pushed twice.
    private let lastPushed = Locked<Set<String>>([])
    /// How long a failed push waits before it is tried again.
    static let pushRetrySeconds: Int64 = 60
    private let stopping = Locked(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Locked(false)

    public init(
        pool: RegistryPool, appStoreConnect: AppStoreConnectAccess? = nil,
        log: @escaping @Sendable (_ level: String, _ message: String) -> Void
    ) {
        self.pool = pool
        self.appStoreConnect = appStoreConnect
        self.log = log
    }

    /// One look: the flips applied (none when nothing was due), then App Store Connect's share of what fell due.
    @discardableResult
    public func pass() throws -> [ScheduledFlip] {
        try pool.with(actor: "schedule") { registry in
            let flips = try registry.scheduleIsDue() ? try registry.runSchedule() : []
            if let appStoreConnect { try push(registry, appStoreConnect, after: flips) }
            return flips
        }
    }

    /// Applies each linked clip whose App Store Connect copy the clock changed since the last look: a window's
    /// `liveFrom − lead` or `liveUntil`, a window set meanwhile, or a campaign that started or ended on the clip's team
    /// (docs/schedules.md#app-store-connect). A failed apply is tried again a minute later, from the same moment; the
    /// moment pushed to is kept in the database after each push (a restarted server looks again from there: an apply
    /// of a clip in step sends nothing).
    func push(_ registry: Registry, _ access: AppStoreConnectAccess, after flips: [ScheduledFlip]) throws {
        let now = registry.instant
        guard now.seconds >= nextPushAttempt.withLock({ $0 }) else { return }
        let swept = try lookedUntil.withLock { $0 } ?? registry.ascSweptUntil()
        let campaignTeams = Set(flips.filter { $0.kind == .campaignStart || $0.kind == .campaignEnd }.compactMap(\.team))
        guard now > swept || !campaignTeams.isEmpty else { return }
        var failed = false, pushed = false
        let already = lastPushed.withLock { $0 }
        var pushedNow: Set<String> = []
        func key(_ d: (kind: String, experienceID: Int64?, name: String, dueAt: Instant)) -> String {
            "\(d.kind) \(d.experienceID ?? 0) \(d.dueAt)"
        }
        for link in try registry.ascLinks() {
            var due = try registry.ascPushesDue(clip: link.clip, leadSeconds: link.leadSeconds, after: swept, through: now).filter {
                !already.contains(key($0))
            }
            for flip in flips where (flip.kind == .campaignStart || flip.kind == .campaignEnd) && flip.team == link.clip.team {
                due.append(("campaign", nil, "\(flip.kind == .campaignStart ? "start" : "end") of campaign \(flip.name)", flip.dueAt))
            }
            guard !due.isEmpty else { continue }
            do {
                let engine = SyncEngine(registry: registry, client: try access.client())
                engine.shouldStop = access.shouldStop
                let reports = try engine.apply(clip: link.clip.rawValue, prune: false)
                if let failure = reports.compactMap(\.failure).first { throw failure }
                try registry.recordASCScheduledPushes(clip: link.clip, due)
                pushedNow.formUnion(due.map(key))
                pushed = true
                let done = reports.map(\.done.count).reduce(0, +)
                log(
                    "info",
                    "schedule: pushed \(link.clip.rawValue) to App Store Connect (\(done) step(s)) for "
                        + due.map { "\($0.kind) \($0.name)" }.joined(separator: ", "))
            } catch {
                failed = true
                log(
                    "error",
                    "schedule: pushing \(link.clip.rawValue) to App Store Connect failed (tried again in \(Self.pushRetrySeconds) s): \(error)"
                )
            }
        }
        if failed {
            nextPushAttempt.withLock { $0 = now.seconds + Self.pushRetrySeconds }
            return
        }
        lookedUntil.withLock { $0 = now }
        lastPushed.withLock { $0 = pushedNow }
        if pushed { try registry.markASCSwept(through: now) }
    }

    public func start(intervalSeconds: Double = 1) {
        started.withLock { $0 = true }
        let thread = Thread { [self] in
            while !stopping.withLock({ $0 }) {
                do {
                    for flip in try pass() {
                        log(flip.isLate ? "warn" : "info", "schedule: " + ScheduleRun.line(flip))
                    }
                } catch {
                    log("error", "schedule: \(error)")
                }
                _ = wakeUp.wait(timeout: .now() + intervalSeconds)
            }
            finished.signal()
        }
        thread.name = "schedule"
        thread.start()
    }

    /// Stops after the pass under way and waits for it.
    public func stop() {
        guard started.withLock({ $0 }) else { return }
        stopping.withLock { $0 = true }
        wakeUp.signal()
        finished.wait()
        finished.signal()
    }
}
