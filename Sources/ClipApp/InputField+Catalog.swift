public import ClipCore
public import StrictJSON

// The fields the catalog's operations share (apps, clips, hosts, applinks, webhooks): each argument's name
// is written here once, with the rule that reads it (docs/application-layer.md#input-fields).

extension InputField {
    // MARK: What the route's path names

    /// The clip the route's path names (`{bundleId}`: an App ID, whose team must be the clip's, or a bundle
    /// ID, as `Registry.clip` reads it): the command's positional.
    public static func clip(
        _ key: any WritableKeyPath<Input, String> & Sendable, _ placeholder: String = "CLIP", help: String
    ) -> InputField {
        given(FieldFacts(name: "bundleId", place: .path, type: .text, placeholder: placeholder, help: help, required: true), key)
    }

    /// The app the route's path names by its bundle ID (`{bundleId}`): the command's positional, or its option
    /// (`--app BUNDLE`) when `option` names one.
    public static func app(
        _ key: any WritableKeyPath<Input, String> & Sendable, option: String? = nil, help: String
    ) -> InputField {
        given(
            FieldFacts(name: "bundleId", place: .path, type: .text, placeholder: "BUNDLE", help: help, required: true, option: option), key)
    }

    /// The app the route's path names, read as a bundle ID: a field error when it is not one.
    public static func app(_ key: any WritableKeyPath<Input, BundleID?> & Sendable, help: String) -> InputField {
        parsed(
            FieldFacts(name: "bundleId", place: .path, type: .text, placeholder: "BUNDLE", help: help, required: true), key,
            parse: { (text, field) throws(ValidationFailure) in try BundleID(text, field: field) }, format: \.rawValue)
    }

    /// The host the route's path names (`{host}`): the command's positional.
    public static func host(
        _ key: any WritableKeyPath<Input, String> & Sendable, _ placeholder: String = "HOST", help: String
    ) -> InputField {
        given(FieldFacts(name: "host", place: .path, type: .text, placeholder: placeholder, help: help, required: true), key)
    }

    /// The team the route's path names (`{team}`), the command's option `--team TEAMID`, as given.
    public static func team(_ key: any WritableKeyPath<Input, String> & Sendable, help: String) -> InputField {
        given(teamFacts(in: .path, help: help, required: true), key)
    }

    /// A team ID: the route's path's `{team}` (the command's option `--team TEAMID`) or the body's `team`; a
    /// field error when it is not one.
    public static func team(
        _ key: any WritableKeyPath<Input, TeamID?> & Sendable, in place: FieldPlace, help: String, required: Bool = true
    ) -> InputField {
        parsed(
            teamFacts(in: place, help: help, required: required), key,
            parse: { (text, field) throws(ValidationFailure) in try TeamID(text, field: field) }, format: \.rawValue)
    }

