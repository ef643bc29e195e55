public import ArgParse
public import ClipCore
import ClipStore
public import StrictJSON

/// An operation bound to its route and to its command (docs/application-layer.md#operations-and-bindings).
/// The route's `{name}` parameters and the command's positionals carry the input's arguments of the
/// same names; the rest travel as query items and options.
public struct Binding: Sendable {
    public let method: String
    /// The route's path template, such as `/v1/experiences/{id}/history`.
    public let path: String
    /// The status of a successful answer.
    public let status: Int
    public let callers: CallerRule
    /// The operation waits on other servers (`Operation.waitsOnOthers`).
    public let waitsOnOthers: Bool
    /// The command's grammar; its positionals are named after the input's arguments. nil: a route alone.
    public let command: CommandSpec?
    /// The command's path under `clipctl`, such as `["history"]`; empty for a route alone.
    public let commandPath: [String]
    /// Options that say how this process runs the operation on a database, never sent to a server
    /// (a server decides them for itself): `verify --cdn-url`.
    public let localOptions: Set<String>
    /// Options the command reads itself, never sent to a server (`verify --timeout`).
    public let clientOptions: Set<String>
    /// With `--wait`, the command is tried again on a `WaitSchedule` until this holds of its answer.
    public let settled: (@Sendable (JSONValue) -> Bool)?
    /// The route reads a JSON body (`Arguments.body`); a route without one refuses a body.
    public let takesBody: Bool
    /// The route reads its body as it comes, in whatever media type the operation checks
    /// (`Arguments.stream`: an import of any size), rather than as JSON.
    public let takesStream: Bool
    /// What a write that reads no body does with one it is sent.
    public let unreadBody: UnreadBody
    /// The route reads its body as bytes of a media type of its own (`POST /v1/images`): the request's
    /// body and `Content-Type` are `Arguments.attachment` and `Arguments.contentType`.
    public let takesBytes: Bool
    /// false: a second command on another binding's route (`domain list` prints `clip list`'s answer
    /// by host, `activate` is `PATCH /v1/experiences/{id}`), which the API serves once, under that binding.
    public let servesRoute: Bool
    /// Builds the arguments from a command line where its options are not the route's query items
    /// (a body, `If-Match`); nil: each positional and option under its own name.
    public let commandInput: (@Sendable (CommandLine, inout Arguments) throws -> Void)?
    /// The command reads every page of the route's list: it asks for the largest page (`limit`) and
    /// follows `nextCursor` (`cursor`), and presents the items of all pages as one answer.
    public let readsEveryPage: Bool
    /// The binding whose route a command line runs when its words choose among several
    /// (`applinks webcredentials add|remove`: PUT or DELETE); nil: this one. Its answer is read by
    /// this binding's `present`, so the chosen operation's output must read as this one's.
    public let commandRoute: (@Sendable (ParsedCommand) -> Binding?)?
    /// The command's answer made of several operations, each run as the command runs (on the
    /// database or sent to `--server`): a route answering 204 read back through a list, pages read
    /// one after another. nil: this binding's operation once.
    public let commandAnswer: (@Sendable (ParsedCommand, Arguments, OperationRunner) throws -> OperationAnswer)?
    /// Under `--json`, the text form's standard error is printed too (`changes`: where the next page begins).
    public let standardErrorUnderJSON: Bool
    /// The command's `present` prints its `--json` form itself (`code`: the file's facts), or prints
    /// the same either way (`aasa`: the file's bytes).
    public let presentsJSON: Bool
    /// The output is bytes of a media type (`OperationContentOutput`, `OperationStreamOutput`), read back from a
    /// server as they come.
    public let answersContent: Bool
    /// Whether a server's answer is the output rather than a failure (`OperationOutput.isOutput`).
    public let isOutput: @Sendable (OperationAnswer) -> Bool
    /// How the command reaches a server (`--server`) where it does not as every command does.
    public let serverCall: ServerCall
    /// The route takes a JSON body or none at all (`POST /v1/asc/apply`); with `takesBody`.
    public let bodyOptional: Bool
    /// How shared caches may keep the route's answers when it is public (a token route's never are).
    public let caching: RouteCaching
    /// Reads the input, admits the caller, runs: the output's answer.
    public let perform: @Sendable (Arguments, Session) throws -> OperationAnswer
    /// Prints a command's output, from `perform`'s answer: as text, or under `--json` as the
    /// command's JSON (the output's own unless the binding gives another form).
    public let present: @Sendable (OperationAnswer, ParsedCommand, Printer) throws -> Void

