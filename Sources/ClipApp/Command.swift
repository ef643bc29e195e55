public import StrictJSON

/// The words of a command line as the application layer reads them: its positionals, the values of
/// its options and the flags given (ClipCLI parses them from the grammar `CommandDeclaration` gives).
public struct CommandWords: Sendable, Equatable {
    /// The command's words under `clipctl`, such as `["token", "create"]`.
    public let path: [String]
    public let positionals: [String]
    public let values: [String: [String]]
    public let flags: Set<String>

    public init(path: [String] = [], positionals: [String] = [], values: [String: [String]] = [:], flags: Set<String> = []) {
        self.path = path
        self.positionals = positionals
        self.values = values
        self.flags = flags
    }

    /// The last value of `--name` (a repeated option: the last one wins).
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }
}

/// A command line shown in help, program name first, with what it does.
public struct CommandExample: Sendable, Equatable {
    public let commandLine: String
    public let explanation: String
    public init(_ commandLine: String, _ explanation: String) {
        self.commandLine = commandLine
        self.explanation = explanation
    }
}

/// What a command's help says beside its grammar.
public struct CommandHelp: Sendable {
    public let summary: String
    public let discussion: String
    public let examples: [CommandExample]
    public init(_ summary: String, discussion: String = "", examples: [CommandExample] = []) {
        self.summary = summary
        self.discussion = discussion
        self.examples = examples
    }
}

/// A command's grammar and help as ClipCLI builds its parser from them: its words, its help, and its
/// arguments (the input's fields, then the options the command reads itself), in help order.
public struct CommandDeclaration: Sendable {
    public let path: [String]
    public let help: CommandHelp
    public let arguments: [FieldFacts]

    public init(path: [String], help: CommandHelp, arguments: [FieldFacts]) {
        self.path = path
        self.help = help
        self.arguments = arguments
    }

    public var name: String { path.last ?? "" }
    public var positionals: [FieldFacts] { arguments.filter(\.positional) }
    public var options: [FieldFacts] { arguments.filter { !$0.positional } }
}

/// How `--json` prints a command's answer.
public enum JSONForm<Output>: Sendable {
    /// The operation's JSON, as the API answers it.
    case answer
    /// Another form of the output (a bare array where the API answers `{"items": …}`).
    case shape(@Sendable (Output) -> JSONValue)
    /// A form made from the command line too (a removal answers 204 and `--json` names what it removed).
    case line(@Sendable (Output, CommandWords) -> JSONValue)
    /// The presenter prints it, or prints the same either way (`aasa`: the file's bytes).
    case presented
}

/// The steps a command takes beyond sending its input: arguments it builds by hand, a route its words
/// choose, an answer made of several operations, every page of a list.
public struct CommandSteps: Sendable {
    /// A rule of the command line alone, checked before anything runs (exit 64): options that exclude each other.
    public var check: (@Sendable (CommandWords) throws -> Void)?
    /// Builds the arguments where the command's options are not the input's fields (a body, `If-Match`).
    public var input: (@Sendable (CommandLine, inout Arguments) throws -> Void)?
    /// The binding whose route the words choose (`webcredentials add|remove`).
    public var route: (@Sendable (CommandWords) -> Binding?)?
    /// An answer made of several operations (a 204 read back through a list).
    public var answer: (@Sendable (CommandWords, Arguments, OperationRunner) throws -> OperationAnswer)?
    /// Reads every page of the route's list as one answer (`Binding.everyPage`).
    public var everyPage: Bool
    /// Under `--json`, the text form's standard error is printed too (`changes`: where the next page begins).
    public var standardErrorUnderJSON: Bool