    /// The team a write acts for (`ArgumentReader.writingTeam`): the body's `team`, else a team token's own; the
    /// command needs it, as the database's owner has no team of its own (docs/rules.md#tenancy).
    public static func writingTeam(_ key: any WritableKeyPath<Input, TeamID?> & Sendable, help: String) -> InputField {
        let facts = teamFacts(in: .body, help: help, required: true)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.writingTeam() },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]?.rawValue) })
    }

    private static func teamFacts(in place: FieldPlace, help: String, required: Bool) -> FieldFacts {
        // The path's team is an option of the command (`domain share HOST --team T`), as the body's is.
        FieldFacts(name: "team", place: place, type: .text, placeholder: "TEAMID", help: help, required: required, option: "team")
    }

    // MARK: Body members

    /// An App Store ID in the body (`appStoreId`, the command's `--app-store-id N`): absent leaves it as it is,
    /// `null` clears it (`--no-app-store-id`), a malformed one is a field error.
    public static func appStoreID(_ key: any WritableKeyPath<Input, AppStoreID??> & Sendable) -> InputField {
        let facts = FieldFacts(
            name: "appStoreId", place: .body, type: .text, placeholder: "N", help: "numeric App Store ID (the banner's app-id)",
            option: "app-store-id", negation: FieldNegation("no-app-store-id", help: "clear the App Store ID"))
        return InputField(
            facts,
            read: { input, reader in
                let fields = reader.fields
                guard fields.has(facts.name) else { return }
                guard let text = fields.string(facts.name) else {
                    input[keyPath: key] = .some(nil)
                    return
                }
                input[keyPath: key] = fields.attempt { () throws(ValidationFailure) in try AppStoreID(text) }.map { .some($0) }
            },
            write: { input, arguments in
                guard let change = input[keyPath: key] else { return }
                arguments.setMember(facts.name, change.map { .string($0.rawValue) } ?? .null)
            })
    }

    /// JSON in the body, any value (`--components JSON|@FILE`); a field error when `required` and absent.
    public static func json(
        _ name: String, _ key: any WritableKeyPath<Input, JSONValue?> & Sendable, _ placeholder: String, help: String,
        required: Bool = false
    ) -> InputField {
        let facts = FieldFacts(name: name, place: .body, type: .json, placeholder: placeholder, help: help, required: required)
        return InputField(
            facts,
            read: { input, reader in
                input[keyPath: key] = reader.fields.raw(facts.name)
                if required, input[keyPath: key] == nil { reader.fields.fail(facts.name, "required", "is required") }
            },
            write: { input, arguments in input[keyPath: key].map { arguments.setMember(facts.name, $0) } })
    }

    /// A JSON object in the body; with `clearable`, JSON `null` too, which clears what is stored (an RFC 7396
    /// merge: absent is nil, `null` is `.some(.null)`). Anything else is a field error.
    public static func object(
        _ name: String, _ key: any WritableKeyPath<Input, JSONValue?> & Sendable, _ placeholder: String, help: String,
        option: String? = nil, clearable: Bool = false
    ) -> InputField {
        let facts = FieldFacts(name: name, place: .body, type: .json, placeholder: placeholder, help: help, option: option)
        return InputField(
            facts,
            read: { input, reader in
                let fields = reader.fields
                // JSONValue is nil-literal-expressible: an absent member is Optional.none, never JSON null (which clears).
                guard !clearable || fields.has(facts.name) else {
                    input[keyPath: key] = JSONValue?.none
                    return
                }
                input[keyPath: key] = fields.object(facts.name) ?? (clearable ? JSONValue?.some(.null) : JSONValue?.none)
            },
            write: { input, arguments in input[keyPath: key].map { arguments.setMember(facts.name, $0) } })
    }

    /// A whole number ≥ 0 in the body, below a million (an order among entries).
    public static func ordinal(
        _ name: String, _ key: any WritableKeyPath<Input, Int?> & Sendable, _ placeholder: String, help: String
    ) -> InputField {
        let facts = FieldFacts(name: name, place: .body, type: .integer(0...999_999), placeholder: placeholder, help: help)
        return InputField(
            facts,
            read: { input, reader in
                guard let n = reader.fields.number(facts.name) else { return }
                guard n >= 0, n == n.rounded(), n < 1_000_000 else {
                    return reader.fields.fail(facts.name, "range", "expected a whole number ≥ 0")
                }
                input[keyPath: key] = Int(n)
            },
            write: { input, arguments in input[keyPath: key].map { arguments.setMember(facts.name, .integer(Int64($0))) } })
    }

    // MARK: Query items and the command's own options

    /// A page's size as given (`limit`), which the operation reads after it found what it pages, refusing it
    /// then in its own words (`PageLimit.read`); the command asks for `commandDefault` items.
    public static func limit(
        _ key: any WritableKeyPath<Input, String?> & Sendable, help: String, commandDefault: Int
    ) -> InputField {
        optional(
            FieldFacts(
                name: "limit", place: .query, type: .integer(Int64(PageLimit.range.lowerBound)...Int64(PageLimit.range.upperBound)),
                placeholder: "N", help: help, defaultValue: String(commandDefault)), key)
    }

    /// A word or option the command reads itself (`FieldPlace.command`), never part of the input, declared among
    /// the input's fields where the grammar has it among theirs (`webcredentials add|remove HOST`).
    public static func command(_ facts: FieldFacts) -> InputField { InputField(facts, read: { _, _ in }, write: { _, _ in }) }

    // MARK: Reading

    /// A field read as its text, "" when not given (the command and the route always give a path's).
    static func given(_ facts: FieldFacts, _ key: any WritableKeyPath<Input, String> & Sendable) -> InputField {
        InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.string(facts.name) ?? "" },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]) })
    }
}

extension FieldFacts {
    /// `--host HOST`: the host a command keeps of a list it reads whole (`domain owners`, `domain list`), never sent.
    public static let hostFilter = FieldFacts(name: "host", place: .command, type: .text, placeholder: "HOST", help: "only this host")
}

/// The input of an operation that reads no argument (a list of everything the caller sees).
public struct NoInput: DeclaredInput {
    public init() {}
    public static let fields: [InputField<NoInput>] = []
}

extension ArgumentReader {
    /// The request's `If-Match` and `If-None-Match` (RFC 9110 §13.1), which a write evaluates against what it
    /// finds (`Arguments.replacePreconditions`, `existingPreconditions`, `existencePreconditions`).
    var preconditions: Arguments {
        var conditions = Arguments()
        (conditions.ifMatch, conditions.ifNoneMatch) = (arguments.ifMatch, arguments.ifNoneMatch)
        return conditions
    }
}
