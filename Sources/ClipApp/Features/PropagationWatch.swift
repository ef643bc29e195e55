import ClipCore
public import ClipStore
import FileFormats
import Foundation
import Locking
import OutboundHTTP
import StrictJSON

/// When the watch checks again after a change, and for how long (docs/operations.md#propagation-watched).
public struct PropagationSchedule: Sendable, Equatable {
    /// Seconds from one check to the next, the first check at the change; the last repeats.
    public var intervals: [Double]
    /// After this many seconds from the change the watch gives up on what has not propagated.
    public var giveUpAfter: Double

    /// Minutes at first, hours later, for three days: Apple's CDN refreshes "within 24 hours" and people
    /// measure up to days (apple-spec.md §4.2).
    public static let standard = PropagationSchedule(
        intervals: [60, 120, 300, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200], giveUpAfter: 72 * 3600)

    /// The shortest interval the watch takes: one check of a customer's site a second at most
    /// (docs/operations.md#propagation-watched).
    public static let minimumInterval: Double = 1

    public init(intervals: [Double], giveUpAfter: Double) {
        self.intervals = intervals
        self.giveUpAfter = giveUpAfter
    }

    /// From `CLIP_AASA_WATCH_SCHEDULE` (seconds separated by commas, or `off`) and `CLIP_AASA_WATCH_FOR` (72h, 30m,
    /// 90s); nil when the watch is off; a usage message naming the variable for a value that is not one.
    public static func from(environment: [String: String]) -> Result<PropagationSchedule?, UsageProblem> {
        from(
            schedule: environment["CLIP_AASA_WATCH_SCHEDULE"], giveUpAfter: environment["CLIP_AASA_WATCH_FOR"],
            names: ("CLIP_AASA_WATCH_SCHEDULE", "CLIP_AASA_WATCH_FOR"))
    }

    /// `serve --aasa-watch-schedule` and `--aasa-watch-for`, each over its environment variable.
    public static func from(options: (schedule: String?, giveUpAfter: String?), environment: [String: String]) -> Result<
        PropagationSchedule?, UsageProblem
    > {
        let scheduleName = options.schedule == nil ? "CLIP_AASA_WATCH_SCHEDULE" : "serve --aasa-watch-schedule"
        let forName = options.giveUpAfter == nil ? "CLIP_AASA_WATCH_FOR" : "serve --aasa-watch-for"
        return from(
            schedule: options.schedule ?? environment["CLIP_AASA_WATCH_SCHEDULE"],
            giveUpAfter: options.giveUpAfter ?? environment["CLIP_AASA_WATCH_FOR"], names: (scheduleName, forName))
    }

    static func from(schedule text: String?, giveUpAfter duration: String?, names: (schedule: String, giveUpAfter: String)) -> Result<
        PropagationSchedule?, UsageProblem
    > {
        var schedule = standard
        if let text {
            if text == "off" { return .success(nil) }
            let values = text.split(separator: ",", omittingEmptySubsequences: false).map { WaitSchedule.decimal($0) }
            guard values.count <= 100, values.allSatisfy({ ($0 ?? -1) >= minimumInterval && ($0 ?? 0) <= 604_800 }) else {
                return .failure(
                    UsageProblem(
                        "\(names.schedule) takes seconds of at least \(Int(minimumInterval)) separated by commas, such as 60,300,3600, or off"
                    ))
            }
            schedule.intervals = values.map { $0! }
        }
        if let duration {
            guard let seconds = WaitSchedule.duration(duration) else {
                return .failure(UsageProblem("\(names.giveUpAfter) takes a duration such as 72h, 30m or 90s"))
            }
            schedule.giveUpAfter = seconds
        }
        return .success(schedule)
    }

    func milliseconds(afterCheck n: Int) -> Int64 { Int64((intervals[min(n, intervals.count) - 1] * 1000).rounded()) }
}

