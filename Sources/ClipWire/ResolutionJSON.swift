import ClipCore
import StrictJSON

/// The answer to "which experience does this URL get" is `Resolution.json(explain:)` (ClipCore:
/// the resolver's fast path writes the same bytes itself); a miss is a 404 problem carrying the
/// resolution's members, read back here into the answer local mode prints.
public enum ResolutionJSON {
    /// The resolution a 404 problem of `GET /v1/resolve` carries, or nil when it carries none
    /// (another 404: the route itself missing).
    public static func miss(problem: JSONValue) -> JSONValue? {
        guard let invocationURL = problem["invocationURL"] else { return nil }
        let detail = problem["detail"]?.stringValue ?? ""
        var members: [(key: String, value: JSONValue)] = [
            (key: "matched", value: .null), (key: "invocationURL", value: invocationURL),
            (key: "reason", value: .string(detail.hasPrefix("no match: ") ? String(detail.dropFirst(10)) : detail)),
        ]
        for key in ["notes", "explanation"] { if let v = problem[key] { members.append((key: key, value: v)) } }
        return .object(members)
    }
}
