import ClipApp
@testable import ClipAPI
import ClipCore
import ClipStore
import StrictJSON
import Testing

/// What each failure answers (`Problem`): its status, header fields and body (docs/rules.md#errors-and-statuses).
struct ProblemTests {
    @Test func eachErrorGetsItsStatusAndTheBodyKeepsItsMemberOrder() throws {
        let unknown = Problem(RegistryError.invalid([FieldError(field: "colour", rule: "unknown", message: "is not a field")]))
        #expect(unknown.status == 400)
        let invalid = Problem(RegistryError.invalid([FieldError(field: "title", rule: "required", message: "is required")]))
        #expect(invalid.status == 422)
        #expect(
            JSONWriter.string(invalid.json)
                == #"{"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request has invalid values","errors":[{"field":"title","rule":"required","message":"is required"}]}"#
        )
        let storage = Problem(RegistryError.storage("disk I/O error at /var/lib/clips.db"))
        #expect(storage.status == 500 && storage.detail == Problem.storageDetail && storage.logDetail != nil)
        #expect(!JSONWriter.string(storage.json).contains("/var/lib"))
        #expect((Problem.of(OperationError.malformed("bad cursor")) as? Problem)?.status == 400)
        #expect(Problem.of(RegistryError.notFound("x")) is RegistryError)
        let later = try #require(Problem.of(OperationError.unavailable("later", retryAfterSeconds: 60)) as? Problem)
        #expect(later.status == 503 && later.headers.map(\.0) == ["Retry-After"] && later.headers.map(\.1) == ["60"])
    }

    /// An operation's failure in the application's words, as the API answers it (what `/v1/asc` and the verification
    /// routes answered before the words moved out of the application layer).
    @Test func eachOperationErrorAnswersItsStatusAndRetryAfter() {
        let errors = [FieldError(field: "url", rule: "required", message: "is required")]
        let cases: [(OperationError, Int, [String])] = [
            (.notFound("no code"), 404, []), (.malformed("give ?url=", errors: errors), 400, []), (.invalid("nothing written"), 422, []),
            (.unsupportedMediaType("send image/png"), 415, []),
            (.tooManyAtOnce("2 running", retryAfterSeconds: 20), 429, ["Retry-After: 20"]),
            (.unavailable("no key"), 503, []), (.unavailable("rate limit", retryAfterSeconds: 12), 503, ["Retry-After: 12"]),
            (.alreadyRunning("an apply runs"), 409, []), (.unreachable("no answer"), 502, []), (.credentialsRefused("the key"), 502, []),
            (.failedElsewhere("ASC failed"), 502, []), (.notWritten("disk full"), 500, []),
        ]
        for (error, status, headers) in cases {
            let problem = Problem(error)
            #expect(problem.status == status && problem.detail == error.detail, "\(error)")
            #expect(problem.headers.map { "\($0.0): \($0.1)" } == headers, "\(error)")
            #expect(problem.errors == error.errors)
        }
    }
}
