#if canImport(Glibc)
    import Glibc
#endif
public import ByteScan
import FileFormats
import Locking

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `seconds` since 1970-01-01T00:00:00Z. The last one formatted is kept:
    /// every cacheable answer carries `Last-Modified`, nearly always the same second (formatting it
    /// per request was 2% of a resolve request's instructions under callgrind).
    public static func format(_ seconds: Int64) -> String {
        if let last = lastFormatted.withLock({ $0 }), last.seconds == seconds { return last.text }
        let text = formatAnew(seconds)
        lastFormatted.withLock { $0 = (seconds, text) }
        return text
    }

    private static let lastFormatted = Locked<(seconds: Int64, text: String)?>(nil)

    /// Writes the IMF-fixdate of `seconds` (the `Last-Modified` of answers written as bytes); the
    /// last one is kept as bytes, as `format` keeps its String.
    public static func write(_ seconds: Int64, to head: inout ByteCursor) {
        lastAppended.withLock { last in
            if last.seconds != seconds { last = (seconds, Array(formatAnew(seconds).utf8)) }
            head.write(last.bytes)
        }
    }

    private static let lastAppended = Locked<(seconds: Int64, bytes: [UInt8])>((Int64.min, []))

    /// Writes the IMF-fixdate of now, for the `Date` field every answer carries (RFC 9110 §6.6.1:
    /// an origin server with a clock sends it in every 2xx, 3xx and 4xx answer; caches use it to
    /// work out an answer's age, §5.6.7 of RFC 9111). Made once a second and kept as bytes.
    public static func writeNow(to head: inout ByteCursor) {
        let seconds = Int64(time(nil))
        current.withLock { current in
            if current.seconds != seconds { current = (seconds, Array(formatAnew(seconds).utf8)) }
            head.write(current.bytes)
        }
    }

    private static let current = Locked<(seconds: Int64, bytes: [UInt8])>((Int64.min, []))

    static func formatAnew(_ seconds: Int64) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - day * 86_400
        let (y, m, d) = civil(fromDays: day)
        let weekday = weekdays[Int(((day % 7) + 7) % 7)]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(y)
        let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(weekday), \(two(d)) \(months[Int(m) - 1]) \(paddedYear) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// Seconds since 1970 of an IMF-fixdate; nil for anything else (the obsolete forms of §5.6.7
    /// included: a condition that cannot be read is ignored, §13.1.3).
    public static func parse(_ text: String) -> Int64? {
        let parts = text.trimmingOWS().split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), weekdays.contains(String(parts[0].dropLast())),
            parts[1].count == 2, let d = Int64(parts[1]), let mi = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let y = Int64(parts[3]), parts[5] == "GMT"
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let h = Int64(clock[0]), let mm = Int64(clock[1]), let s = Int64(clock[2]), h < 24, mm < 60, s < 61,
            (1...31).contains(d)
        else { return nil }
        let day = dayNumber(y, Int64(mi + 1), d)
        // The day must exist (no 31 Feb), and the weekday must be its own.
        guard civil(fromDays: day) == (y, Int64(mi + 1), d), weekdays[Int(((day % 7) + 7) % 7)] == String(parts[0].dropLast()) else {
            return nil
        }
        return day * 86_400 + h * 3600 + mm * 60 + Swift.min(s, 59)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (`CivilTime`).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let date = CivilTime.date(days: days)
        return (date.year, date.month, date.day)
    }

    static func dayNumber(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 { CivilTime.days(year: year, month: month, day: day) }
}