    public init(
        check: (@Sendable (CommandWords) throws -> Void)? = nil,
        input: (@Sendable (CommandLine, inout Arguments) throws -> Void)? = nil, route: (@Sendable (CommandWords) -> Binding?)? = nil,
        answer: (@Sendable (CommandWords, Arguments, OperationRunner) throws -> OperationAnswer)? = nil, everyPage: Bool = false,
        standardErrorUnderJSON: Bool = false
    ) {
        self.check = check
        self.input = input
        self.route = route
        self.answer = answer
        self.everyPage = everyPage
        self.standardErrorUnderJSON = standardErrorUnderJSON
    }

    public static let none = CommandSteps()
}

/// An operation's command (docs/application-layer.md#operations-and-bindings): its words, its help,
/// the options it reads itself, its steps, how it prints its answer, and how it waits or reaches a server.
public struct Command<O: Operation>: Sendable {
    public let path: [String]
    public let help: CommandHelp
    /// Options beyond the input's fields, read by the command alone (`FieldPlace.command`).
    public let options: [FieldFacts]
    public let steps: CommandSteps
    public let present: @Sendable (O.Output, CommandWords, Printer) throws -> Void
    public let json: JSONForm<O.Output>
    /// With `--wait`, the command is tried again on a `WaitSchedule` until this holds of its answer.
    public let settled: (@Sendable (O.Output) -> Bool)?
    public let server: ServerCall

    public init(
        _ path: [String], _ help: CommandHelp, options: [FieldFacts] = [], steps: CommandSteps = .none, json: JSONForm<O.Output> = .answer,
        settled: (@Sendable (O.Output) -> Bool)? = nil, server: ServerCall = ServerCall(),
        present: @escaping @Sendable (O.Output, CommandWords, Printer) throws -> Void
    ) {
        self.path = path
        self.help = help
        self.options = options
        self.steps = steps
        self.present = present
        self.json = json
        self.settled = settled
        self.server = server
    }

    /// The answer's presentation for a route that another command's words choose (`CommandSteps.route`: `update
    /// --where`); it has no words of its own, so it adds no command.
    public static func routed(
        json: JSONForm<O.Output> = .answer, present: @escaping @Sendable (O.Output, CommandWords, Printer) throws -> Void
    ) -> Command {
        Command([], CommandHelp(""), json: json, present: present)
    }
}

/// What a route reads as its body.
public enum RouteBody: Sendable, Equatable {
    /// None; what a body it is sent gets.
    case none(UnreadBody)
    /// JSON (`Arguments.body`); `optional`: or none at all (`POST /v1/asc/apply`).
    case json(optional: Bool)
    /// Bytes of a media type of its own (`POST /v1/images`): `Arguments.attachment` and `contentType`.
    case bytes
    /// Read as it comes, in whatever media type the operation checks (`Arguments.stream`: an import).
    case stream
}

/// An operation's route (docs/application-layer.md#operations-and-bindings): its method and path
/// template, the status of a success, its body, how shared caches keep it, and whether this binding
/// serves it (false: a second command on another binding's route, or a hot route served from memory).
public struct Route: Sendable {
    public let method: String
    public let path: String
    public let status: Int
    public let body: RouteBody
    public let caching: RouteCaching
    public let served: Bool

    public init(
        _ method: String, _ path: String, status: Int = 200, body: RouteBody = .none(.refused), caching: RouteCaching = .shared(vary: []),
        served: Bool = true
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.body = body
        self.caching = caching
        self.served = served
    }
}

extension CommandWords {
    /// The same command line with one option set to `value`, as a person would type it next (a list's next
    /// page): `clipctl`, the database or server it used (never its token: a secret stays out of a line
    /// printed for pasting), the command's words and positionals, then its options with values.
    public func again(setting option: FieldFacts, to value: String) -> [String] {
        var words = ["clipctl"]
        for global in ["db", "server"] { if let given = self.value(global) { words += ["--\(global)", given] } }
        words += path + positionals + ["--\(option.option)", value]
        for name in values.keys.sorted() where ![option.option, "db", "server", "token"].contains(name) {
            for given in all(name) { words += ["--\(name)", given] }
        }
        return words
    }
}
