import ClipApp
import ClipCore
import ClipStore
import ClipWire
import HTTP1
import StrictJSON

/// A failed request's answer as RFC 9457 problem details with the list of field errors: its status and header
/// fields for each error an operation throws, and its JSON (docs/rules.md#errors-and-statuses).
struct Problem: Error {
    let status: Int
    let detail: String
    var errors: [FieldError] = []
    var extra: [(key: String, value: JSONValue)] = []
    var headers: [(String, String)] = []
    /// What failed, for the server's log only (`ClipAPI.logged`): SQLite's messages and file paths
    /// describe the server, not the request, and are never sent (docs/rules.md#errors-and-statuses).
    var logDetail: String?

    static func badRequest(_ detail: String, errors: [FieldError] = []) -> Problem {
        Problem(status: 400, detail: detail, errors: errors)
    }
    static func notFound(_ detail: String) -> Problem { Problem(status: 404, detail: detail) }
    static func unauthorized(_ detail: String) -> Problem {
        Problem(status: 401, detail: detail, headers: [("WWW-Authenticate", "Bearer realm=\"clip-registry\"")])
    }
    static func forbidden(_ detail: String) -> Problem { Problem(status: 403, detail: detail) }

    /// RegistryError → status, once (docs/rules.md#errors-and-statuses).
    init(_ error: RegistryError) {
        switch error {
        case .invalid(let errors):
            // Unknown fields are a malformed request (400); otherwise invalid values (422).
            let unknown = errors.contains { $0.isUnknownRequestField }
            self.init(
                status: unknown ? 400 : 422,
                detail: unknown ? "the request has fields that are unknown or read-only" : "the request has invalid values", errors: errors)
        case .invalidImport(let lines):
            self.init(
                status: error.isHostRefusal ? 403 : 422, detail: RegistryError.importRefusal(lines),
                errors: lines.flatMap(\.fieldErrors))
        case .notFound(let what): self.init(status: 404, detail: "not found: \(what)")
        case .conflict(let message, let existing):
            let link: String? =
                switch existing {
                case .experience(let id)?: "/v1/experiences/\(id)"
                case .webhook(let id)?: "/v1/webhooks/\(id)"
                case nil: nil
                }
            self.init(status: 409, detail: message, extra: link.map { [(key: "existing", value: .string($0))] } ?? [])
        case .versionMismatch, .selectionMismatch: self.init(status: 412, detail: error.description)
        case .unprocessable(let message): self.init(status: 422, detail: message)
        case .busy, .interrupted: self.init(status: 503, detail: error.description, headers: [("Retry-After", "1")])
        case .storage(let message):
            self.init(status: 500, detail: Self.storageDetail)
            logDetail = message
        // Never names who holds the host: ClipAPI.run tells administrators (docs/rules.md#host-ownership).
        case .hostRefused(let refusal): self.init(status: 403, detail: refusal.teamMessage)
        // RFC 9110 §15.6.4: the server cannot handle the request at present; no Retry-After,
        // since the database stays read-only until an operator changes it.
        case .readOnly:
            // Its text names the file; `clipctl serve` logs that once, at start-up (ClipServer.serve).
            self.init(status: 503, detail: "the database is read-only: reads work, writes are refused")
        }
    }

    /// An operation's failure in the application's words → status and header fields (RFC 9110 §15; 429 and its
    /// `Retry-After`: RFC 6585 §4; 503's: RFC 9110 §10.2.3). Another server's failure is a bad gateway (§15.6.3).
    init(_ error: OperationError) {
        let status: Int
        var retryAfter: Int?
        switch error {
        case .notFound: status = 404
        case .malformed: status = 400
        case .invalid: status = 422
        case .unsupportedMediaType: status = 415
        case .tooManyAtOnce(_, let seconds):
            status = 429
            retryAfter = seconds
        case .unavailable(_, let seconds):
            status = 503
            retryAfter = seconds
        case .alreadyRunning: status = 409
        case .unreachable, .credentialsRefused, .failedElsewhere: status = 502
        case .notWritten: status = 500
        }
        self.init(status: status, detail: error.detail, errors: error.errors, headers: retryAfter.map { [("Retry-After", "\($0)")] } ?? [])
    }

    /// What a client learns of a storage failure.
    static let storageDetail = "internal error: the server could not read or write its database (its log says why)"

    init(
        status: Int, detail: String, errors: [FieldError] = [], extra: [(key: String, value: JSONValue)] = [],
        headers: [(String, String)] = []
    ) {
        self.status = status
        self.detail = detail
        self.errors = errors
        self.extra = extra
        self.headers = headers
    }

    /// The body: `type`, `title` (the status's reason phrase), `status`, `detail`, the field errors, then `extra`.
    var json: JSONValue {
        ProblemJSON.problem(status: status, title: HTTPStatus.reason(status), detail: detail, errors: errors, extra: extra)
    }

    /// An operation's failure as the problem it answers; the rest as it is (a `RegistryError` is mapped where
    /// every route's is, `Problem.init`).
    static func of(_ error: any Error) -> any Error {
        switch error {
        case let refusal as CallerRefusal:
            switch refusal {
            case .unauthenticated(let message): return Problem.unauthorized(message)
            case .forbidden(let message): return Problem.forbidden(message)
            }
        case let failed as PreconditionFailed: return Problem(status: 412, detail: failed.description)
        case let invalid as InvalidArguments: return Problem(status: 422, detail: invalid.detail, errors: invalid.errors)
        case let failure as OperationError: return Problem(failure)
        default: return error
        }
    }
}