    /// `commandJSON`: what `--json` prints, when it is not the API's answer (a bare array where the
    /// API answers `{"items": …}`, as clipctl printed before the route had an envelope);
    /// `lineJSON`: the same, made from the command line too (a removal answers 204, no body, and
    /// `--json` names what the command removed).
    public init<O: Operation>(
        _ operation: O.Type, _ method: String, _ path: String, status: Int = 200, command: CommandSpec, under parent: [String] = [],
        commandJSON: (@Sendable (O.Output) -> JSONValue)? = nil, lineJSON: (@Sendable (O.Output, ParsedCommand) -> JSONValue)? = nil,
        localOptions: Set<String> = [], clientOptions: Set<String> = [],
        settled: (@Sendable (O.Output) -> Bool)? = nil, takesBody: Bool = false, takesStream: Bool = false,
        unreadBody: UnreadBody = .refused, servesRoute: Bool = true, readsEveryPage: Bool = false,
        commandInput: (@Sendable (CommandLine, inout Arguments) throws -> Void)? = nil,
        commandRoute: (@Sendable (ParsedCommand) -> Binding?)? = nil,
        commandAnswer: (@Sendable (ParsedCommand, Arguments, OperationRunner) throws -> OperationAnswer)? = nil,
        standardErrorUnderJSON: Bool = false, presentsJSON: Bool = false, serverCall: ServerCall = ServerCall(),
        bodyOptional: Bool = false, caching: RouteCaching = .shared(vary: []),
        present: @escaping @Sendable (O.Output, ParsedCommand, Printer) throws -> Void
    ) {
        self.readsEveryPage = readsEveryPage
        self.takesBody = takesBody
        self.takesStream = takesStream
        self.takesBytes = false
        self.unreadBody = unreadBody
        self.servesRoute = servesRoute
        self.commandInput = commandInput
        self.commandRoute = commandRoute
        self.commandAnswer = commandAnswer
        self.standardErrorUnderJSON = standardErrorUnderJSON
        self.presentsJSON = presentsJSON
        self.answersContent = Self.answersBytes(O.self)
        self.isOutput = { O.Output.isOutput($0) }
        self.serverCall = serverCall
        self.bodyOptional = bodyOptional
        self.caching = caching
        self.method = method
        self.path = path
        self.status = status
        self.callers = O.callers
        self.waitsOnOthers = O.waitsOnOthers
        self.command = command
        self.commandPath = parent + [command.name]
        self.localOptions = localOptions
        self.clientOptions = clientOptions
        if let settled {
            self.settled = { @Sendable json in
                guard let output = try? O.Output(json: json) else { return false }
                return settled(output)
            }
        } else {
            self.settled = nil
        }
        self.perform = { arguments, session in Self.answer(try O.perform(arguments, in: session, method: method), status: status) }
        self.present = { answer, parsed, printer in
            let output = try O.Output(answer: answer)
            guard parsed.flag("json"), !presentsJSON else { return try present(output, parsed, printer) }
            printer.line(JSONWriter.string(lineJSON?(output, parsed) ?? commandJSON?(output) ?? answer.json, pretty: true))
            // The text form's exit status holds for --json too.
            try present(output, parsed, Printer(out: { _ in }, err: standardErrorUnderJSON ? printer.err : { _ in }))
        }
    }

    /// A route without a command of its own (its command is another binding's); `servesRoute: false`, a
    /// route another binding serves that a command reads (`/preview` for `preview --server`).
    public init<O: Operation>(
        _ operation: O.Type, _ method: String, _ path: String, status: Int = 200, takesBody: Bool = false,
        unreadBody: UnreadBody = .refused, servesRoute: Bool = true, caching: RouteCaching = .shared(vary: []),
        takesBytes: Bool = false
    ) {
        self.readsEveryPage = false
        self.takesBody = takesBody
        self.takesStream = false
        self.takesBytes = takesBytes
        self.unreadBody = unreadBody
        self.servesRoute = servesRoute
        self.commandInput = nil
        self.commandRoute = nil
        self.commandAnswer = nil
        self.standardErrorUnderJSON = false
        self.presentsJSON = false
        self.answersContent = Self.answersBytes(O.self)
        self.isOutput = { O.Output.isOutput($0) }
        self.serverCall = ServerCall()
        self.bodyOptional = false
        self.caching = caching
        self.method = method
        self.path = path
        self.status = status
        self.callers = O.callers
        self.waitsOnOthers = O.waitsOnOthers
        self.command = nil
        self.commandPath = []
        self.localOptions = []
        self.clientOptions = []
        self.settled = nil
        self.perform = { arguments, session in Self.answer(try O.perform(arguments, in: session, method: method), status: status) }
        self.present = { _, _, _ in }
    }

