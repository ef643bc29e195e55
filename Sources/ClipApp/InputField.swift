public import ClipCore
import StrictJSON

/// Where an input field travels (docs/application-layer.md#input-fields): a request's path, its query
/// or its JSON body; a command's positional or option either way.
public enum FieldPlace: Sendable, Equatable {
    /// A `{name}` of the route's path; the command's positional.
    case path
    /// A query item; the command's option, or its positional (`positional`).
    case query
    /// A member of the JSON body; the command's option.
    case body
    /// Read by the command alone, never sent: how it prints (`--detailed`), or how this process runs the
    /// operation on a database (`verify --cdn-url`), which a server decides for itself.
    case command
}

/// What a field's text is, as every edge reads it: the API's parameter, the command's option and the
/// console's form control.
public enum FieldType: Sendable, Equatable {
    case text
    /// Decimal digits alone, in the range (docs/rules.md#field-errors).
    case integer(ClosedRange<Int64>)
    /// One of these spellings.
    case choice([String])
    /// Given or not: a command's `--name`, a query item `name=true`, a body's `true`.
    case flag
    /// An experience's id or its registered URL (`ExperienceReference`), read by the operation.
    case experience
    /// An experience's id; a command given a registered URL looks it up first (`ExperienceCommands.id`).
    case experienceID
    /// JSON, inline or as `@FILE` on a command line.
    case json
    /// A moment, with a time zone (`2027-06-01T00:00 Europe/Paris`) or in UTC (`Instant.parse`).
    case instant
    /// A file's bytes: a command reads the file it names (`-`: standard input), its own step sends them
    /// (`Arguments.attachment`, or uploaded first to a server); a form uploads one.
    case file
}

/// The facts of one input field, declared once: what a route's parameters, a command's grammar and
/// help, and a form's control and checks are made from (docs/application-layer.md#input-fields).
public struct FieldFacts: Sendable, Equatable {
    /// The argument's name: the path parameter, query item, body member and `--option` alike.
    public let name: String
    public let place: FieldPlace
    public let type: FieldType
    /// The value's placeholder in help (`ID|URL`, `N`); "" for a flag.
    public let placeholder: String
    public let help: String
    /// The value when the field is not given, as help shows it; nil when none.
    public let defaultValue: String?
    public let required: Bool
    /// Given any number of times (a repeated query item, a repeatable option).
    public let repeatable: Bool
    /// A command takes it as a positional argument (always, for a path parameter).
    public let positional: Bool
    /// The option's one-letter spelling (`-o`).
    public let short: Character?
    /// The command's option, `--option`: the name, unless the command spells it otherwise (`--app-store-id` for the
    /// body's `appStoreId`; `--app` for the path's `{bundleId}`, which is then an option rather than a positional).
    public let option: String
    /// The command's option that negates the field, and its help: a body member's `null` (`--no-app-store-id`
    /// clears it), a flag's `false`; given with the field's own option, the command is refused (exit 64).
    public let negation: FieldNegation?
    /// The longest text the operation takes, in characters (`CardText.titleMax`); nil: no bound of its own.
    public let maxLength: Int?
    /// The route's alone, never the command's: a list's `cursor` and `limit`, which a command that reads every
    /// page sets itself (`Binding.everyPage`).
    public let routeOnly: Bool
    /// A command line's value is upper-cased before it is sent, as the command always took it (`list --status
    /// active`); the route takes the spelling alone.
    public let upperCased: Bool

    public init(
        name: String, place: FieldPlace, type: FieldType, placeholder: String, help: String, defaultValue: String? = nil,
        required: Bool = false, repeatable: Bool = false, positional: Bool = false, short: Character? = nil, option: String? = nil,
        negation: FieldNegation? = nil, maxLength: Int? = nil, routeOnly: Bool = false, upperCased: Bool = false
    ) {
        self.name = name
        self.place = place
        self.type = type
        self.placeholder = placeholder
        self.help = help
        self.defaultValue = defaultValue
        self.required = required
        self.repeatable = repeatable
        self.positional = positional || (place == .path && option == nil)
        self.short = short
        self.option = option ?? name
        self.negation = negation
        self.maxLength = maxLength
        self.routeOnly = routeOnly
        self.upperCased = upperCased
    }

