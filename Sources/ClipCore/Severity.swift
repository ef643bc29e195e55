/// How much a finding matters, for the doctor and the AASA lint alike: an error breaks
/// something (a write that would cause one is refused; `clipctl doctor` exits 1), a warning
/// probably will, info is worth knowing. Ordered most severe first.
public enum Severity: String, Sendable, Comparable {
    case error, warning, info
    var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}