    private static func answer(_ output: some OperationOutput, status: Int) -> OperationAnswer {
        OperationAnswer(
            json: output.json, status: output.status ?? status, headers: output.headers,
            content: (output as? any OperationContentOutput)?.content, stream: (output as? any OperationStreamOutput)?.stream)
    }

    /// The output is bytes, read back from a server as they come (`OperationContentOutput`, `OperationStreamOutput`).
    static func answersBytes<O: Operation>(_: O.Type) -> Bool {
        O.Output.self is any OperationContentOutput.Type || O.Output.self is any OperationStreamOutput.Type
    }

    /// Every argument name the operation reads, when it has a command to declare them: its path
    /// parameters, positionals and options. nil for a route without a command.
    public var argumentNames: Set<String>? {
        command.map { Set(pathParameters + $0.positionals.map(Self.argumentName) + $0.options.map(\.name)) }
    }

    /// The names of the route's path parameters, in order.
    public var pathParameters: [String] {
        path.split(separator: "/").compactMap { $0.hasPrefix("{") && $0.hasSuffix("}") ? String($0.dropFirst().dropLast()) : nil }
    }

    /// A command line's arguments: each positional under its name (the names of the command's
    /// `PositionalSpec`s, lower-cased up to a `|`), each option given under its own name.
    public func arguments(of line: CommandLine) throws -> Arguments {
        var arguments = Arguments()
        if let commandInput {
            try commandInput(line, &arguments)
            return arguments
        }
        let parsed = line.parsed
        guard let command else { return arguments }
        for (i, value) in parsed.positionals.enumerated() {
            guard let spec = i < command.positionals.count ? command.positionals[i] : command.positionals.last(where: \.variadic) else {
                break
            }
            arguments.append(Self.argumentName(spec), value)
        }
        for option in command.options where !option.isFlag && !localOptions.contains(option.name) && !clientOptions.contains(option.name) {
            arguments.append(option.name, parsed.value(option.name))
        }
        return arguments
    }

    /// The argument a positional carries: `ID|URL` is `id`.
    static func argumentName(_ spec: PositionalSpec) -> String {
        String(spec.name.split(separator: "|").first ?? "").lowercased()
    }

    /// The request that sends `arguments` to a server: the path with its parameters filled in,
    /// percent-encoded as one segment each (RFC 3986 §3.3), and the other arguments as query items.
    public func request(for arguments: Arguments) -> (
        path: String, query: [(name: String, value: String)], body: JSONValue?, headers: [(name: String, value: String)]
    ) {
        let parameters = Set(pathParameters)
        var path = ""
        for segment in self.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            path += "/"
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                path += PercentEncoding.encode((arguments[String(segment.dropFirst().dropLast())] ?? "").utf8)
            } else {
                path += segment
            }
        }
        var headers: [(name: String, value: String)] = []
        if let ifMatch = arguments.ifMatch { headers.append(("If-Match", ifMatch)) }
        if let ifNoneMatch = arguments.ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch)) }
        if let accept = arguments.accept { headers.append(("Accept", accept)) }
        return (path, arguments.values.filter { !parameters.contains($0.name) }, arguments.body, headers)
    }
}

/// How a command reaches a server with `--server` where it does not as every command does.
public struct ServerCall: Sendable {
    /// Why this command line cannot be sent to a server (exit 64): an option that is the server's to set, or a
    /// command that runs on a database only, whose binding then has no route (`asc link`). nil: it can be.
    public var refusal: (@Sendable (ParsedCommand) -> String?)?
    /// The answer is awaited at least this long (an apply answers when it is done): seconds.
    public var minimumWaitSeconds: Double
    /// Problem statuses that mean the server cannot do it now: exit 69 with the problem's detail, as the same
    /// failure on a database (App Store Connect unavailable to the server: 502, 503).
    public var unavailableStatuses: Set<Int>

