/// What a form renderer reads to draw and check one operation's input, made from its declared fields
/// (`DeclaredInput.fields`, through its `Binding`) and nothing else (docs/application-layer.md#a-form-from-the-declaration):
/// for each field a control, in the fields' order, with the rules the layer applies to it and their messages.
public struct FormDescription: Sendable, Equatable {
    /// How a form draws a field (`FieldType`).
    public enum Input: Sendable, Equatable {
        case text
        case number
        case checkbox
        /// One of these spellings.
        case select([String])
        case file
        case json
        /// A date and time with its time zone (`FieldType.instant`).
        case instant
    }

    /// A rule the layer applies to a field, and its message as a field error gives it (`FieldError`); `rule` as the
    /// error names it, but for a rule a store names by its field (`title.length`): then its last part.
    public struct Rule: Sendable, Equatable {
        public let rule: String
        public let message: String
    }

    public struct Control: Sendable, Equatable {
        /// The argument's name: the path parameter, query item or body member (two controls may set one member:
        /// `localizations` is given by `--localization` and cleared by language with `--remove-localization`).
        public let name: String
        /// The command's option (`--option`), or the positional's placeholder: what tells two controls of one member apart.
        public let option: String
        public let label: String
        public let input: Input
        /// The value's placeholder in help (`LANG=TITLE|SUBTITLE`): what a text control's hint shows.
        public let placeholder: String
        public let place: FieldPlace
        public let required: Bool
        public let defaultValue: String?
        public let minimum: Int64?
        public let maximum: Int64?
        public let maxLength: Int?
        /// Given any number of times (a list of values).
        public let repeatable: Bool
        public let help: String
        /// What clears the field (JSON `null`, or a flag's `false`): the command's negation, its option and help.
        public let clearing: FieldNegation?
        public let rules: [Rule]
    }

    public let method: String
    public let path: String
    public let controls: [Control]

    /// The form of `binding`'s input: its declared fields but those the command reads alone (`FieldPlace.command`);
    /// none for an input read by hand.
    public init(_ binding: Binding) {
        method = binding.method
        path = binding.path
        controls = (binding.fields ?? []).filter { $0.place != .command }.map(Self.control)
    }

    static func control(_ facts: FieldFacts) -> Control {
        var minimum: Int64?, maximum: Int64?
        let input: Input
        switch facts.type {
        case .text, .experience, .experienceID: input = .text
        case .integer(let range): (input, minimum, maximum) = (.number, range.lowerBound, range.upperBound)
        case .choice(let spellings): input = .select(spellings)
        case .flag: input = .checkbox
        case .json: input = .json
        case .file: input = .file
        case .instant: input = .instant
        }
        return Control(
            name: facts.name, option: facts.positional ? facts.placeholder : facts.option, label: label(facts), input: input,
            placeholder: facts.placeholder,
            place: facts.place, required: required(facts), defaultValue: facts.defaultValue, minimum: minimum, maximum: maximum,
            maxLength: facts.maxLength, repeatable: facts.repeatable, help: facts.help, clearing: facts.negation,
            rules: rules(facts))
    }

    /// A path parameter is required by its route whatever its command takes (OpenAPI 3.1 §4.8.12.1: `required` is true
    /// for `in: path`): `update`'s ID|URL, which `--where` may replace on the command line.
    static func required(_ facts: FieldFacts) -> Bool { facts.required || facts.place == .path }

    /// A field's label: its option's words (`remove-localization`: "Remove localization"), an initialism in capitals.
    static func label(_ facts: FieldFacts) -> String {
        let initialisms: Set<String> = ["id", "url", "json"]
        let words = facts.option.split(separator: "-").map { initialisms.contains(String($0)) ? $0.uppercased() : String($0) }
        let text = words.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The rules the layer applies from the field's facts, with their messages (docs/rules.md#field-errors); the
    /// model's own checks of a value (a URL's form, a place's members) answer as field errors named by the field.
    static func rules(_ facts: FieldFacts) -> [Rule] {
        var rules: [Rule] = []
        if required(facts) { rules.append(Rule(rule: "required", message: "is required")) }
        switch facts.type {
        case .integer(let range):
            rules.append(Rule(rule: "range", message: "expected a whole number from \(range.lowerBound) to \(range.upperBound)"))
        case .choice(let spellings):
            rules.append(Rule(rule: "enum", message: "is not one of \(spellings.joined(separator: ", "))"))
        case .json:
            rules.append(Rule(rule: "json", message: "malformed JSON"))
        case .experience, .experienceID:
            rules.append(Rule(rule: "identifiers", message: "an id in decimal digits, no sign or leading zero, or a registered URL"))
        case .instant:
            rules.append(Rule(rule: "instant.format", message: "a time such as 2027-06-01T00:00 Europe/Paris, or in UTC"))
        case .text, .flag, .file: break
        }
        if let maxLength = facts.maxLength {
            rules.append(Rule(rule: "length", message: "is N characters; the limit is \(maxLength)"))
            rules.append(Rule(rule: "empty", message: "must not be empty"))
        }
        return rules
    }
}