public struct UsageProblem: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// After a change to a host's AASA, checks the site and Apple's CDN on `PropagationSchedule` and records
/// when each first served the new file: `aasa.propagated` events, the delays for `/metrics`, the state in
/// `verify`'s answer. A change is seen by comparing the generated file's SHA-256 with the one followed,
/// read again when the change records move; its state is in the database (`aasa_propagation`), so a
/// restart continues.
///
/// Like the webhook worker (docs/architecture.md#webhooks), `serve` runs it on one thread of its own with
/// its own connection, never an event or pool thread: it wakes on the server's own writes that changed a
/// host's AASA (`registryDidCommit`, registered on the pool's `WriteObservers`: those hosts' files are read
/// again at once), when the next check is due, and every `pollSeconds` (the change records, for other
/// processes' writes), whichever is first.
public final class PropagationWatch: WriteObserver {
    let outbound: Outbound
    let schedule: PropagationSchedule
    let nowMs: @Sendable () -> Int64
    private let lastMark = Locked<String?>(nil)
    private let wakeUps = DispatchSemaphore(value: 0)
    private let stopping = Locked(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Locked(false)
    /// The hosts whose AASA this server's writes changed since the last pass (`registryDidCommit`).
    private let told = Locked<Set<String>>([])

    public init(
        outbound: Outbound, schedule: PropagationSchedule, nowMs: (@Sendable () -> Int64)? = nil
    ) {
        self.outbound = outbound
        self.schedule = schedule
        self.nowMs = nowMs ?? { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
    }

    /// One pass: notes the hosts whose file changed, then checks those due, a few hosts at a time until
    /// `stopping` says so. Every host's file is read again when the change records moved and `readingEveryFile`
    /// allows it; otherwise those of the hosts this server's writes changed. The first pass over an empty watch
    /// takes every host's file as it is (nothing to follow: it did not change while watched).
    public func pass(_ registry: Registry, readingEveryFile: Bool = true, stopping: () -> Bool = { false }) throws {
        let hosts = told.withLock { told in
            defer { told = [] }
            return told
        }
        let mark = try registry.changeMark()
        if readingEveryFile, lastMark.withLock({ $0 }) != mark {
            try noteChanges(registry, now: nowMs())
            lastMark.withLock { $0 = mark }
        } else if !hosts.isEmpty {
            try noteChanges(registry, hosts: hosts, now: nowMs())
        }
        let now = nowMs()
        let due = try registry.propagations().filter { ($0.nextCheckMs ?? .max) <= now }
        let session = Session(registry: registry, caller: .local, outbound: outbound)
        let verifier = HostVerifier(outbound: outbound)
        var start = 0
        while start < due.count && !stopping() {
            var batch: [(row: AASAPropagation, expectation: HostVerifier.Expectation, etag: String)] = []
            for row in due[start..<min(start + Outbound.hostsAtOnce, due.count)] {
                // A file changed again since: the next notes start over with it.
                guard let bytes = try? registry.aasa(host: row.host), SHA256.hexDigest(bytes) == row.digest else { continue }
                batch.append((row, try HostVerifier.expectation(row.host, in: session), Registry.aasaETag(bytes)))
            }
            start += Outbound.hostsAtOnce
            let answers = Outbound.boundedMap(batch.map(\.expectation), width: Outbound.hostsAtOnce) { verifier.verify($0) }
            for (i, answer) in answers.enumerated() { try record(answer, row: batch[i].row, etag: batch[i].etag, now: nowMs(), registry) }
        }
    }

    func noteChanges(_ registry: Registry, now: Int64) throws {
        let rows = Dictionary(uniqueKeysWithValues: try registry.propagations().map { ($0.host, $0) })
        let hosts = try registry.aasaHosts()
        let baseline = rows.isEmpty
        var changed: [AASAPropagation] = []
        for host in hosts {
            let digest = (try? registry.aasa(host: host)).map(SHA256.hexDigest) ?? ""
            guard rows[host]?.digest != digest else { continue }
            changed.append(
                AASAPropagation(host: host, digest: digest, changedAtMs: now, nextCheckMs: baseline || digest.isEmpty ? nil : now))
        }
        let present = Set(hosts)
        for (host, row) in rows where !row.digest.isEmpty && !present.contains(host) {
            changed.append(AASAPropagation(host: host, digest: "", changedAtMs: now, nextCheckMs: nil))
        }
        if !changed.isEmpty { try registry.savePropagations(changed) }
    }

    /// `noteChanges` for `hosts` alone: their files read again, a host that has none any more noted as gone.
    func noteChanges(_ registry: Registry, hosts: Set<String>, now: Int64) throws {
        let rows = Dictionary(uniqueKeysWithValues: try registry.propagations().map { ($0.host, $0) })
        var changed: [AASAPropagation] = []
        for host in hosts.sorted() {
            let digest = (try? registry.aasa(host: host)).map(SHA256.hexDigest) ?? ""
            guard (rows[host]?.digest ?? "") != digest else { continue }
            changed.append(
                AASAPropagation(host: host, digest: digest, changedAtMs: now, nextCheckMs: rows.isEmpty || digest.isEmpty ? nil : now))
        }
        if !changed.isEmpty { try registry.savePropagations(changed) }
    }

    func record(_ answer: HostVerification, row old: AASAPropagation, etag: String, now: Int64, _ registry: Registry) throws {
        var row = old
        var propagated: [(place: String, delaySeconds: Int64)] = []
        let delay = max(0, (now - row.changedAtMs) / 1000)
        let served = Set(answer.checks.filter { $0.verdict == "ok" }.map(\.place))
        if row.siteDelaySeconds == nil, served.contains("site") {
            row.siteDelaySeconds = delay
            propagated.append(("site", delay))
        }
        if row.cdnDelaySeconds == nil, served.contains("apple-cdn") {
            row.cdnDelaySeconds = delay
            propagated.append(("apple-cdn", delay))
        }
        row.checks += 1
        if row.siteDelaySeconds != nil && row.cdnDelaySeconds != nil {
            row.nextCheckMs = nil
        } else {
            let next = now + schedule.milliseconds(afterCheck: row.checks)
            if Double(next - row.changedAtMs) / 1000 > schedule.giveUpAfter {
                row.nextCheckMs = nil
                row.gaveUp = true
            } else {
                row.nextCheckMs = next
            }
        }
        try registry.savePropagation(row, propagated: propagated, etag: etag)
    }

    /// A committed write of this server that changed hosts' AASA: their files are read again now.
    public func registryDidCommit(_ account: WriteAccount) {
        guard !account.aasaHosts.isEmpty else { return }
        told.withLock { $0.formUnion(account.aasaHosts) }
        wakeUps.signal()
    }

    /// `pass` on a thread of its own with its own connection to `path`, until `stop`: again after a write that
    /// changed an AASA, when the next check is due, and at least every `pollSeconds`.
    public func start(path: String, pollSeconds: Double, log: @escaping @Sendable (String) -> Void) {
        started.withLock { $0 = true }
        let thread = Thread { [self] in
            run(path: path, pollSeconds: pollSeconds, log: log)
            finished.signal()
        }
        thread.name = "propagation-watch"
        thread.start()
    }

    /// Stops after the hosts under way (`pass`'s `stopping`) and waits for that; any number of callers may wait.
    public func stop() {
        guard started.withLock({ $0 }) else { return }
        stopping.withLock { $0 = true }
        wakeUps.signal()
        finished.wait()
        finished.signal()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func run(path: String, pollSeconds: Double, log: @Sendable (String) -> Void) {
        var registry: Registry?
        var filesLookedAt = -Double.infinity
        while !isStopping {
            let now = Self.seconds()
            let readingEveryFile = now - filesLookedAt >= pollSeconds
            if readingEveryFile { filesLookedAt = now }
            var waitSeconds = filesLookedAt + pollSeconds - now
            do {
                if registry == nil { registry = try Registry(path: path, actor: "propagation-watch") }
                try pass(registry!, readingEveryFile: readingEveryFile) { self.isStopping }
                if let next = try registry!.propagations().compactMap(\.nextCheckMs).min() {
                    waitSeconds = min(waitSeconds, Double(next - nowMs()) / 1000)
                }
            } catch {
                log("propagation watch: \(error)")
            }
            // Not sooner than a tenth of a second: a check that stays due (its file changed again, not yet noted)
            // must not make the thread spin.
            _ = wakeUps.wait(timeout: .now() + max(waitSeconds, 0.1))
            // Writes told while it ran are in `told`: one pass notes them all.
            while wakeUps.wait(timeout: .now()) == .success {}
        }
        registry?.close()
    }

    /// Monotonic seconds.
    private static func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The watch's state of one host, in `verify`'s answer.
extension AASAPropagation {
    init?(host: String, json: JSONValue) {
        func ms(_ key: String) -> Int64? {
            json[key]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        }
        func int(_ key: String) -> Int64? { if case .integer(let n)? = json[key] { n } else { nil } }
        guard let changed = ms("changedAt") else { return nil }
        self.init(
            host: host, digest: "", changedAtMs: changed, checks: Int(int("checks") ?? 0), nextCheckMs: ms("nextCheckAt"),
            siteDelaySeconds: int("siteDelaySeconds"), cdnDelaySeconds: int("appleCDNDelaySeconds"),
            gaveUp: json["gaveUp"]?.boolValue ?? false)
    }

    /// One line: when the file changed, and where it has propagated.
    var summary: String {
        func place(_ name: String, _ delay: Int64?) -> String {
            if let delay { return "\(name) after \(delay) s" }
            return "\(name) " + (gaveUp ? "never (the watch gave up)" : "not yet")
        }
        let next = nextCheckMs.map { "; next check \(Date(timeIntervalSince1970: Double($0) / 1000).formatted(.iso8601))" } ?? ""
        let changed = Date(timeIntervalSince1970: Double(changedAtMs) / 1000).formatted(.iso8601)
        return "changed \(changed): \(place("site", siteDelaySeconds)), \(place("apple-cdn", cdnDelaySeconds))\(next)"
    }

    var json: JSONValue {
        func iso(_ ms: Int64) -> JSONValue { .string(Date(timeIntervalSince1970: Double(ms) / 1000).formatted(.iso8601)) }
        return .object([
            ("changedAt", iso(changedAtMs)), ("checks", .integer(Int64(checks))),
            ("siteDelaySeconds", siteDelaySeconds.map(JSONValue.integer) ?? .null),
            ("appleCDNDelaySeconds", cdnDelaySeconds.map(JSONValue.integer) ?? .null),
            ("nextCheckAt", nextCheckMs.map(iso) ?? .null), ("gaveUp", .bool(gaveUp)),
        ])
    }
}

/// `/metrics`: the delays the watch recorded (`clipregistry_aasa_propagation_delay_seconds`).
public enum PropagationMetrics {
    static let bounds: [Int64] = [60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 48 * 3600, 72 * 3600]

    public static func render(_ delays: (site: [Int64], cdn: [Int64])) -> String {
        let (site, cdn) = delays
        var out =
            "# HELP clipregistry_aasa_propagation_delay_seconds From a change to a host's AASA to the first check that found it served.\n"
        out += "# TYPE clipregistry_aasa_propagation_delay_seconds histogram\n"
        for (place, delays) in [("apple-cdn", cdn), ("site", site)] {
            for bound in bounds {
                out +=
                    "clipregistry_aasa_propagation_delay_seconds_bucket{where=\"\(place)\",le=\"\(bound)\"} "
                    + "\(delays.filter { $0 <= bound }.count)\n"
            }
            out += "clipregistry_aasa_propagation_delay_seconds_bucket{where=\"\(place)\",le=\"+Inf\"} \(delays.count)\n"
            out += "clipregistry_aasa_propagation_delay_seconds_sum{where=\"\(place)\"} \(delays.reduce(0, +))\n"
            out += "clipregistry_aasa_propagation_delay_seconds_count{where=\"\(place)\"} \(delays.count)\n"
        }
        return out
    }
}