    /// The help a command shows: the field's, with its default, or that an option is required.
    public var helpWithDefault: String {
        if let defaultValue { return "\(help) (default \(defaultValue))" }
        return required && !positional ? "\(help) (required)" : help
    }
}

/// A command's option that negates a field (`FieldFacts.negation`): `--no-app-store-id`, "clear the App Store ID".
public struct FieldNegation: Sendable, Equatable {
    public let option: String
    public let help: String
    public init(_ option: String, help: String) {
        self.option = option
        self.help = help
    }
}

/// One field of an operation's input (`DeclaredInput`): its facts, and how it is read into the input
/// and written back from it, from one declaration.
public struct InputField<Input>: Sendable {
    public let facts: FieldFacts
    let read: @Sendable (inout Input, inout ArgumentReader) -> Void
    let write: @Sendable (Input, inout Arguments) -> Void

    public init(
        _ facts: FieldFacts, read: @escaping @Sendable (inout Input, inout ArgumentReader) -> Void,
        write: @escaping @Sendable (Input, inout Arguments) -> Void
    ) {
        self.facts = facts
        self.read = read
        self.write = write
    }
}

/// An input whose fields are declared once (`fields`): reading it with every field error at once and
/// writing it back as arguments are derived from them (docs/application-layer.md#input-fields).
public protocol DeclaredInput: OperationInput {
    init()
    static var fields: [InputField<Self>] { get }
    /// Rules between fields, after each was read (`reader.fail` keeps their errors with the others).
    mutating func check(_ reader: inout ArgumentReader)
}

extension DeclaredInput {
    public init(reading reader: inout ArgumentReader) {
        self.init()
        for field in Self.fields where field.facts.place != .command { field.read(&self, &reader) }
        check(&reader)
    }

    public var arguments: Arguments {
        var arguments = Arguments()
        for field in Self.fields where field.facts.place != .command { field.write(self, &arguments) }
        return arguments
    }

    public mutating func check(_ reader: inout ArgumentReader) {}

    public static var fieldFacts: [FieldFacts]? { fields.map(\.facts) }
}

extension OperationInput {
    public static var fieldFacts: [FieldFacts]? { nil }
}

// MARK: Fields by type

