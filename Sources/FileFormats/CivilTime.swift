/// Dates of the proleptic Gregorian calendar as days and seconds from 1970-01-01T00:00:00 (POSIX
/// time: every day 86,400 seconds, no leap seconds; IEEE Std 1003.1, "Seconds Since the Epoch").
public enum CivilTime {
    public static let secondsPerDay: Int64 = 86_400

    /// Days from 1970-01-01 to `year`-`month`-`day` (month 1–12, day 1–31, not checked against the month).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        // The year counted from March, so that the leap day ends it; eras of 400 years (146,097 days) repeat.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month and day of a day counted from 1970-01-01.
    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    public static func daysIn(month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day of the week of a day counted from 1970-01-01 (a Thursday): 0 Sunday … 6 Saturday.
    public static func weekday(days: Int64) -> Int64 {
        let w = (days + 4) % 7
        return w < 0 ? w + 7 : w
    }

    /// Floor division, for seconds before 1970.
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
