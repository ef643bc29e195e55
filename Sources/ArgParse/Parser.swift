/// The result of parsing: the chosen command path, its positionals and option values.
public struct ParsedCommand: Sendable, Equatable {
    /// e.g. ["domain", "add"]
    public let path: [String]
    public let positionals: [String]
    public let values: [String: [String]]
    public let flags: Set<String>

    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }
}

/// A usage error (exit 64, EX_USAGE), or a request for help (exit 0).
public enum ArgParseError: Error, Equatable, CustomStringConvertible {
    case helpRequested(path: [String])
    case unknownCommand(String, path: [String])
    case missingCommand(path: [String])
    case unknownOption(String, path: [String])
    case missingValue(String, path: [String])
    case unexpectedValue(String, path: [String])
    case repeatedOption(String, path: [String])
    case missingArgument(String, path: [String])
    case unexpectedArgument(String, path: [String])

    public var path: [String] {
        switch self {
        case .helpRequested(let p), .unknownCommand(_, let p), .missingCommand(let p), .unknownOption(_, let p), .missingValue(_, let p),
            .unexpectedValue(_, let p), .repeatedOption(_, let p), .missingArgument(_, let p), .unexpectedArgument(_, let p):
            p
        }
    }

    public var description: String {
        switch self {
        case .helpRequested: "help requested"
        case .unknownCommand(let c, _): "unknown command '\(c)'"
        case .missingCommand: "a subcommand is required"
        case .unknownOption(let o, _): "unknown option '\(o)'"
        case .missingValue(let o, _): "option '--\(o)' needs a value"
        case .unexpectedValue(let o, _): "flag '--\(o)' takes no value"
        case .repeatedOption(let o, _): "option '--\(o)' given more than once"
        case .missingArgument(let a, _): "missing argument \(a)"
        case .unexpectedArgument(let a, _): "unexpected argument '\(a)'"
        }
    }
}

/// Tokenizes and parses argv against a `CommandSpec`: `--name value`, `--name=value`, `-n value`,
/// flags, `--` ending options, `-` as a positional (standard input). Global options (`globals`)
/// are accepted at any depth.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], root: CommandSpec, globals: [OptionSpec] = []) throws(ArgParseError) -> ParsedCommand {
        var parsing = Parsing(arguments: arguments, command: root, globals: globals)
        while let argument = parsing.next() {
            if !parsing.optionsEnded && argument == "--" {
                parsing.optionsEnded = true
                continue
            }
            if !parsing.optionsEnded && (argument == "--help" || argument == "-h") { throw .helpRequested(path: parsing.path) }
            if !parsing.optionsEnded && argument.hasPrefix("--") {
                try parsing.longOption(argument)
            } else if !parsing.optionsEnded && argument.hasPrefix("-") && argument.count > 1 {
                try parsing.shortOptions(argument)
            } else {
                try parsing.word(argument)
            }
        }
        try parsing.checkPositionals()
        return ParsedCommand(path: parsing.path, positionals: parsing.positionals, values: parsing.values, flags: parsing.flags)
    }

    /// A parse in progress: the arguments left, the command reached, and what was given to it.
    struct Parsing {
        let arguments: [String]
        var command: CommandSpec
        let globals: [OptionSpec]
        var path: [String] = []
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var index = 0
        var optionsEnded = false

        init(arguments: [String], command: CommandSpec, globals: [OptionSpec]) {
            self.arguments = arguments
            self.command = command
            self.globals = globals
        }

        /// The next argument, taken; nil at the end.
        mutating func next() -> String? {
            guard index < arguments.count else { return nil }
            index += 1
            return arguments[index - 1]
        }

        func lookup(long name: String) -> OptionSpec? {
            (command.options + globals).first { $0.name == name }
        }

        func lookup(short c: Character) -> OptionSpec? {
            (command.options + globals).first { $0.short == c }
        }

        /// `--name`, `--name=value` or `--name value`.
        mutating func longOption(_ argument: String) throws(ArgParseError) {
            let body = argument.dropFirst(2)
            let name: String
            var inline: String?
            if let eq = body.firstIndex(of: "=") {
                name = String(body[..<eq])
                inline = String(body[body.index(after: eq)...])
            } else {
                name = String(body)
            }
            guard let spec = lookup(long: name) else { throw .unknownOption(argument, path: path) }
            if !spec.isFlag && inline == nil {
                guard let value = next() else { throw .missingValue(spec.name, path: path) }
                inline = value
            }
            try record(spec, inline)
        }

        /// `-f` (a flag), `-nVALUE` or `-n VALUE`.
        mutating func shortOptions(_ argument: String) throws(ArgParseError) {
            let letters = Array(argument.dropFirst())
            guard let spec = lookup(short: letters[0]) else { throw .unknownOption(argument, path: path) }
            if spec.isFlag {
                guard letters.count == 1 else { throw .unknownOption(argument, path: path) }
                try record(spec, nil)
            } else if letters.count > 1 {
                try record(spec, String(letters.dropFirst()))
            } else {
                guard let value = next() else { throw .missingValue(spec.name, path: path) }
                try record(spec, value)
            }
        }

        mutating func record(_ spec: OptionSpec, _ value: String?) throws(ArgParseError) {
            if spec.isFlag {
                guard value == nil else { throw .unexpectedValue(spec.name, path: path) }
                flags.insert(spec.name)
                return
            }
            guard let value else { throw .missingValue(spec.name, path: path) }
            if !spec.repeatable && values[spec.name] != nil { throw .repeatedOption(spec.name, path: path) }
            values[spec.name, default: []].append(value)
        }

        /// A word: a subcommand while the command has them, else a positional (a command
        /// may have both: `aasa HOST` and `aasa check URL`).
        mutating func word(_ argument: String) throws(ArgParseError) {
            if !command.subcommands.isEmpty && positionals.isEmpty && !optionsEnded {
                if let sub = command.subcommands.first(where: { $0.name == argument }) {
                    command = sub
                    path.append(sub.name)
                    return
                }
                if command.positionals.isEmpty {
                    if argument == "help" { throw .helpRequested(path: path) }
                    throw .unknownCommand(argument, path: path)
                }
            }
            positionals.append(argument)
        }

        /// The command reached is one that runs, with the positionals it takes.
        func checkPositionals() throws(ArgParseError) {
            if !command.isRunnable { throw .missingCommand(path: path) }
            let required = command.positionals.filter { !$0.optional }.count
            if positionals.count < required { throw .missingArgument(command.positionals[positionals.count].name, path: path) }
            if positionals.count > command.positionals.count, command.positionals.last?.variadic != true {
                throw .unexpectedArgument(positionals[command.positionals.count], path: path)
            }
        }
    }

    /// The spec at `path` below `root`.
    public static func command(at path: [String], in root: CommandSpec) -> CommandSpec {
        var command = root
        for name in path {
            guard let sub = command.subcommands.first(where: { $0.name == name }) else { break }
            command = sub
        }
        return command
    }
}
