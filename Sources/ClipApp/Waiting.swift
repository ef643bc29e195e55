/// `--wait`: a command repeated on a schedule that backs off until its answer is settled or a
/// timeout passes (`verify --wait HOST --timeout 72h`: until Apple's CDN serves the registry's file,
/// which Apple says it fetches "within 24 hours"; apple-spec.md §4.2).
public struct WaitSchedule: Sendable, Equatable {
    /// Seconds before each next try; the last one repeats.
    public var intervals: [Double]
    public var timeout: Double

    /// Minutes at first, then hourly.
    public static let defaultIntervals: [Double] = [60, 120, 300, 600, 1800, 3600]

    public init(intervals: [Double] = WaitSchedule.defaultIntervals, timeout: Double) {
        self.intervals = intervals.isEmpty ? WaitSchedule.defaultIntervals : intervals
        self.timeout = timeout
    }

    /// The wait after try number `attempt` (0 first).
    public func interval(after attempt: Int) -> Double { intervals[min(attempt, intervals.count - 1)] }

    /// A duration such as `72h`, `30m`, `90s` or `2d` (a bare number is seconds); nil when malformed.
    /// The longest duration taken: a year.
    public static let maxDuration: Double = 365 * 86_400

    public static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text), unit = 1.0
        if let last = text.last, let u = units[last] {
            digits = digits.dropLast()
            unit = u
        }
        guard let n = decimal(digits), n > 0, n * unit <= maxDuration else { return nil }
        return n * unit
    }

    /// Decimal digits with at most one point, as people write seconds: not `1e3`, `0x10`, `0x1p0`, `+5`, `inf` or
    /// `nan`, which Double would read.
    public static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return Double(text)
    }

    /// Tries until `settled` holds (true) or the next try would start after the timeout (false).
    /// `now` and `sleep` are the clock (a manual one in tests); `tried` hears each answer and the wait that follows it.
    public func run<Answer>(
        now: () -> Double, sleep: (Double) -> Void, attempt: () throws -> Answer, settled: (Answer) -> Bool,
        tried: (Answer, _ nextIn: Double?) -> Void
    ) rethrows -> (settled: Bool, last: Answer) {
        let start = now()
        var n = 0
        while true {
            let answer = try attempt()
            if settled(answer) { return (true, answer) }
            let wait = interval(after: n)
            guard now() + wait - start <= timeout else {
                tried(answer, nil)
                return (false, answer)
            }
            tried(answer, wait)
            sleep(wait)
            n += 1
        }
    }
}
