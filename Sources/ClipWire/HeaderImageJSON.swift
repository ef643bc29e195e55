public import ClipCore
public import StrictJSON

/// A stored header image as `POST /v1/images` answers it: its hash, the facts `HeaderImage` checked,
/// where it is served, and the warnings of the upload (such as a size other than Apple's).
public enum HeaderImageJSON {
    public static func uploaded(_ image: HeaderImage, warnings: [FieldError]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("sha256", .string(image.sha256)), ("mediaType", .string(image.mediaType.rawValue)),
            ("width", .integer(Int64(image.width))), ("height", .integer(Int64(image.height))),
            ("bytes", .integer(Int64(image.bytes.count))), ("url", .string("/v1/images/\(image.sha256)")),
        ]
        if !warnings.isEmpty { members.append((key: "warnings", value: .array(warnings.map(ProblemJSON.fieldError)))) }
        return .object(members)
    }

    /// The hash and warnings of an upload's answer, for a remote `clipctl`; nil when it is not one.
    public static func uploaded(json value: JSONValue) -> (sha256: String, warnings: [FieldError])? {
        guard let sha = value["sha256"]?.stringValue, sha.utf8.count == 64 else { return nil }
        return (sha, (value["warnings"]?.arrayValue ?? []).compactMap(ProblemJSON.fieldError(json:)))
    }
}
