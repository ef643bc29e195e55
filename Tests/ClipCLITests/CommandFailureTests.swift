import ClipApp
@testable import ClipCLI
import ClipCore
import Testing

/// What a command ends with for each failure (its exit status and message: docs/application-layer.md#clipctl), and a
/// server that cannot be reached (`RemoteServer`).
struct CommandFailureTests {
    /// An operation's failure in the application's words, as clipctl reports it (what `clipctl asc` and `verify`
    /// exited with before the words moved out of the application layer).
    @Test func eachOperationErrorExitsWithItsCode() {
        let errors = [FieldError(field: "url", rule: "required", message: "is required")]
        let cases: [(OperationError, Int32, String)] = [
            (.notFound("no code"), 1, "no code"), (.malformed("give ?url=", errors: errors), 65, "give ?url="),
            (.invalid("nothing written"), 65, "nothing written"), (.invalid("refused", errors: errors), 65, "invalid input"),
            (.unsupportedMediaType("send image/png"), 65, "send image/png"),
            (.tooManyAtOnce("2 running", retryAfterSeconds: 20), 69, "2 running"), (.unavailable("no key"), 69, "no key"),
            (.alreadyRunning("an apply runs"), 69, "an apply runs"), (.unreachable("no answer"), 69, "no answer"),
            (.credentialsRefused("the key"), 64, "the key"), (.failedElsewhere("ASC failed"), 1, "ASC failed"),
            (.notWritten("disk full"), 1, "disk full"),
        ]
        for (error, code, message) in cases {
            let failure = CommandFailure(reporting: error)
            #expect(failure.code == code && failure.message == message && failure.fieldErrors == error.errors, "\(error)")
        }
        #expect(CommandFailure(reporting: CommandVerdict.negative()).code == 1)
        #expect(CommandFailure(reporting: CommandVerdict.pending("2 differ")).code == 2)
        #expect(CommandFailure(reporting: CommandVerdict.wouldBeRefused("1 step")).code == 65)
    }

    @Test func aServerURLMustBeHTTPAndAnUnreachableOneExits69() throws {
        for bad in ["ftp://registry.example", "registry.example", "http://"] {
            #expect(throws: CommandFailure.self) { try RemoteServer(server: bad, token: nil) }
        }
        #expect(try RemoteServer(server: "HTTP://127.0.0.1:9/", token: nil).base == "http://127.0.0.1:9")
        let server = try RemoteServer(server: "http://127.0.0.1:9", token: nil, timeoutSeconds: 2)
        do {
            _ = try server.uploadImage([0x89, 0x50, 0x4E, 0x47], team: nil)
            Issue.record("a closed port answered")
        } catch let failure as CommandFailure {
            #expect(failure.code == 69 && failure.message.hasPrefix("cannot reach the server at http://127.0.0.1:9"))
        }
    }
}
