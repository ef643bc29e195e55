public import AppleFormats
public import ClipCore
public import DoctorAndPublish
public import StrictJSON

/// What the AASA evaluator decided for one URL and app (`GET /v1/aasa/check`, `clipctl aasa
/// check --json`), and the lint's diagnostics (`clipctl aasa lint --json`).
public enum AASAJSON {
    /// `host` is the host whose AASA was read, when it came from the registry.
    public static func evaluation(url: String, app: String, host: String?, _ result: AASAEvaluator.Result) -> JSONValue {
        .object([
            "url": .string(url), "app": .string(app), "host": host.map(JSONValue.string),
            "decision": .string(result.decision.rawValue), "rule": .string(result.rule),
        ])
    }

    public static func diagnostics(_ findings: [AASALinter.Diagnostic]) -> JSONValue {
        .array(
            findings.map { d in
                .object([
                    "code": .string(d.code), "severity": .string(d.severity.rawValue), "path": .string(d.path),
                    "message": .string(d.message),
                ])
            })
    }
}

/// `clipctl doctor --json`: the counts and every finding.
public enum DoctorJSON {
    public static func finding(_ f: Doctor.Finding) -> JSONValue {
        .object([
            "severity": .string(f.severity.rawValue), "code": .string(f.code), "subject": .string(f.subject),
            "message": .string(f.message), "fix": f.fix.map(JSONValue.string),
        ])
    }

    /// The findings reported; with acknowledgements, each with the findings it quiets (`acknowledged`).
    /// `acknowledgedNotShown`: how many findings acknowledgements keep out of `findings` (plain `doctor --json`).
    public static func report(
        _ findings: [Doctor.Finding], acknowledged: [(DoctorAcknowledgement, [Doctor.Finding])]? = nil, acknowledgedNotShown: Int? = nil
    ) -> JSONValue {
        .object([
            "errors": .integer(Int64(findings.filter { $0.severity == .error }.count)),
            "warnings": .integer(Int64(findings.filter { $0.severity == .warning }.count)),
            "findings": .array(findings.map(finding)),
            "acknowledgedNotShown": acknowledgedNotShown.map { .integer(Int64($0)) },
            "acknowledged": acknowledged.map { list in
                .array(
                    list.map { a, quiet in
                        .object([("acknowledgement", a.json), ("quieted", .array(quiet.map(finding)))])
                    })
            },
        ])
    }
}
