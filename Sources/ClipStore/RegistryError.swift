public import ClipCore
import SQLiteDB

/// What can go wrong in a registry operation, in terms a caller maps to an exit code or an
/// HTTP status once (docs/rules.md#errors-and-statuses).
public enum RegistryError: Error, Equatable, CustomStringConvertible {
    /// Invalid input: every field error at once (HTTP 422, exit 65).
    case invalid([FieldError])
    /// Bad lines of an import, each with its line number; nothing was written (exit 65).
    case invalidImport([Interchange.LineError])
    /// No such object (HTTP 404, exit 1).
    case notFound(String)
    /// A duplicate or a clash with existing data (HTTP 409, exit 65).
    case conflict(String, existing: ExistingObject? = nil)
    /// The object changed since the version the caller read (HTTP 412).
    case versionMismatch(expected: Int, actual: Int)
    /// A selector matched another number of experiences than the caller expected (`--expect`) (HTTP 412).
    case selectionMismatch(expected: Int, actual: Int)
    /// The request is valid but its result cannot be produced (an AASA over 128 KB) (HTTP 422, exit 1).
    case unprocessable(String)
    /// The database is locked by another writer (HTTP 503 + Retry-After).
    case busy
    /// The work was stopped (a server's drain deadline) and its transaction rolled back (HTTP 503).
    case interrupted
    /// The database file cannot be opened, is not a database, or the disk failed (exit 1).
    case storage(String)
    /// A team's write on a host another team holds (HTTP 403, exit 1; HostOwnership).
    case hostRefused(HostOwnership.Refusal)
    /// A write to a database that can only be read (file or directory permissions, a read-only
    /// mount) (HTTP 503, exit 1): reads still work.
    case readOnly(String)

    /// What text that names no experience answers (docs/rules.md#identifiers): an id nothing can have is not
    /// found, text that is neither an id nor a URL is a field error.
    public init(_ unnamed: ExperienceReference.Unnamed) {
        switch unnamed {
        case .noSuchID(let text): self = .notFound("experience \(text)")
        case .malformed(let error): self = .invalid([error])
        }
    }

    /// What an import refused for its lines says: how many bad lines, "or more" when the list stops
    /// at `Registry.refusedErrorLines` (its last entry says why, not a line of its own).
    public static func importRefusal(_ lines: [Interchange.LineError]) -> String {
        let summary = lines.last.map { $0.errors.allSatisfy { $0.rule.hasPrefix("import.") } } ?? false
        let count = summary ? lines.count - 1 : lines.count
        return "nothing imported: \(count)\(summary ? " or more" : "") bad line\(count == 1 && !summary ? "" : "s")"
    }

    public var description: String {
        switch self {
        case .invalid(let errors): errors.map(\.description).joined(separator: "\n")
        case .invalidImport(let lines): lines.map(\.description).joined(separator: "\n")
        case .notFound(let what): "not found: \(what)"
        case .conflict(let message, _): message
        case .versionMismatch(let expected, let actual): "the resource is at version \(actual), not \(expected): read it again and retry"
        case .selectionMismatch(let expected, let actual):
            "the selector matches \(actual) experience\(actual == 1 ? "" : "s"), not the \(expected) expected: nothing was changed"
        case .unprocessable(let message): message
        case .busy: "the database is busy (locked by another writer); retry shortly"
        case .interrupted: "the server is stopping: this request was interrupted and nothing was written; retry"
        case .storage(let message): message
        case .hostRefused(let refusal): refusal.description
        case .readOnly(let message): message
        }
    }

    /// A refusal rather than bad input: a write on a host another team holds, directly or in a
    /// line of an import (HTTP 403, exit 1).
    public var isHostRefusal: Bool {
        switch self {
        case .hostRefused: true
        case .invalidImport(let lines): lines.contains { $0.errors.contains { $0.rule == HostOwnership.Refusal.rule } }
        default: false
        }
    }

    static func from(_ failure: ValidationFailure) -> RegistryError { .invalid(failure.errors) }

    /// Maps a SQLite error once, at the store boundary.
    static func from(_ error: SQLiteError, path: String) -> RegistryError {
        if error.isBusy { return .busy }
        if error.isInterrupted { return .interrupted }
        if error.isReadOnly { return .readOnly("the database \(path) is read-only (\(error.message)): reads work, writes are refused") }
        if error.isDiskFull { return .storage("the disk holding the database \(path) is full (\(error.message)): nothing was written") }
        if error.isNotADatabase { return .storage("\(path) is not a Clip Registry database (\(error.message))") }
        if error.isAccessProblem { return .storage("cannot open or write \(path): \(error.message)") }
        return .storage("database error: \(error.message)")
    }
}

/// The object a conflicting write would have duplicated, for the caller to find it (the API's `existing` link).
public enum ExistingObject: Equatable, Sendable {
    case experience(Int64)
    case webhook(Int64)
}
