public import ClipCore
public import StrictJSON

/// What went wrong in an operation, in the application's words (docs/rules.md#errors-and-statuses), beside the
/// store's `RegistryError`, the caller's `CallerRefusal`, `PreconditionFailed` and `InvalidArguments`. Each edge
/// says it its own way: the HTTP API as an RFC 9457 problem with its status and header fields (ClipAPI's
/// `Problem`), clipctl as an exit status and a message (ClipCLI's `Context.commandFailure`).
public enum OperationError: Error, Equatable, CustomStringConvertible {
    /// What the request names is not there: no code for the URL, no header image of that hash, no database.
    case notFound(String)
    /// The request cannot be read as it is: an item it needs is missing, a cursor this server did not give.
    case malformed(String, errors: [FieldError] = [])
    /// What the request asks is refused: its values (their field errors, if any), or a result that cannot be made
    /// from them (no code for that URL, nothing written).
    case invalid(String, errors: [FieldError] = [])
    /// The body is not of a media type the operation takes, or not of the one its `Content-Type` says.
    case unsupportedMediaType(String)
    /// As many of these run as may at once (verifications): ask again after `retryAfterSeconds`.
    case tooManyAtOnce(String, retryAfterSeconds: Int)
    /// What the operation needs is not available now (App Store Connect's rate limit, a server started without its
    /// key): ask again after `retryAfterSeconds`, or, when nil, once an operator has changed it.
    case unavailable(String, retryAfterSeconds: Int? = nil)
    /// The same work is already running on this database (an App Store Connect apply).
    case alreadyRunning(String)
    /// Another server did not answer: App Store Connect unreachable, or too slow.
    case unreachable(String)
    /// Another server refused this process's own credentials (App Store Connect, the key): a setting to fix.
    case credentialsRefused(String)
    /// Another server answered with a failure of its own (App Store Connect).
    case failedElsewhere(String)
    /// A file or a directory could not be written.
    case notWritten(String)

    public var detail: String {
        switch self {
        case .notFound(let detail), .malformed(let detail, _), .invalid(let detail, _), .unsupportedMediaType(let detail),
            .tooManyAtOnce(let detail, _), .unavailable(let detail, _), .alreadyRunning(let detail), .unreachable(let detail),
            .credentialsRefused(let detail), .failedElsewhere(let detail), .notWritten(let detail):
            detail
        }
    }

    /// The field errors that say what in the request is wrong.
    public var errors: [FieldError] {
        switch self {
        case .malformed(_, let errors), .invalid(_, let errors): errors
        default: []
        }
    }

    public var description: String { detail }
}

/// An operation that failed after doing part of its work (an apply stopped halfway): `cause` answers as it would
/// alone, with what was done: a command prints `partial` as its output first, the API adds its members to the problem.
public struct PartialFailure: Error {
    public let cause: any Error
    /// The operation's output as far as it went, as its JSON.
    public let partial: JSONValue
    public init(cause: any Error, partial: JSONValue) {
        self.cause = cause
        self.partial = partial
    }
}

/// A command line the command cannot run as written: contradicting options, a missing required one (clipctl's
/// usage error).
public struct CommandUsageError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How a command ends that printed its answer and is not a success; it says `message` on standard error as every
/// failure does (nothing when it is empty), and clipctl gives each its exit status (docs/application-layer.md#clipctl).
public enum CommandVerdict: Error, Equatable {
    /// The answer is no: no match, a host not ok, errors found (as grep's "no line selected").
    case negative(String = "")
    /// Changes are pending, left as they are (`--detailed-exitcode`, as `terraform plan`'s).
    case pending(String = "")
    /// What the command reviewed would be refused if it were applied, as the apply itself is.
    case wouldBeRefused(String)
}
