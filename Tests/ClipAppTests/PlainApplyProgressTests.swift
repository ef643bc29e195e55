@testable import ClipApp
import ClipCore
import ClipSyncEngine
import Foundation
import Locking
import Testing

/// The plain progress lines of `asc apply` (issue 32 item 6), with a clock moved by hand: when a line is said, and what
/// it says.
struct PlainApplyProgressTests {
    let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")

    @Test func aLineWhenStepsBeginThenAtMostEveryIntervalAndOneAtTheEnd() {
        let lines = Locked<[String]>([])
        let clock = Locked(Date(timeIntervalSince1970: 0))
        let progress = PlainApplyProgress(write: { line in lines.withLock { $0.append(line) } }, now: { clock.withLock { $0 } })
        func step(at seconds: Double, done: Int) {
            clock.withLock { $0 = Date(timeIntervalSince1970: seconds) }
            progress.tell(ApplyProgress(clip: clip, done: done, left: 300 - done))
        }
        step(at: 0, done: 0)
        step(at: 5, done: 2)
        step(at: 9.9, done: 4)
        step(at: 10, done: 5)
        step(at: 15, done: 7)
        step(at: 20, done: 10)
        step(at: 600, done: 300)
        let prefix = "asc apply ABCDE12345.com.example.bikes.Clip: "
        #expect(
            lines.withLock { $0 } == [
                prefix + "0/300 steps done\n",
                prefix + "5/300 steps done, 30.0/min, about 10 min left\n",
                prefix + "10/300 steps done, 30.0/min, about 10 min left\n",
                prefix + "300/300 steps done in 10 min, 30.0/min\n",
            ])
    }

    @Test func aClipInSyncSaysNothing() {
        let lines = Locked<[String]>([])
        let progress = PlainApplyProgress(write: { line in lines.withLock { $0.append(line) } })
        progress.tell(ApplyProgress(clip: clip, done: 0, left: 0))
        #expect(lines.withLock { $0 }.isEmpty)
    }

    @Test func autoIsEachStepOnATerminalAndPlainElsewhere() {
        #expect(ProgressChoice.auto.said(standardErrorIsTerminal: true, json: false) == .everyStep)
        #expect(ProgressChoice.auto.said(standardErrorIsTerminal: false, json: false) == .plainLines)
        #expect(ProgressChoice.auto.said(standardErrorIsTerminal: false, json: true) == .nothing)
        #expect(ProgressChoice.plain.said(standardErrorIsTerminal: true, json: true) == .plainLines)
        #expect(ProgressChoice.none.said(standardErrorIsTerminal: true, json: false) == .nothing)
        #expect(!ProgressChoice.none.saysWaits(standardErrorIsTerminal: true, json: false))
    }
}
