/// One time zone's offsets from UTC, read from a TZif file (RFC 8536) as the tz database installs
/// them (`/usr/share/zoneinfo/Europe/Paris`): the transitions it lists, then its footer's POSIX TZ
/// rule for the instants after them (RFC 8536 §3.3; IEEE Std 1003.1, "TZ"). Pure: the caller reads
/// the file.
public struct TimeZoneRules: Sendable, Equatable {
    /// UTC instants (POSIX seconds) at which the offset changes, ascending, and the offset (seconds
    /// east of UTC) from each one on.
    let transitions: [Int64]
    let offsetAfter: [Int32]
    /// The offset before the first transition (RFC 8536 §3.2: time type 0).
    let initialOffset: Int32
    /// The footer's rule, for instants at or after the last transition (nil: the last offset stays).
    let rule: PosixRule?

    public enum Problem: Error, Equatable {
        case notTZif, truncated, unsupportedRule(String)
    }

    /// Parses a TZif file of version 2 or later (the 64-bit data block) or version 1.
    public init(tzif bytes: [UInt8]) throws(Problem) {
        guard bytes.count >= 44, bytes[0] == 0x54, bytes[1] == 0x5A, bytes[2] == 0x69, bytes[3] == 0x66 else { throw .notTZif }
        let version = bytes[4]
        var reader = Reader(bytes: bytes, at: 0)
        var header = try reader.header()
        var timeSize = 4
        if version >= 0x32 {
            // Skip the version 1 block: the 64-bit block follows with a header of its own.
            try reader.skip(header.dataLength(timeSize: 4))
            header = try reader.header()
            timeSize = 8
        }
        var transitions: [Int64] = []
        for _ in 0..<header.timeCount { transitions.append(try reader.signed(timeSize)) }
        var typeIndices: [Int] = []
        for _ in 0..<header.timeCount { typeIndices.append(Int(try reader.byte())) }
        var offsets: [Int32] = []
        for _ in 0..<header.typeCount {
            offsets.append(Int32(truncatingIfNeeded: try reader.signed(4)))
            try reader.skip(2)
        }
        guard !offsets.isEmpty, typeIndices.allSatisfy({ $0 < offsets.count }) else { throw .truncated }
        try reader.skip(header.charCount + header.leapCount * (timeSize + 4) + header.standardCount + header.utcCount)
        var rule: PosixRule?
        if version >= 0x32, reader.at < bytes.count, bytes[reader.at] == 0x0A {
            let start = reader.at + 1
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { throw .truncated }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            if !text.isEmpty {
                guard let parsed = PosixRule(text) else { throw .unsupportedRule(text) }
                rule = parsed
            }
        }
        self.transitions = transitions
        self.offsetAfter = typeIndices.map { offsets[$0] }
        self.initialOffset = offsets[0]
        self.rule = rule
    }

    /// The offset from UTC (seconds east) at the UTC instant `utc`.
    public func offset(at utc: Int64) -> Int32 {
        guard let last = transitions.last else { return rule?.offset(at: utc) ?? initialOffset }
        if utc >= last, let rule { return rule.offset(at: utc) }
        guard utc >= transitions[0] else { return initialOffset }
        // The last transition at or before `utc`.
        var low = 0, high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitions[mid] <= utc { low = mid } else { high = mid - 1 }
        }
        return offsetAfter[low]
    }

    /// The UTC instants whose local time is `local` (POSIX seconds read as local wall time): one, none when
    /// the clocks skip it (a spring-forward gap), two when they pass it twice (an autumn overlap), earlier first.
    public func instants(forLocal local: Int64) -> [Int64] {
        var candidates = Set(offsetAfter + [initialOffset])
        if let rule { candidates.formUnion([rule.standard, rule.daylight?.offset].compactMap { $0 }) }
        return Set(candidates.map { local - Int64($0) }.filter { Int64(offset(at: $0)) == local - $0 }).sorted()
    }

    struct Header {
        var utcCount = 0, standardCount = 0, leapCount = 0, timeCount = 0, typeCount = 0, charCount = 0
        func dataLength(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + standardCount + utcCount
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var at: Int
        mutating func skip(_ n: Int) throws(Problem) {
            guard n >= 0, at + n <= bytes.count else { throw .truncated }
            at += n
        }
        mutating func byte() throws(Problem) -> UInt8 {
            guard at < bytes.count else { throw .truncated }
            defer { at += 1 }
            return bytes[at]
        }
        /// A big-endian two's-complement integer of `size` bytes (RFC 8536 §2).
        mutating func signed(_ size: Int) throws(Problem) -> Int64 {
            guard at + size <= bytes.count else { throw .truncated }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
            at += size
            let shift = UInt64(64 - 8 * size)
            return Int64(bitPattern: value << shift) >> shift
        }
        mutating func header() throws(Problem) -> Header {
            guard at + 44 <= bytes.count, bytes[at] == 0x54, bytes[at + 1] == 0x5A else { throw .notTZif }
            at += 20
            var counts: [Int] = []
            for _ in 0..<6 {
                let n = try signed(4)
                guard n >= 0, n < 1 << 24 else { throw .truncated }
                counts.append(Int(n))
            }
            return Header(
                utcCount: counts[0], standardCount: counts[1], leapCount: counts[2], timeCount: counts[3], typeCount: counts[4],
                charCount: counts[5])
        }
    }
}

