import StrictJSON

/// The JSON forms of apps, clips and write results, shared by the HTTP API and `clipctl`
/// (local and remote alike), so that both print the same thing.
public enum CatalogJSON {
    public static func app(_ app: App) -> JSONValue {
        .object([
            "bundleId": .string(app.bundleID.rawValue), "team": .string(app.team.rawValue), "appId": .string(app.appID.rawValue),
            "appStoreId": app.appStoreID.map { .string($0.rawValue) } ?? .null, "name": .string(app.name), "version": .integer(Int64(app.version)),
        ])
    }

    public static func clip(_ clip: Clip, notes: [WriteNote]? = nil) -> JSONValue {
        .object([
            "clip": .string(clip.appID.rawValue), "bundleId": .string(clip.appID.bundleID.rawValue), "app": .string(clip.appBundleID.rawValue),
            "team": .string(clip.appID.team.rawValue), "hosts": .array(clip.hosts.map(JSONValue.string)),
            "notes": notes.map(Self.notes),
        ])
    }

    /// A write's notes, as their text.
    public static func notes(_ notes: [WriteNote]) -> JSONValue { .array(notes.map { .string($0.text) }) }

    /// `{field, rule, message}`, with `line` first for an error on a line of an import.
    public static func fieldError(_ e: FieldError) -> JSONValue {
        .object([
            "line": e.line.map { .integer(Int64($0)) }, "field": .string(e.field), "rule": .string(e.rule), "message": .string(e.message),
        ])
    }

    /// The error `fieldError(_:)` wrote, read back (a remote `clipctl` reads the server's).
    public static func fieldError(json value: JSONValue) -> FieldError? {
        guard let f = value["field"]?.stringValue, let r = value["rule"]?.stringValue, let m = value["message"]?.stringValue else { return nil }
        var line: Int?
        if case .integer(let n)? = value["line"] { line = Int(n) }
        return FieldError(field: f, rule: r, message: m, line: line)
    }

    /// An experience as a write answers it: the full form plus `notes` and `warnings` when any.
    public static func written(_ e: AdvancedExperience, notes: [WriteNote], warnings: [FieldError]) -> JSONValue {
        guard case .object(var members) = ExperienceJSON.full(e) else { return .null }
        if !notes.isEmpty { members.append((key: "notes", value: Self.notes(notes))) }
        if !warnings.isEmpty { members.append((key: "warnings", value: .array(warnings.map(fieldError)))) }
        return .object(members)
    }
}
