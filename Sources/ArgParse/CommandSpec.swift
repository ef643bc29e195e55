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
    /// Command lines that use this command, shown under EXAMPLES in help and in the man page.
    public let examples: [Example]
    /// Runs without a subcommand too, though it has subcommands and no positionals (`doctor` beside `doctor ack`).
    public let runsAlone: Bool

    public init(
        _ name: String, summary: String, discussion: String = "", positionals: [PositionalSpec] = [], options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [], examples: [Example] = [], runsAlone: Bool = false
    ) {
        self.runsAlone = runsAlone
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.subcommands = subcommands
        self.examples = examples
    }

    /// Every command below and including this one, each with the words that reach it (`["domain", "add"]`).
    public func allCommands(_ path: [String] = []) -> [(path: [String], spec: CommandSpec)] {
        [(path, self)] + subcommands.flatMap { $0.allCommands(path + [$0.name]) }
    }

    /// Whether the parser can stop here: no subcommands, arguments of its own beside them (`aasa HOST`), or a command
    /// that runs alone (`doctor`).
    public var isRunnable: Bool { subcommands.isEmpty || !positionals.isEmpty || runsAlone }
}

/// A command line as a user types it, program name first (`clipctl list --host shop.example`), with a
/// one-line explanation. Written with POSIX shell quoting, so it can be pasted into a shell.
public struct Example: Sendable, Equatable {
    public let commandLine: String
    public let explanation: String

    public init(_ commandLine: String, _ explanation: String) {
        self.commandLine = commandLine
        self.explanation = explanation
    }

    /// The words a POSIX shell passes for `commandLine`, program name first: blanks separate words,
    /// `'…'` keeps everything literally, `"…"` keeps all but `\` before `"`, `\`, `$` or a backquote,
    /// and `\` outside quotes keeps the next character (POSIX.1-2017 XCU §2.2, §2.3). nil for a line a
    /// shell would read otherwise: an open quote, or outside quotes an expansion (`$`, a backquote, `~` at
    /// a word's start, a glob `*` `?` `[`, bash's braces) or an operator (`|`, `&`, `;`, `<`, `>`, `(`, `)`,
    /// `#` at a word's start).
    public var words: [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = commandLine.makeIterator()
        while let c = characters.next() {
            switch c {
            case " ", "\t":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                while true {
                    guard let q = characters.next() else { return nil }
                    if q == "'" { break }
                    word.append(q)
                }
            case "\"":
                inWord = true
                while true {
                    guard let q = characters.next() else { return nil }
                    if q == "\"" { break }
                    if q == "$" || q == "`" { return nil }
                    if q == "\\" {
                        guard let next = characters.next() else { return nil }
                        if !"\"\\$`".contains(next) { word.append(q) }
                        word.append(next)
                    } else {
                        word.append(q)
                    }
                }
            case "\\":
                guard let next = characters.next(), next != "\n" else { return nil }
                inWord = true
                word.append(next)
            case "$", "`", "|", "&", ";", "<", ">", "(", ")", "*", "?", "[", "{", "}", "\n":
                return nil
            case "~" where !inWord, "#" where !inWord:
                return nil
            default:
                inWord = true
                word.append(c)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