/// A POSIX TZ rule as a TZif footer gives it (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset and,
/// optionally, a daylight one with the local times it starts and ends each year (IEEE Std 1003.1,
/// 8.3 "TZ"; RFC 8536 §3.3 allows hours from -167 to 167 in the times).
struct PosixRule: Sendable, Equatable {
    /// Seconds east of UTC (POSIX writes them west: `CET-1` is one hour east).
    let standard: Int32
    let daylight: (offset: Int32, start: Day, startTime: Int64, end: Day, endTime: Int64)?

    enum Day: Sendable, Equatable {
        /// `Jn`: day 1–365, February 29 never counted.
        case julian(Int64)
        /// `n`: day 0–365, February 29 counted.
        case zeroBased(Int64)
        /// `Mm.w.d`: weekday d (0 Sunday) of week w (5: the last) of month m.
        case weekday(month: Int64, week: Int64, day: Int64)

        func days(in year: Int64) -> Int64 {
            let january1 = CivilTime.days(year: year, month: 1, day: 1)
            switch self {
            case .julian(let n): return january1 + n - 1 + (CivilTime.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n): return january1 + n
            case .weekday(let month, let week, let day):
                let first = CivilTime.days(year: year, month: month, day: 1)
                var d = first + (day - CivilTime.weekday(days: first) + 7) % 7 + (week - 1) * 7
                while d >= first + CivilTime.daysIn(month: month, of: year) { d -= 7 }
                return d
            }
        }
    }

    static func == (a: PosixRule, b: PosixRule) -> Bool {
        guard a.standard == b.standard else { return false }
        switch (a.daylight, b.daylight) {
        case (nil, nil): return true
        case (let x?, let y?):
            return x.offset == y.offset && x.start == y.start && x.startTime == y.startTime && x.end == y.end && x.endTime == y.endTime
        default: return false
        }
    }

    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let standardWest = scanner.offset() else { return nil }
        standard = Int32(-standardWest)
        guard !scanner.atEnd else {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standard + 3600
        if let west = scanner.offset() { daylightOffset = Int32(-west) }
        guard scanner.take(UInt8(ascii: ",")), let start = scanner.day() else { return nil }
        let startTime = scanner.take(UInt8(ascii: "/")) ? scanner.offset() : 7200
        guard let startTime, scanner.take(UInt8(ascii: ",")), let end = scanner.day() else { return nil }
        let endTime = scanner.take(UInt8(ascii: "/")) ? scanner.offset() : 7200
        guard let endTime, scanner.atEnd else { return nil }
        daylight = (daylightOffset, start, startTime, end, endTime)
    }

    func offset(at utc: Int64) -> Int32 {
        guard let daylight else { return standard }
        let year = CivilTime.date(days: CivilTime.floorDivide(utc, CivilTime.secondsPerDay)).year
        // The rule's times are local: the start in standard time, the end in daylight time. Near New Year the
        // instant may fall in the neighbouring year's rule, so check both.
        for y in [year - 1, year, year + 1] {
            let start = daylight.start.days(in: y) * CivilTime.secondsPerDay + daylight.startTime - Int64(standard)
            var end = daylight.end.days(in: y) * CivilTime.secondsPerDay + daylight.endTime - Int64(daylight.offset)
            // The southern hemisphere's daylight time spans New Year: it ends in the next year.
            if end <= start { end = daylight.end.days(in: y + 1) * CivilTime.secondsPerDay + daylight.endTime - Int64(daylight.offset) }
            if utc >= start && utc < end { return daylight.offset }
        }
        return standard
    }

    struct Scanner {
        let bytes: [UInt8]
        var at = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { at == bytes.count }
        mutating func take(_ b: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == b else { return false }
            at += 1
            return true
        }
        /// A zone abbreviation: three or more letters, or `<…>` quoting signs and digits.
        mutating func name() -> Bool {
            if take(UInt8(ascii: "<")) {
                guard let close = bytes[at...].firstIndex(of: UInt8(ascii: ">")), close - at >= 3 else { return false }
                at = close + 1
                return true
            }
            let start = at
            while at < bytes.count, (bytes[at] | 0x20) >= UInt8(ascii: "a"), (bytes[at] | 0x20) <= UInt8(ascii: "z") { at += 1 }
            return at - start >= 3
        }
        mutating func number() -> Int64? {
            let start = at
            var n: Int64 = 0
            while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39, at - start < 4 {
                n = n * 10 + Int64(bytes[at] - 0x30)
                at += 1
            }
            return at > start ? n : nil
        }
        /// `[+-]hh[:mm[:ss]]` as seconds.
        mutating func offset() -> Int64? {
            let negative = take(UInt8(ascii: "-"))
            if !negative { _ = take(UInt8(ascii: "+")) }
            guard let hours = number(), hours <= 167 else { return nil }
            var seconds = hours * 3600
            if take(UInt8(ascii: ":")) {
                guard let minutes = number(), minutes < 60 else { return nil }
                seconds += minutes * 60
                if take(UInt8(ascii: ":")) {
                    guard let s = number(), s < 60 else { return nil }
                    seconds += s
                }
            }
            return negative ? -seconds : seconds
        }
        mutating func day() -> Day? {
            if take(UInt8(ascii: "M")) {
                guard let m = number(), (1...12).contains(m), take(UInt8(ascii: ".")), let w = number(), (1...5).contains(w),
                    take(UInt8(ascii: ".")), let d = number(), (0...6).contains(d)
                else { return nil }
                return .weekday(month: m, week: w, day: d)
            }
            if take(UInt8(ascii: "J")) {
                guard let n = number(), (1...365).contains(n) else { return nil }
                return .julian(n)
            }
            guard let n = number(), (0...365).contains(n) else { return nil }
            return .zeroBased(n)
        }
    }
}
