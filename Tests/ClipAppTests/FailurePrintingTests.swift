import ClipApp
import ClipCore
import Testing

/// What a command prints for a failure (`Printer.failure`): docs/application-layer.md#clipctl.
struct FailurePrintingTests {
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
}
