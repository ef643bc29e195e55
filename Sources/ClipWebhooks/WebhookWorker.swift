public import ClipCore
public import ClipStore
import Foundation
import Locking

/// The delivery worker of `clipctl serve` (docs/architecture.md#webhooks): one thread of its own,
/// never an event or pool thread, so no request waits for it. It sends each active endpoint's
/// oldest undelivered event (head of line: an endpoint gets its events in order; endpoints side by
/// side, so one that hangs delays no other), marks it
/// delivered only after a 2xx, and otherwise schedules the next attempt. All its state is in
/// SQLite: after a crash it starts again from there, and an event sent but not yet marked is sent
/// again with the same `webhook-id`. It wakes on the server's own writes that queued an event or
/// changed an endpoint (`registryDidCommit`, registered on the pool's `WriteObservers`) and at least
/// every `pollSeconds` (for other processes' writes and for retries).
public final class WebhookWorker: WriteObserver {
    public struct Configuration: Sendable {
        public var schedule = WebhookRetrySchedule.standard
        public var timeoutSeconds = 10.0
        public var allowPrivateTargets = false
        public var pollSeconds = 1.0
        /// Deliveries made longer ago than this, and their events, are forgotten (checked hourly).
        public var retentionDays = 30
        public init() {}
    }

    let path: String
    let configuration: Configuration
    /// Told what failed, one message at a time; `serve` writes each as an error line of its log.
    let log: @Sendable (String) -> Void
    private let wakeUps = DispatchSemaphore(value: 0)
    private let stopping = Locked(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Locked(false)

    public init(path: String, configuration: Configuration, log: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.configuration = configuration
        self.log = log
    }

    public func start() {
        started.withLock { $0 = true }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "webhooks"
        thread.start()
    }

    /// Something was written: look for new deliveries now.
    public func wake() { wakeUps.signal() }

    /// A committed write that queued events, or changed an endpoint (one enabled again has deliveries due at once).
    public func registryDidCommit(_ account: WriteAccount) {
        if !account.events.isEmpty || account.otherChanges.contains(.webhook) { wake() }
    }

    /// Stops after the attempt in progress (at most one request's timeout) and waits for that;
    /// any number of callers may wait.
    public func stop() {
        guard started.withLock({ $0 }) else { return }
        stopping.withLock { $0 = true }
        wakeUps.signal()
        finished.wait()
        finished.signal()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    /// Attempts under way (their endpoints) and finished ones not yet recorded. Each endpoint's head of line is sent
    /// on a thread of its own, so an endpoint that hangs holds up only its own line (for at most the timeout), never
    /// another team's; the worker thread alone reads and records, on its own connection.
    private struct Sending {
        var endpoints: Set<Int64> = []
        var finished: [(Registry.DueWebhook, WebhookSender.Outcome)] = []
    }
    private let sending = Locked(Sending())
    /// Requests under way at most (each holds a thread for up to the timeout); the rest wait their turn.
    static let maxSending = 32
    private let underWay = DispatchGroup()

    private func run() {
        let registry: Registry
        do { registry = try Registry(path: path, actor: "webhooks") } catch {
            log("webhooks: cannot open the database: \(error)")
            return
        }
        defer { registry.close() }
        let sender = WebhookSender(timeoutSeconds: configuration.timeoutSeconds, allowPrivateTargets: configuration.allowPrivateTargets)
        var prunedAt = Date.distantPast
        while !isStopping {
            var waitSeconds = configuration.pollSeconds
            do {
                if Date().timeIntervalSince(prunedAt) >= 3_600 {
                    prunedAt = Date()
                    try registry.pruneWebhookHistory(olderThanDays: configuration.retentionDays)
                }
                recordFinished(registry)
                for delivery in try registry.dueWebhooks(now: Registry.milliseconds(Date()))
                where sending.withLock({ $0.endpoints.count < Self.maxSending && $0.endpoints.insert(delivery.endpointID).inserted }) {
                    start(delivery, sender: sender)
                }
                // At the cap, the next start waits for a request to end (which wakes this thread), not for a due time
                // that has passed already: that would spin.
                let busy = sending.withLock { $0.endpoints }
                if busy.count < Self.maxSending, let next = try registry.nextWebhookDue(excluding: busy) {
                    waitSeconds = min(waitSeconds, max(Double(next - Registry.milliseconds(Date())) / 1000, 0))
                }
            } catch {
                log("webhooks: \(error)")
            }
            if waitSeconds > 0 { _ = wakeUps.wait(timeout: .now() + waitSeconds) }
        }
        // Stopping: the attempts under way end within the timeout; a delivered one is recorded, not sent again.
        underWay.wait()
        recordFinished(registry)
    }

    private func start(_ delivery: Registry.DueWebhook, sender: WebhookSender) {
        underWay.enter()
        DispatchQueue.global().async { [self] in
            let outcome = send(delivery, sender: sender)
            // The endpoint stays busy until its outcome is recorded (`recordFinished`): freed now, its head of line would
            // still read as due and be sent again.
            sending.withLock { $0.finished.append((delivery, outcome)) }
            wakeUps.signal()
            underWay.leave()
        }
    }

    private func recordFinished(_ registry: Registry) {
        let finished = sending.withLock { s in
            defer { s.finished = [] }
            return s.finished
        }
        for (delivery, outcome) in finished {
            record(delivery, outcome, registry: registry)
            sending.withLock { _ = $0.endpoints.remove(delivery.endpointID) }
        }
    }

    private func send(_ delivery: Registry.DueWebhook, sender: WebhookSender) -> WebhookSender.Outcome {
        let outcome: WebhookSender.Outcome
        if let key = WebhookSignature.key(secret: delivery.secret) {
            let timestamp = Int64(Date().timeIntervalSince1970)
            do {
                let signature = try WebhookSignature.header(key: key, id: delivery.messageID, timestamp: timestamp, body: delivery.payload)
                outcome = sender.send(
                    url: delivery.url,
                    headers: [
                        ("Content-Type", "application/json"), ("User-Agent", "clip-registry-webhooks"), ("webhook-id", delivery.messageID),
                        ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature),
                    ],
                    body: delivery.payload)
            } catch {
                outcome = .failed(status: nil, error: "signing failed: \(error)")
            }
        } else {
            outcome = .failed(status: nil, error: "the endpoint's secret is malformed")
        }
        return outcome
    }

    private func record(_ delivery: Registry.DueWebhook, _ outcome: WebhookSender.Outcome, registry: Registry) {
        do {
            switch outcome {
            case .delivered(let status):
                try registry.recordWebhookAttempt(
                    delivery, status: status, error: nil, delivered: true, schedule: configuration.schedule, unit: 0)
            case .failed(let status, let error):
                try registry.recordWebhookAttempt(
                    delivery, status: status, error: error, delivered: false, schedule: configuration.schedule,
                    unit: Double.random(in: 0..<1))
            }
        } catch {
            log("webhooks: cannot record an attempt: \(error)")
        }
    }
}
