import ClipCore
import ClipSyncEngine
import Foundation
import Locking

/// What `clipctl asc apply` says on standard error while it works (`--progress`; issue 32 item 6: 299 creates took 13
/// minutes with nothing said in a CI log). `auto`: on a terminal each step and each wait, as before, and nothing more
/// under `--json`; elsewhere `plain`. `plain`: a line now and then with the steps done, the rate and the time left
/// (`PlainApplyProgress`), and each wait. `none`: nothing but warnings and errors.
public enum ProgressChoice: String, CaseIterable, Sendable {
    case auto, plain, none

    static let option = FieldFacts.option(
        "progress", "auto|plain|none",
        help: "auto (default): each step on a terminal, plain lines elsewhere; plain: a line every "
            + "\(Int(PlainApplyProgress.interval)) s or so (done/total, rate, time left); none: nothing")

    /// The choice `--progress` names (default `auto`); any other value is a usage error (exit 64).
    public init(_ parsed: CommandWords) throws(CommandUsageError) {
        guard let text = parsed.value(Self.option.name) else {
            self = .auto
            return
        }
        guard let choice = Self(rawValue: text) else {
            throw CommandUsageError("--\(Self.option.name) is one of \(Self.allCases.map(\.rawValue).joined(separator: ", ")), not \(text)")
        }
        self = choice
    }

    /// What is said where standard error is or is not a terminal.
    enum Said { case everyStep, plainLines, nothing }
    func said(standardErrorIsTerminal: Bool, json: Bool) -> Said {
        switch self {
        case .none: .nothing
        case .plain: .plainLines
        case .auto: json ? .nothing : standardErrorIsTerminal ? .everyStep : .plainLines
        }
    }

    /// Whether a wait of a second or more (a 429's Retry-After, a backoff) is said: with any progress, and on a terminal
    /// under `--json` as before.
    func saysWaits(standardErrorIsTerminal: Bool, json: Bool) -> Bool {
        said(standardErrorIsTerminal: standardErrorIsTerminal, json: json) != .nothing || (self == .auto && standardErrorIsTerminal)
    }
}

/// Plain progress lines for a log (no cursor movement, no carriage return): per clip one when its steps begin, then one
/// after a step once `interval` seconds have passed since the last line, and one when the last step is done; each with
/// the steps done of all, the rate of this run and the time the rest would take at it.
final class PlainApplyProgress: Sendable {
    /// Seconds between two lines at most while steps finish: a log that moves often enough to show the apply alive.
    static let interval = 10.0

    private struct Clip {
        var started: Date
        var doneAtStart: Int
        var lastLine: Date
        var total: Int
    }

    private let clips = Locked<[AppID: Clip]>([:])
    private let write: @Sendable (String) -> Void
    private let now: @Sendable () -> Date

    init(write: @escaping @Sendable (String) -> Void, now: @escaping @Sendable () -> Date = { Date() }) {
        self.write = write
        self.now = now
    }

    func tell(_ progress: ApplyProgress) {
        let time = now()
        let line: String? = clips.withLock { clips in
            let total = progress.done + progress.left
            guard var clip = clips[progress.clip] else {
                clips[progress.clip] = Clip(started: time, doneAtStart: progress.done, lastLine: time, total: total)
                return total == 0 ? nil : Self.line(progress, total: total, elapsed: 0, doneThisRun: 0)
            }
            defer { clips[progress.clip] = clip }
            clip.total = total
            guard total > 0, progress.left == 0 || time.timeIntervalSince(clip.lastLine) >= Self.interval else { return nil }
            clip.lastLine = time
            return Self.line(
                progress, total: total, elapsed: time.timeIntervalSince(clip.started), doneThisRun: progress.done - clip.doneAtStart)
        }
        if let line { write(line + "\n") }
    }

    /// `asc apply CLIP: 120/299 steps done, 9.2/min, about 19 min left`; the last `… done in 13 min, 23.0/min`.
    static func line(_ progress: ApplyProgress, total: Int, elapsed: Double, doneThisRun: Int) -> String {
        let head = "asc apply \(progress.clip.rawValue): \(progress.done)/\(total) steps done"
        guard doneThisRun > 0, elapsed > 0 else { return head }
        let perSecond = Double(doneThisRun) / elapsed
        let rate = String(format: "%.1f/min", perSecond * 60)
        if progress.left == 0 { return "\(head) in \(duration(elapsed)), \(rate)" }
        return "\(head), \(rate), about \(duration(Double(progress.left) / perSecond)) left"
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
