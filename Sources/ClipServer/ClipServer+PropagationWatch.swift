import ClipApp
import ClipCLI
import ClipStore
import Foundation

/// `serve`'s propagation watch (docs/operations.md#propagation-watched): configured by `--aasa-watch-schedule` and
/// `--aasa-watch-for`, or the environment (`CLIP_AASA_WATCH_SCHEDULE`, `CLIP_AASA_WATCH_FOR`), a usage error (exit 64)
/// for a value that is none.
extension ClipServer {
    static func propagationSchedule(_ command: ServeCommand) throws -> PropagationSchedule? {
        let options = (schedule: command.words.value("aasa-watch-schedule"), giveUpAfter: command.words.value("aasa-watch-for"))
        switch PropagationSchedule.from(options: options, environment: ProcessInfo.processInfo.environment) {
        case .success(let schedule): return schedule
        case .failure(let problem): throw command.usage(problem.message)
        }
    }

    /// Starts the watch on a thread of its own, told of the pool's writes; `PropagationWatch.stop` stops it. It reads
    /// the files again after each write of this server that changed an AASA, and for other processes' writes when the
    /// change records move, at most every 5 s (or the schedule's shortest interval).
    static func startPropagationWatch(
        _ schedule: PropagationSchedule?, _ outbound: Outbound, _ path: String, _ pool: RegistryPool, _ io: CLIIO
    ) -> PropagationWatch? {
        guard let schedule else { return nil }
        let watch = PropagationWatch(outbound: outbound, schedule: schedule)
        pool.observers.add(watch)
        watch.start(path: path, pollSeconds: min(5, schedule.intervals.min() ?? 5)) { line in io.err(ServeCommand.logLine("warn", line)) }
        return watch
    }
}
