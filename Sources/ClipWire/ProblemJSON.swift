public import ClipCore
public import StrictJSON

/// Problem details (RFC 9457) as the API answers a failed request, with the list of field
/// errors (`errors`, each `{field, rule, message}`, `line` first for a line of an import); the
/// same field-error form is used by `clipctl --json` and by write warnings.
public enum ProblemJSON {
    /// `{field, rule, message}`, with `line` first for an error on a line of an import.
    public static func fieldError(_ e: FieldError) -> JSONValue {
        .object([
            "line": e.line.map { .integer(Int64($0)) }, "field": .string(e.field), "rule": .string(e.rule), "message": .string(e.message),
        ])
    }

    /// The error `fieldError(_:)` wrote, read back (a remote `clipctl` reads the server's).
    public static func fieldError(json value: JSONValue) -> FieldError? {
        guard let f = value["field"]?.stringValue, let r = value["rule"]?.stringValue, let m = value["message"]?.stringValue else {
            return nil
        }
        var line: Int?
        if case .integer(let n)? = value["line"] { line = Int(n) }
        return FieldError(field: f, rule: r, message: m, line: line)
    }

    /// The body of a problem answer: `type` (always about:blank), `title` (the status's reason
    /// phrase), `status`, `detail`, the field errors when any, then `extra` members.
    public static func problem(
        status: Int, title: String, detail: String, errors: [FieldError],
        extra: [(key: String, value: JSONValue)]
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            (key: "type", value: "about:blank"),
            (key: "title", value: .string(title)),
            (key: "status", value: .integer(Int64(status))),
            (key: "detail", value: .string(detail)),
        ]
        if !errors.isEmpty { members.append((key: "errors", value: .array(errors.map(fieldError)))) }
        return .object(members + extra)
    }

    /// A problem answer read back: its detail (nil when the body is not a problem) and field errors.
    public static func problem(json value: JSONValue) -> (detail: String?, errors: [FieldError]) {
        (value["detail"]?.stringValue, value["errors"]?.arrayValue?.compactMap(fieldError(json:)) ?? [])
    }
}
