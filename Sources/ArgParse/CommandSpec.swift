/// A command's grammar: its options, positional arguments and subcommands. The same value
/// drives parsing and help, so they cannot disagree.
public struct OptionSpec: Sendable {
    public let name: String
    public let short: Character?
    /// nil for a flag; otherwise the placeholder shown in help (`URL`, `FILE`).
    public let valueName: String?
    public let help: String
    public let repeatable: Bool

    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false)
    }

    public static func option(_ name: String, short: Character? = nil, value: String, help: String, repeatable: Bool = false) -> OptionSpec
    {
        OptionSpec(name: name, short: short, valueName: value, help: help, repeatable: repeatable)
    }

    public var isFlag: Bool { valueName == nil }
}

public struct PositionalSpec: Sendable {
    public let name: String
    public let help: String
    public let optional: Bool
    /// Takes every remaining argument, none or more (the last positional only); implies optional.
    public let variadic: Bool
    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.optional = optional || variadic
        self.variadic = variadic
    }

    /// The name as a usage line shows it: `HOST…` for a variadic one.
    public var usageName: String { variadic ? name + "…" : name }
}

public struct CommandSpec: Sendable {
    public let name: String
    public let summary: String
    public let discussion: String
    public let positionals: [PositionalSpec]
    public let options: [OptionSpec]
    public let subcommands: [CommandSpec]

    public init(
        _ name: String, summary: String, discussion: String = "", positionals: [PositionalSpec] = [], options: [OptionSpec] = [],
        subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.subcommands = subcommands
    }
}
