public import ClipCore

// Field kinds of the outbound, App Store Connect and code operations (`verify`, `asc`, `code`, `codes export`),
// beside the kernel's (InputField.swift; docs/application-layer.md#input-fields).

extension FieldFacts {
    /// An option the command reads alone, never sent (`FieldPlace.command`): how it prints (`--explain`), how it waits
    /// (`--timeout`), or how this process runs the operation on a database (`verify --cdn-url`, an App Store Connect key).
    public static func option(
        _ name: String, _ placeholder: String, help: String, default defaultValue: String? = nil, short: Character? = nil
    ) -> FieldFacts {
        FieldFacts(name: name, place: .command, type: .text, placeholder: placeholder, help: help, defaultValue: defaultValue, short: short)
    }

    /// `-o FILE`: where a command writes what it prints (`export`, `preview`), else standard output.
    public static let outputFile = option("output", "FILE", help: "write to FILE instead of standard output", short: "o")

    /// A flag the command reads alone, never sent (`FieldPlace.command`): `--yes`, `--detailed-exitcode`.
    public static func flag(_ name: String, help: String) -> FieldFacts {
        FieldFacts(name: name, place: .command, type: .flag, placeholder: "", help: help)
    }

    /// The same argument with the help of another command (`asc testflight plan --detailed-exitcode`).
    public func helped(_ help: String) -> FieldFacts {
        FieldFacts(
            name: name, place: place, type: type, placeholder: placeholder, help: help, defaultValue: defaultValue, required: required,
            repeatable: repeatable, positional: positional, short: short, option: option, negation: negation, maxLength: maxLength,
            routeOnly: routeOnly, upperCased: upperCased)
    }
}

extension InputField {
    /// An optional text whose absence the operation reads as `defaultValue`, which help shows (`--ecc`: M); nil
    /// when not given, so that the operation can tell a value given from none (a QR option given to a tag).
    public static func text(
        _ name: String, _ key: any WritableKeyPath<Input, String?> & Sendable, in place: FieldPlace = .query, _ placeholder: String,
        help: String, default defaultValue: String
    ) -> InputField {
        optional(FieldFacts(name: name, place: place, type: .text, placeholder: placeholder, help: help, defaultValue: defaultValue), key)
    }

    /// A positional the command line requires that the route reads as optional: the operation answers its absence
    /// with a rule of its own (`GET /v1/codes` without `url`: a 400 that says how to give it).
    public static func positional(
        _ name: String, _ key: any WritableKeyPath<Input, String?> & Sendable, _ placeholder: String, help: String
    ) -> InputField {
        let facts = FieldFacts(
            name: name, place: .query, type: .text, placeholder: placeholder, help: help, required: true, positional: true)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.string(facts.name) },
            write: { input, arguments in arguments.set(facts, text: input[keyPath: key]) })
    }

    /// Every value of a repeated argument, in order: a repeated query item, a command's variadic positional
    /// (`verify [HOST…]`); none is an empty list.
    public static func texts(
        _ name: String, _ key: any WritableKeyPath<Input, [String]> & Sendable, _ placeholder: String, help: String,
        positional: Bool = false
    ) -> InputField {
        let facts = FieldFacts(
            name: name, place: .query, type: .text, placeholder: placeholder, help: help, repeatable: true, positional: positional)
        return InputField(
            facts, read: { input, reader in input[keyPath: key] = reader.strings(facts.name) },
            write: { input, arguments in for value in input[keyPath: key] { arguments.append(facts.name, value) } })
    }

    /// A repeated argument a command takes as a few positionals, each with its help (`asc testflight set CLIP URL [URL
    /// [URL]]`): the command line gives the first, the rest if it will; read and written as one list, in order (over the
    /// API none is an empty list). A command line cannot give more than `helps` names.
    public static func texts(
        _ name: String, _ key: any WritableKeyPath<Input, [String]> & Sendable, _ placeholder: String, helps: [String]
    ) -> [InputField] {
        helps.enumerated().map { i, help in
            let facts = FieldFacts(
                name: name, place: .query, type: .text, placeholder: placeholder, help: help, required: i == 0, positional: true)
            guard i == 0 else { return InputField(facts, read: { _, _ in }, write: { _, _ in }) }
            return InputField(
                facts, read: { input, reader in input[keyPath: key] = reader.strings(facts.name) },
                write: { input, arguments in for value in input[keyPath: key] { arguments.append(facts.name, value) } })
        }
    }

    /// A flag on a command line (`--prune`, sent as `true`); over the API a query item whose text the operation reads
    /// by a rule of its own (`true`, `1` or empty; `false` or `0`), nil when not given.
    public static func flag(
        _ name: String, _ key: any WritableKeyPath<Input, String?> & Sendable, help: String
    ) -> InputField {
        optional(FieldFacts(name: name, place: .query, type: .flag, placeholder: "", help: help), key)
    }
}

extension DeclaredInput {
    /// The input `arguments` say, their field errors aside: what a command made of several operations reads of the
    /// arguments it built (`asc apply` without `--yes` shows the plan of the clip it was given).
    init(_ arguments: Arguments) {
        var reader = ArgumentReader(arguments)
        self.init(reading: &reader)
    }
}

/// A guard given as a query item (`dryRun`, `removeMissing`): `true` or `false` only, so that a misspelt value is a field
/// error rather than the write done for real; not given, false.
public enum QueryFlag {
    public static func truth(_ text: String?, field: String, into errors: inout [FieldError]) -> Bool {
        switch text {
        case nil, "false": return false
        case "true": return true
        default:
            errors.append(FieldError(field: field, rule: "type", message: "expected true or false"))
            return false
        }
    }
}