extension InputField {
    /// A text field; "" when not given, a field error when `required`.
    public static func text(
        _ name: String, _ key: any WritableKeyPath<Input, String> & Sendable, in place: FieldPlace = .query, _ placeholder: String,
        help: String, required: Bool = false, positional: Bool = false
    ) -> InputField {
        let facts = FieldFacts(
            name: name, place: place, type: .text, placeholder: placeholder, help: help, required: required, positional: positional)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.text(facts) ?? "" },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]) })
    }

    /// An optional text field: nil when not given.
    public static func text(
        _ name: String, _ key: any WritableKeyPath<Input, String?> & Sendable, in place: FieldPlace = .query, _ placeholder: String,
        help: String, positional: Bool = false
    ) -> InputField {
        optional(FieldFacts(name: name, place: place, type: .text, placeholder: placeholder, help: help, positional: positional), key)
    }

    /// A field's text as given, whatever its facts say it is (a page size, a flag's `true`, an enumeration's spelling),
    /// nil when not given: the operation reads it by a rule of its own.
    public static func optional(_ facts: FieldFacts, _ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.text(facts) },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]) })
    }

    /// A value parsed from its text by a rule of the model (a team ID): nil when not given or refused,
    /// the rule's errors kept.
    public static func value<Value: Sendable>(
        _ name: String, _ key: any WritableKeyPath<Input, Value?> & Sendable, in place: FieldPlace = .query, _ placeholder: String,
        help: String, required: Bool = false, parse: @escaping @Sendable (String, String) throws(ValidationFailure) -> Value,
        format: @escaping @Sendable (Value) -> String
    ) -> InputField {
        let facts = FieldFacts(name: name, place: place, type: .text, placeholder: placeholder, help: help, required: required)
        return parsed(facts, key, parse: parse, format: format)
    }

    /// A field read by a rule of the model: nil when not given or refused, the rule's errors kept.
    static func parsed<Value: Sendable>(
        _ facts: FieldFacts, _ key: any WritableKeyPath<Input, Value?> & Sendable,
        parse: @escaping @Sendable (String, String) throws(ValidationFailure) -> Value, format: @escaping @Sendable (Value) -> String
    ) -> InputField {
        InputField(
            facts,
            read: { input, reader in
                guard let text = reader.text(facts) else { return }
                // A body member's errors stay in the body's order (`FieldReader`), the others in the reader's.
                let parsed = { () throws(ValidationFailure) in try parse(text, facts.name) }
                input[keyPath: key] = facts.place == .body ? reader.fields.attempt(parsed) : reader.attempt(parsed)
            },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key].map(format)) })
    }

    /// A whole number in `range`, `defaultValue` when not given.
    public static func integer(
        _ name: String, _ key: any WritableKeyPath<Input, Int64> & Sendable, in range: ClosedRange<Int64>, default defaultValue: Int64,
        _ placeholder: String, help: String, place: FieldPlace = .query
    ) -> InputField {
        let facts = FieldFacts(
            name: name, place: place, type: .integer(range), placeholder: placeholder, help: help, defaultValue: String(defaultValue))
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.integer(facts) ?? defaultValue },
            write: { input, arguments in arguments.set(facts, integer: input[keyPath: key]) })
    }

    /// A whole number in the range `facts` give, nil when not given (a bad one is a field error, as every number is).
    public static func integer(_ facts: FieldFacts, _ key: any WritableKeyPath<Input, Int64?> & Sendable) -> InputField {
        InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.integer(facts) },
            write: { input, arguments in input[keyPath: key].map { arguments.set(facts, integer: $0) } })
    }

    /// A page's size (`limit`, `PageLimit`): 1 to 1000, `standard` when not given (docs/http-api.md#lists).
    public static func page(_ key: any WritableKeyPath<Input, Int> & Sendable, of what: String = "items", standard: Int = 100)
        -> InputField
    {
        let range = Int64(PageLimit.range.lowerBound)...Int64(PageLimit.range.upperBound)
        let facts = FieldFacts(
            name: "limit", place: .query, type: .integer(range), placeholder: "N",
            help: "at most this many \(what), \(range.lowerBound) to \(range.upperBound)", defaultValue: String(standard))
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.pageLimit(fallback: standard) },
            write: { input, arguments in arguments.set(facts, integer: Int64(input[keyPath: key])) })
    }

    /// A flag: false when not given.
    public static func flag(
        _ name: String, _ key: any WritableKeyPath<Input, Bool> & Sendable, in place: FieldPlace = .query, help: String,
        option: String? = nil
    ) -> InputField {
        let facts = FieldFacts(name: name, place: place, type: .flag, placeholder: "", help: help, option: option)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.flag(facts) },
            write: { input, arguments in arguments.set(facts, flag: input[keyPath: key]) })
    }

    /// The experience a command names by id or registered URL (`ExperienceReference`), required; the
    /// operation reads it with `Registry.experience(_:)`, so that one rule says what names an experience.
    public static func experience(
        _ key: any WritableKeyPath<Input, String> & Sendable, _ name: String = "id", help: String = "experience id or registered URL"
    ) -> InputField {
        let facts = FieldFacts(name: name, place: .path, type: .experience, placeholder: "ID|URL", help: help, required: true)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.text(facts) ?? "" },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]) })
    }
}

