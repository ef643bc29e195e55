public import ClipCore
public import DoctorAndPublish
public import StrictJSON

/// What `clipctl --json` prints for the commands whose answer is not an object of the registry:
/// confirmations, backup, restore, publish, and a failure (on stderr).
public enum CommandJSON {
    /// `{"removed": true}` (an association, a default experience, applinks), or what was removed.
    public static func removed(_ what: JSONValue = true) -> JSONValue { .object(["removed": what]) }

    /// A removed experience: its id and URL.
    public static func removed(_ e: AdvancedExperience) -> JSONValue {
        .object(["removed": .integer(e.id), "url": .string(e.url.canonical)])
    }

    public static let saved: JSONValue = .object(["saved": true])

    public static func backup(_ path: String) -> JSONValue { .object(["backup": .string(path)]) }

    public static func restored(from path: String, migrated: [String], replacedCopy: String, tokensKept: Int) -> JSONValue {
        .object([
            "restored": .string(path), "migrated": .array(migrated.map(JSONValue.string)), "replaced": .string(replacedCopy),
            "apiTokensKept": .integer(Int64(tokensKept)),
        ])
    }

    public static func published(
        directory: String, hosts: Int, banners: Int, files: Int, indexSHA256: String, notes: [String],
        changes: StaticSite.Changes
    ) -> JSONValue {
        .object([
            "directory": .string(directory), "hosts": .integer(Int64(hosts)), "banners": .integer(Int64(banners)),
            "files": .integer(Int64(files)), "indexSHA256": .string(indexSHA256), "notes": .array(notes.map(JSONValue.string)),
            "added": .array(changes.added.map(JSONValue.string)), "changed": .array(changes.changed.map(JSONValue.string)),
            "removed": .array(changes.removed.map(JSONValue.string)), "unchanged": .integer(Int64(changes.unchanged.count)),
        ])
    }

    /// A failed command, on stderr: its message, exit code and field errors.
    public static func failure(message: String, exitCode: Int32, errors: [FieldError]) -> JSONValue {
        .object([
            "error": .string(message), "exitCode": .integer(Int64(exitCode)),
            "errors": errors.isEmpty ? nil : .array(errors.map(ProblemJSON.fieldError)),
        ])
    }
}
