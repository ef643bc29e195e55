public import ClipCore

/// App Store Connect in time (docs/schedules.md#app-store-connect): App Store Connect has no schedule of its own, and
/// what it holds takes hours to reach devices, so the registry pushes ahead. An experience is in App Store Connect from
/// `leadSeconds` before its `liveFrom` until its `liveUntil`; a campaign's changes are pushed when it starts and ends
/// (the scheduler makes them in the registry then).
public enum AppStoreConnectSchedule {
    /// What App Store Connect should hold of `e` at `at`: `e`, or `e` deactivated (not there) before `liveFrom − lead`
    /// and from `liveUntil` on.
    public static func held(_ e: AdvancedExperience, at: Instant, leadSeconds: Int64) -> AdvancedExperience {
        guard isHeld(e, at: at, leadSeconds: leadSeconds) else {
            var off = e
            off.status = .deactivated
            return off
        }
        return e
    }

    public static func isHeld(_ e: AdvancedExperience, at: Instant, leadSeconds: Int64) -> Bool {
        if let from = e.liveFrom, at.seconds < from.seconds - leadSeconds { return false }
        if let until = e.liveUntil, at >= until { return false }
        return true
    }

    /// A lead as people write one: `48h`, `90m`, `30s`, `2d`, or seconds; nil when it is none.
    public static func leadSeconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let last = text.last else { return nil }
        let unit = units[last] ?? (last.isNumber ? 1 : nil)
        let digits = last.isNumber ? Substring(text) : text.dropLast()
        guard let unit, !digits.isEmpty, digits.count <= 7, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let n = Int64(digits)
        else { return nil }
        return n * unit
    }

    /// One moment App Store Connect's copy of a clip changes by the clock alone.
    public struct Push: Sendable, Equatable {
        public enum Kind: String, Sendable { case create, remove }
        public let kind: Kind
        public let dueAt: Instant
        public let experienceID: Int64
        public let url: String
        public init(kind: Kind, dueAt: Instant, experienceID: Int64, url: String) {
            self.kind = kind
            self.dueAt = dueAt
            self.experienceID = experienceID
            self.url = url
        }
    }

    /// The pushes of active experiences' windows in (`after`, `through`], soonest first: each `liveFrom − lead` (a
    /// create) and each `liveUntil` (a removal).
    public static func pushes(_ experiences: [AdvancedExperience], after: Instant, through: Instant, leadSeconds: Int64) -> [Push] {
        var pushes: [Push] = []
        for e in experiences where e.status == .active {
            if let from = e.liveFrom {
                let due = Instant(seconds: max(0, from.seconds - leadSeconds))
                if due > after && due <= through {
                    pushes.append(Push(kind: .create, dueAt: due, experienceID: e.id, url: e.url.canonical))
                }
            }
            if let until = e.liveUntil, until > after && until <= through {
                pushes.append(Push(kind: .remove, dueAt: until, experienceID: e.id, url: e.url.canonical))
            }
        }
        return pushes.sorted { ($0.dueAt, $0.experienceID) < ($1.dueAt, $1.experienceID) }
    }
}
