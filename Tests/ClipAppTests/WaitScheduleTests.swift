import ClipApp
import Testing

/// `verify --wait`'s schedule on a manual clock: no test sleeps.
struct WaitScheduleTests {
    final class Clock {
        var now = 0.0
        var slept: [Double] = []
        func sleep(_ seconds: Double) {
            slept.append(seconds)
            now += seconds
        }
    }

    @Test func backsOffUntilSettled() {
        let clock = Clock()
        var tries = 0
        var told: [Double?] = []
        let result = WaitSchedule(timeout: 72 * 3600).run(
            now: { clock.now }, sleep: clock.sleep,
            attempt: { () -> Int in
                tries += 1
                return tries
            }, settled: { $0 == 9 }, tried: { _, next in told.append(next) })
        #expect(result.settled && result.last == 9)
        #expect(clock.slept == [60, 120, 300, 600, 1800, 3600, 3600, 3600])
        #expect(told == clock.slept.map { $0 })
    }

    @Test func givesUpWhenTheNextTryWouldPassTheTimeout() {
        let clock = Clock()
        var told: [Double?] = []
        let result = WaitSchedule(intervals: [60, 120, 300], timeout: 400).run(
            now: { clock.now }, sleep: clock.sleep, attempt: { clock.now }, settled: { _ in false },
            tried: { _, next in told.append(next) })
        #expect(!result.settled && result.last == 180)
        #expect(clock.slept == [60, 120] && told == [60, 120, nil])
    }

    @Test func durations() {
        #expect(WaitSchedule.duration("72h") == 259_200)
        #expect(WaitSchedule.duration("30m") == 1800 && WaitSchedule.duration("90") == 90 && WaitSchedule.duration("2d") == 172_800)
        // QA: 1e3s, 0x10s and an overflow were taken.
        for bad in [
            "", "h", "-1h", "0s", "1w", "１h", "inf", "nan", "1e3s", "0x10s", "1.s", ".5s", "1..2s", "9999999999999999999999d", "366d",
        ] {
            #expect(WaitSchedule.duration(bad) == nil, "\(bad)")
        }
        #expect(WaitSchedule.duration("1.5m") == 90 && WaitSchedule.duration("365d") == 31_536_000)
    }
}