    public init(
        refusal: (@Sendable (ParsedCommand) -> String?)? = nil, minimumWaitSeconds: Double = 0, unavailableStatuses: Set<Int> = []
    ) {
        self.refusal = refusal
        self.minimumWaitSeconds = minimumWaitSeconds
        self.unavailableStatuses = unavailableStatuses
    }
}

/// How shared caches may keep a public route's answers (docs/http-api.md#caching; RFC 9111): for the
/// server's `--public-max-age` with `Vary` on the request fields that change them, for ever
/// (content-addressed, RFC 8246 `immutable`), or not at all (operational answers).
public enum RouteCaching: Sendable, Equatable {
    case shared(vary: [String])
    case immutable
    case never
}

/// What a write that reads no body does with a body and query items it is sent.
public enum UnreadBody: Sendable {
    /// Refused (400), and a query item the operation does not read too (422): the layer's rule.
    case refused
    /// Ignored when it is JSON, else 415, as the older PUT routes always have (`PUT …/domains/{host}`).
    case ignoredIfJSON
    /// Ignored, as the older DELETE routes and the public GET routes of bytes (codes, preview, images) always have.
    case ignored
}
/// Runs a binding with arguments as the command runs: on the database, or by sending its request to a server.
public typealias OperationRunner = (Binding, Arguments) throws -> OperationAnswer

/// A command line as a binding reads it: its words parsed, and the files it names read as the
/// command reads them (a regular file, or `-` for standard input).
public struct CommandLine {
    public let parsed: ParsedCommand
    /// The bytes of the file an option names (`-`: standard input); only a regular file is read.
    public let readFile: (_ path: String, _ option: String) throws -> [UInt8]
    /// Runs another operation where this command runs (the database, or `--server`): a lookup the
    /// command needs before it builds its arguments (an experience's id from its URL).
    public let perform: (_ binding: Binding, _ arguments: Arguments) throws -> OperationAnswer
    /// With `--server`: stores an image file on the server for a team before the write that names it
    /// by hash (`POST /v1/images`), giving its SHA-256 and the upload's warnings. nil on a database,
    /// where the bytes go with the write (`Arguments.attachment`).
    public let storeImage: ((_ bytes: [UInt8], _ team: String?) throws -> (sha256: String, warnings: [FieldError]))?
    /// A file the command reads as it goes, never whole (`-`: standard input): its size when known (0 for
    /// standard input) and its next chunk, nil at the end. Only a regular file is opened.
    public let openFile: (_ path: String, _ what: String) throws -> (size: Int, next: () throws -> ArraySlice<UInt8>?)
    /// Where a long command says how far it went, each text replacing the last (it starts with a carriage
    /// return): standard error when it is a terminal and `--json` is not given; nil otherwise.
    public let progress: ((String) -> Void)?

    public init(
        parsed: ParsedCommand, readFile: @escaping (_ path: String, _ option: String) throws -> [UInt8],
        perform: @escaping (_ binding: Binding, _ arguments: Arguments) throws -> OperationAnswer = { _, _ in
            throw CommandUsageError("this command runs no other operation")
        },
        storeImage: ((_ bytes: [UInt8], _ team: String?) throws -> (sha256: String, warnings: [FieldError]))? = nil,
        openFile: @escaping (_ path: String, _ what: String) throws -> (size: Int, next: () throws -> ArraySlice<UInt8>?) = { _, _ in
            throw CommandUsageError("this command reads no file as it goes")
        },
        progress: ((String) -> Void)? = nil
    ) {
        self.parsed = parsed
        self.readFile = readFile
        self.perform = perform
        self.storeImage = storeImage
        self.openFile = openFile
        self.progress = progress
    }

    /// The value of `--name`, which the command needs (exit 64 without it).
    public func required(_ name: String) throws -> String {
        guard let value = parsed.value(name) else { throw CommandUsageError("missing --\(name)") }
        return value
    }

    /// A JSON option given inline or as `@FILE`; malformed JSON is a field error (exit 65).
    public func json(_ name: String) throws -> JSONValue? {
        guard let raw = parsed.value(name) else { return nil }
        let bytes = raw.hasPrefix("@") ? try readFile(String(raw.dropFirst()), "--\(name)") : Array(raw.utf8)
        do { return try JSONParser.parse(bytes) } catch {
            throw RegistryError.invalid([FieldError(field: name, rule: "json", message: "malformed JSON: \(error.description)")])
        }
    }
}