// MARK: Reading and writing a field's text where it travels

extension Arguments {
    /// A command line's value of a field, where the field travels: a body member of the field's type,
    /// or a named argument.
    mutating func add(_ facts: FieldFacts, _ text: String, _ line: CommandLine) throws {
        var text = facts.upperCased ? text.uppercased() : text
        if facts.type == .experienceID { text = try ExperienceCommands.id(text, line) }
        guard facts.place == .body else { return append(facts.name, text) }
        switch facts.type {
        case .integer: setMember(facts.name, Int64(text).map(JSONValue.integer) ?? .string(text))
        case .flag: setMember(facts.name, true)
        case .json: setMember(facts.name, try line.json(facts.option) ?? .null)
        case .text, .choice, .experience, .experienceID, .instant: setMember(facts.name, .string(text))
        // The command's own step reads and sends a file.
        case .file: break
        }
    }

    /// The value a command line gives an option of its input (`declared`: a field of a `DeclaredInput`),
    /// where the field travels; its negation instead sets the member's `false` or `null`, and given with
    /// the field's own option is refused (exit 64), as a required option missing is.
    mutating func add(option facts: FieldFacts, of line: CommandLine, declared: Bool) throws {
        let words = line.parsed
        let given = words.value(facts.option) != nil || words.flag(facts.option)
        if let negation = facts.negation, words.flag(negation.option) {
            guard !given else { throw CommandUsageError("--\(facts.option) and --\(negation.option) contradict each other") }
            return setMember(facts.name, facts.type == .flag ? false : .null)
        }
        if declared, facts.required, !given { throw CommandUsageError("missing --\(facts.option)") }
        guard facts.type != .flag else {
            // A grammar declared by hand sends no flag; its command input does.
            if declared, words.flag(facts.option) { try add(facts, "true", line) }
            return
        }
        let values = facts.repeatable && declared ? words.all(facts.option) : words.value(facts.option).map { [$0] } ?? []
        for value in values { try add(facts, value, line) }
    }
}

extension ArgumentReader {
    /// A field's text: a path parameter or query item, or a body member (a string); a missing required one is a field error.
    mutating func text(_ facts: FieldFacts) -> String? {
        guard facts.place == .body else { return string(facts.name, required: facts.required) }
        return fields.string(facts.name, required: facts.required)
    }

    mutating func integer(_ facts: FieldFacts) -> Int64? {
        guard case .integer(let range) = facts.type else { return nil }
        guard facts.place == .body else { return integer(facts.name, in: range) }
        guard let n = fields.number(facts.name) else { return nil }
        guard let whole = Int64(exactly: n), range.contains(whole) else {
            fields.fail(facts.name, "range", "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return whole
    }

    mutating func flag(_ facts: FieldFacts) -> Bool {
        guard facts.place == .body else { return arguments[facts.name] != nil }
        return fields.bool(facts.name) ?? false
    }
}

extension Arguments {
    /// Writes a field's text where it travels: a body member, or a named argument; nothing for nil.
    mutating func set(_ facts: FieldFacts, text: String?) {
        guard let text else { return }
        guard facts.place == .body else { return append(facts.name, text) }
        setMember(facts.name, .string(text))
    }

    mutating func set(_ facts: FieldFacts, integer: Int64) {
        guard facts.place == .body else { return append(facts.name, String(integer)) }
        setMember(facts.name, .integer(integer))
    }

    mutating func set(_ facts: FieldFacts, flag: Bool) {
        guard flag else { return }
        guard facts.place == .body else { return append(facts.name, "true") }
        setMember(facts.name, true)
    }

    /// Sets a member of the JSON body, making the body an object when it is none.
    mutating func setMember(_ name: String, _ value: JSONValue) {
        var members = body?.objectMembers ?? []
        members.removeAll { $0.key == name }
        members.append((key: name, value: value))
        body = .object(members)
    }
}
