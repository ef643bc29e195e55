import Dispatch
import Locking

/// Threads that run handlers which may block (a database write, say), in the order they were
/// submitted, so that a slow request never holds up the event loop.
final class BlockingPool: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
    }

    private let queue = Locked(Queue())
    /// One signal per submitted job, and one per thread at the stop.
    private let ready = DispatchSemaphore(value: 0)
    private let threads: Int

    init(threads: Int) { self.threads = threads }

    func submit(_ job: @escaping @Sendable () -> Void) {
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    /// Jobs submitted and not yet taken by a thread.
    var waiting: Int { queue.withLock { $0.jobs.count - $0.head } }

    /// A pool thread's loop: returns once stopped and every submitted job has run.
    func run() {
        while true {
            ready.wait()
            let next = queue.withLock { queue -> (@Sendable () -> Void)? in
                guard queue.head < queue.jobs.count else { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                if queue.head == queue.jobs.count {
                    queue.jobs.removeAll(keepingCapacity: true)
                    queue.head = 0
                }
                return job
            }
            guard let next else { return }  // a stop's signal, with every job taken
            next()
        }
    }

    /// Lets every thread return once the jobs submitted so far have run.
    func stop() {
        let first = queue.withLock { queue in
            defer { queue.stopped = true }
            return !queue.stopped
        }
        guard first else { return }
        for _ in 0..<threads { ready.signal() }
    }
}
