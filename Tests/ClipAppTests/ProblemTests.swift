import ClipApp
import ClipCore
import ClipStore
import StrictJSON
import Testing

/// What each failure answers (`Problem`), what a command prints for one (`Printer.failure`), and a server that
/// cannot be reached (`RemoteServer`): docs/rules.md#errors-and-statuses, docs/application-layer.md#clipctl.
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
        #expect((Problem.of(RequestRefusal(status: 400, detail: "bad cursor")) as? Problem)?.status == 400)
        #expect(Problem.of(RegistryError.notFound("x")) is RegistryError)
        let failure = OperationFailure(status: 503, detail: "later", headers: [("Retry-After", "60")], exitCode: 69)
        let mapped = try #require(Problem.of(failure) as? Problem)
        #expect(mapped.status == 503 && mapped.headers.map(\.0) == ["Retry-After"])
    }

    @Test func aCommandsFailureIsOneLineOfJSONOrTheMessageAndItsFieldErrors() {
        final class Lines: @unchecked Sendable { var err = "" }
        let lines = Lines()
        let printer = Printer(out: { _ in Issue.record("nothing on standard output") }, err: { lines.err += $0 })
        let errors = [FieldError(field: "url", rule: "url.format", message: "give an absolute URL")]
        printer.failure("invalid input", exitCode: 65, errors: errors, json: false)
        #expect(lines.err == "clipctl: invalid input\n  url: give an absolute URL [url.format]\n")
        lines.err = ""
        printer.failure("invalid input", exitCode: 65, errors: errors, json: true)
        #expect(
            lines.err
                == #"{"error":"invalid input","exitCode":65,"errors":[{"field":"url","rule":"url.format","message":"give an absolute URL"}]}"#
                + "\n")
        lines.err = ""
        printer.failure("", exitCode: 1, errors: [], json: true)
        #expect(lines.err.isEmpty)
    }

    @Test func aServerURLMustBeHTTPAndAnUnreachableOneExits69() throws {
        for bad in ["ftp://registry.example", "registry.example", "http://"] {
            #expect(throws: CommandUsageError.self) { try RemoteServer(server: bad, token: nil) }
        }
        #expect(try RemoteServer(server: "HTTP://127.0.0.1:9/", token: nil).base == "http://127.0.0.1:9")
        let server = try RemoteServer(server: "http://127.0.0.1:9", token: nil, timeoutSeconds: 2)
        do {
            _ = try server.uploadImage([0x89, 0x50, 0x4E, 0x47], team: nil)
            Issue.record("a closed port answered")
        } catch let failure as OperationFailure {
            #expect(failure.exitCode == 69 && failure.message.hasPrefix("cannot reach the server at http://127.0.0.1:9"))
        }
    }
}
