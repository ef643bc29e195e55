public import FileFormats

/// A moment, to the second, in POSIX seconds (docs/rules.md#experiences-in-time). Stored and answered in
/// one fixed-width UTC form, `2027-06-01T00:00:00Z` (RFC 3339 §5.6), so that text order is time order.
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let seconds: Int64
    public init(seconds: Int64) { self.seconds = seconds }

    /// The years the fixed-width form can write.
    public static let years: ClosedRange<Int64> = 1970...9999
    public static let earliest = Instant(seconds: 0)
    public static let latest = Instant(seconds: CivilTime.days(year: 10_000, month: 1, day: 1) * CivilTime.secondsPerDay - 1)

    public static func < (a: Instant, b: Instant) -> Bool { a.seconds < b.seconds }

    /// `2027-06-01T00:00:00Z`.
    public var description: String { String(decoding: canonicalBytes, as: UTF8.self) }

    public var canonicalBytes: [UInt8] {
        let days = CivilTime.floorDivide(seconds, CivilTime.secondsPerDay)
        let (year, month, day) = CivilTime.date(days: days)
        let second = seconds - days * CivilTime.secondsPerDay
        var out: [UInt8] = []
        out.reserveCapacity(20)
        func digits(_ n: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8((n / divisor) % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        out.append(UInt8(ascii: "-"))
        digits(month, 2)
        out.append(UInt8(ascii: "-"))
        digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(second / 3600, 2)
        out.append(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(second % 60, 2)
        out.append(UInt8(ascii: "Z"))
        return out
    }

    /// The stored form back (exactly `canonicalBytes`' 20 bytes), or nil. Reads contiguous bytes in place (the read
    /// model's lookups call it: no allocation).
    public init?(canonical bytes: some Collection<UInt8>) {
        guard let seconds = bytes.withContiguousStorageIfAvailable(Self.canonicalSeconds) ?? Self.canonicalSeconds(Array(bytes))
        else { return nil }
        self.init(seconds: seconds)
    }

    static func canonicalSeconds(_ b: some RandomAccessCollection<UInt8>) -> Int64? {
        guard b.count == 20 else { return nil }
        let at = { (i: Int) in b[b.index(b.startIndex, offsetBy: i)] }
        guard at(4) == UInt8(ascii: "-"), at(7) == UInt8(ascii: "-"), at(10) == UInt8(ascii: "T"), at(13) == UInt8(ascii: ":"),
            at(16) == UInt8(ascii: ":"), at(19) == UInt8(ascii: "Z")
        else { return nil }
        return fields(at, year: 0, month: 5, day: 8, hour: 11, minute: 14, second: 17)
    }

    static func fields(_ b: [UInt8], year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int?) -> Int64? {
        fields({ b[$0] }, year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The local seconds of fixed positions of `b`, when they are digits of a real date and time.
    static func fields(_ b: (Int) -> UInt8, year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int?) -> Int64? {
        func number(_ at: Int, _ width: Int) -> Int64? {
            var n: Int64 = 0
            for i in at..<(at + width) {
                let digit = b(i)
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int64(digit - UInt8(ascii: "0"))
            }
            return n
        }
        guard let y = number(year, 4), let mo = number(month, 2), let d = number(day, 2), let h = number(hour, 2),
            let mi = number(minute, 2), years.contains(y), (1...12).contains(mo), d >= 1, d <= CivilTime.daysIn(month: mo, of: y),
            h < 24, mi < 60
        else { return nil }
        var s: Int64 = 0
        if let second {
            guard let given = number(second, 2), given < 60 else { return nil }
            s = given
        }
        return CivilTime.days(year: y, month: mo, day: d) * CivilTime.secondsPerDay + h * 3600 + mi * 60 + s
    }

    /// Reads a time as people give one: a date and time (`T` or a space between, seconds optional) followed by
    /// `Z`, an offset (`+02:00`) or a time-zone name of the tz database (`Europe/Paris`); a date alone is its
    /// midnight. `zone` gives a named zone's rules (nil: unknown). A local time the clocks skip, or pass
    /// twice, is refused with what to write instead. The errors name `field`.
    public static func parse(
        _ text: String, field: String, zone: (String) -> TimeZoneRules?
    ) throws(ValidationFailure) -> Instant {
        let example = "a time such as 2027-06-01T00:00 Europe/Paris, 2027-06-01T00:00+02:00 or 2027-06-01T00:00Z"
        func refuse(_ rule: String, _ message: String) -> ValidationFailure {
            ValidationFailure([FieldError(field: field, rule: rule, message: message)])
        }
        let b = Array(text.utf8)
        guard b.count >= 10, b.count <= 80, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else {
            throw refuse("instant.format", "must be \(example)")
        }
        var local: Int64?
        var rest = 10
        if b.count >= 16, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":") {
            let hasSeconds = b.count >= 19 && b[16] == UInt8(ascii: ":")
            local = fields(b, year: 0, month: 5, day: 8, hour: 11, minute: 14, second: hasSeconds ? 17 : nil)
            rest = hasSeconds ? 19 : 16
        } else {
            local = fields(b + Array("T00:00".utf8), year: 0, month: 5, day: 8, hour: b.count + 1, minute: b.count + 4, second: nil)
        }
        guard let local else { throw refuse("instant.format", "must be \(example) (a real date and time)") }
        let suffix = Array(b[rest...])
        let utc: Int64
        if suffix == Array("Z".utf8) {
            utc = local
        } else if suffix.count == 6, suffix[0] == UInt8(ascii: "+") || suffix[0] == UInt8(ascii: "-"), suffix[3] == UInt8(ascii: ":"),
            let offset = fields(Array("1970-01-01T".utf8) + suffix[1...], year: 0, month: 5, day: 8, hour: 11, minute: 14, second: nil),
            offset <= 14 * 3600
        {
            utc = suffix[0] == UInt8(ascii: "+") ? local - offset : local + offset
        } else if suffix.first == UInt8(ascii: " "), suffix.count > 1 {
            let name = String(decoding: suffix.dropFirst(), as: UTF8.self)
            guard let rules = zone(name) else {
                // A zone name is printable ASCII: anything else is named, so that a look-alike shows (docs/schedules.md).
                let shown = name.unicodeScalars.map { s in
                    s.value >= 0x21 && s.value < 0x7F ? String(s) : "[U+" + String(s.value, radix: 16, uppercase: true) + "]"
                }.joined()
                throw refuse("instant.zone", "names no time zone of the tz database: \(shown) (use one such as Europe/Paris, or UTC)")
            }
            let instants = rules.instants(forLocal: local)
            let wall = String(decoding: b[0..<rest], as: UTF8.self)
            switch instants.count {
            case 1: utc = instants[0]
            case 0:
                throw refuse("instant.gap", "\(wall) does not happen in \(name): the clocks skip it; give a later time or an offset")
            default:
                let offsets = instants.map { Self.offsetText(local - $0) }
                throw refuse(
                    "instant.ambiguous",
                    "\(wall) happens twice in \(name): say which with \(offsets.joined(separator: " or ")) instead of the zone name")
            }
        } else {
            throw refuse("instant.format", "must be \(example)")
        }
        guard utc >= earliest.seconds, utc <= latest.seconds else { throw refuse("instant.range", "must be between 1970 and 9999") }
        return Instant(seconds: utc)
    }

    /// `+02:00`, `-05:00`.
    static func offsetText(_ seconds: Int64) -> String {
        let magnitude = abs(seconds)
        let h = magnitude / 3600, m = magnitude / 60 % 60
        return "\(seconds < 0 ? "-" : "+")\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }
}

/// A time zone's rules by its tz database name (`Europe/Paris`), nil for a name it does not know.
public typealias ZoneLookup = @Sendable (String) -> TimeZoneRules?

public enum ZoneNames {
    /// Knows no zone: a time must give `Z` or an offset.
    public static let none: ZoneLookup = { _ in nil }
}

/// When an experience is served (docs/rules.md#experiences-in-time): from `liveFrom` (inclusive) until
/// `liveUntil` (exclusive), either open. Its state is computed from the clock wherever it is read.
public enum ExperienceState: String, Sendable, CaseIterable {
    /// Active, before its `liveFrom`.
    case scheduled
    case live
    /// Active, at or after its `liveUntil`.
    case ended
    /// Deactivated by hand, whatever its window.
    case deactivated

    public init(status: ExperienceStatus, liveFrom: Instant?, liveUntil: Instant?, at: Instant) {
        if status == .deactivated {
            self = .deactivated
        } else if let liveFrom, at < liveFrom {
            self = .scheduled
        } else if let liveUntil, at >= liveUntil {
            self = .ended
        } else {
            self = .live
        }
    }
}

extension AdvancedExperience {
    /// Its state at `at` (`ExperienceState`).
    public func state(at: Instant) -> ExperienceState {
        ExperienceState(status: status, liveFrom: liveFrom, liveUntil: liveUntil, at: at)
    }
}
