public import ClipCore
import ClipStore
public import StrictJSON

/// An operation bound to its route and to its command (docs/application-layer.md#operations-and-bindings),
/// made from the feature file's `Route` and `Command`: the route's `{name}` parameters and the command's
/// positionals carry the input's arguments of the same names; the rest travel as query items, body
/// members and options, as the input's fields (`DeclaredInput`) say.
public struct Binding: Sendable {
    public let route: Route
    public let callers: CallerRule
    /// The operation waits on other servers (`Operation.waitsOnOthers`).
    public let waitsOnOthers: Bool
    /// The input's declared fields (`DeclaredInput.fields`); nil for an input read by hand.
    public let fields: [FieldFacts]?
    /// The command's grammar and help; nil: a route alone.
    public let command: CommandDeclaration?
    public let steps: CommandSteps
    /// With `--wait`, the command is tried again on a `WaitSchedule` until this holds of its answer.
    public let settled: (@Sendable (JSONValue) -> Bool)?
    /// How the command reaches a server (`--server`) where it does not as every command does.
    public let serverCall: ServerCall
    /// The command's `present` prints its `--json` form itself (`JSONForm.presented`).
    public let presentsJSON: Bool
    /// The output is bytes of a media type (`OperationContentOutput`, `OperationStreamOutput`), read back from a
    /// server as they come.
    public let answersContent: Bool
    /// Whether a server's answer is the output rather than a failure (`OperationOutput.isOutput`).
    public let isOutput: @Sendable (OperationAnswer) -> Bool
    /// Reads the input, admits the caller, runs: the output's answer.
    public let perform: @Sendable (Arguments, Session) throws -> OperationAnswer
    /// Prints a command's output, from `perform`'s answer: as text, or under `--json` as the
    /// command's JSON (the output's own unless the command gives another form).
    public let present: @Sendable (OperationAnswer, CommandWords, Printer) throws -> Void

    /// An operation's route and its command (nil: a route alone).
    public init<O: Operation>(_ operation: O.Type, _ route: Route, command: Command<O>? = nil) {
        self.route = route
        callers = O.callers
        waitsOnOthers = O.waitsOnOthers
        fields = O.Input.fieldFacts
        self.command = command.map {
            CommandDeclaration(path: $0.path, help: $0.help, arguments: (O.Input.fieldFacts ?? []).filter { !$0.routeOnly } + $0.options)
        }
        steps = command?.steps ?? .none
        serverCall = command?.server ?? ServerCall()
        if let settled = command?.settled {
            self.settled = { @Sendable json in
                guard let output = try? O.Output(json: json) else { return false }
                return settled(output)
            }
        } else {
            settled = nil
        }
        let json = command?.json ?? .answer
        if case .presented = json { presentsJSON = true } else { presentsJSON = false }
        isOutput = { O.Output.isOutput($0) }
        answersContent = O.Output.self is any OperationContentOutput.Type || O.Output.self is any OperationStreamOutput.Type
        perform = { arguments, session in Self.answer(try O.perform(arguments, in: session, method: route.method), status: route.status) }
        guard let command else {
            present = { _, _, _ in }
            return
        }
        let standardErrorUnderJSON = command.steps.standardErrorUnderJSON
        present = { answer, words, printer in
            let output = try O.Output(answer: answer)
            let form: JSONValue
            switch json {
            case .presented: return try command.present(output, words, printer)
            case _ where !words.flag("json"): return try command.present(output, words, printer)
            case .answer: form = answer.json
            case .shape(let shape): form = shape(output)
            case .line(let line): form = line(output, words)
            }
            printer.line(JSONWriter.string(form, pretty: true))
            // The text form's exit status holds for --json too.
            try command.present(output, words, Printer(out: { _ in }, err: standardErrorUnderJSON ? printer.err : { _ in }))
        }
    }

    // The route's facts, as the edges read them.
    public var method: String { route.method }
    /// The route's path template, such as `/v1/experiences/{id}/history`.
    public var path: String { route.path }
    /// The status of a successful answer.
    public var status: Int { route.status }
    public var caching: RouteCaching { route.caching }
    /// false: a second command on another binding's route (`domain list` prints `clip list`'s answer
    /// by host), which the API serves once, under that binding; or a hot route served from memory.
    public var servesRoute: Bool { route.served }
    public var takesBody: Bool { if case .json = route.body { true } else { false } }
    public var bodyOptional: Bool { route.body == .json(optional: true) }
    public var takesStream: Bool { route.body == .stream }
    public var takesBytes: Bool { route.body == .bytes }
    public var unreadBody: UnreadBody { if case .none(let unread) = route.body { unread } else { .refused } }
    /// The command's path under `clipctl`, such as `["history"]`; empty for a route alone.
    public var commandPath: [String] { command?.path ?? [] }
    public var readsEveryPage: Bool { steps.everyPage }
    public var commandInput: (@Sendable (CommandLine, inout Arguments) throws -> Void)? { steps.input }
    public var commandRoute: (@Sendable (CommandWords) -> Binding?)? { steps.route }
    public var commandAnswer: (@Sendable (CommandWords, Arguments, OperationRunner) throws -> OperationAnswer)? { steps.answer }
    /// Options that say how this process runs the operation on a database, never sent to a server (`verify --cdn-url`).
    public var localOptions: Set<String> { serverCall.localOptions }
    /// Options the command reads itself, never sent to a server (`verify --timeout`).
    public var clientOptions: Set<String> { serverCall.clientOptions }

    private static func answer(_ output: some OperationOutput, status: Int) -> OperationAnswer {
        OperationAnswer(
            json: output.json, status: output.status ?? status, headers: output.headers,
            content: (output as? any OperationContentOutput)?.content, stream: (output as? any OperationStreamOutput)?.stream)
    }

    /// Every argument name the operation reads: its declared fields, or when it reads them by hand the
    /// path parameters, positionals and options of its command. nil for a route read by hand without a command.
    public var argumentNames: Set<String>? {
        if let fields { return Set(pathParameters + fields.filter { $0.place != .command }.map(\.name)) }
        return command.map { Set(pathParameters + $0.arguments.map(\.name)) }
    }

    /// The names of the route's path parameters, in order.
    public var pathParameters: [String] {
        path.split(separator: "/").compactMap { $0.hasPrefix("{") && $0.hasSuffix("}") ? String($0.dropFirst().dropLast()) : nil }
    }

    /// A command line's arguments: each positional and option under its field's name, where the field
    /// travels (`FieldPlace`); an experience named by URL where the route takes an id is looked up first.
    public func arguments(of line: CommandLine) throws -> Arguments {
        var arguments = Arguments()
        try steps.check?(line.parsed)
        if let commandInput {
            try commandInput(line, &arguments)
            return arguments
        }
        guard let command else { return arguments }
        let words = line.parsed, positionals = command.positionals
        for (i, value) in words.positionals.enumerated() {
            guard let facts = i < positionals.count ? positionals[i] : positionals.last(where: \.repeatable) else { break }
            // A word the command reads itself (`webcredentials add|remove`) is not sent.
            if facts.place != .command { try arguments.add(facts, value, line) }
        }
        for facts in command.options
        where facts.place != .command && !localOptions.contains(facts.option) && !clientOptions.contains(facts.option) {
            try arguments.add(option: facts, of: line, declared: fields != nil)
        }
        // A route that reads a JSON body is sent one, however few options were given.
        if route.body == .json(optional: false), arguments.body == nil { arguments.body = .object([]) }
        return arguments
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
        if let ifMatch = arguments.ifMatch { headers.append(("If-Match", ifMatch.text)) }
        if let ifNoneMatch = arguments.ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch.text)) }
        if let accept = arguments.accept { headers.append(("Accept", accept)) }
        return (path, arguments.values.filter { !parameters.contains($0.name) }, arguments.body, headers)
    }
}

/// How a command reaches a server with `--server` where it does not as every command does.
public struct ServerCall: Sendable {
    /// Why this command line cannot be sent to a server (exit 64): an option that is the server's to set, or a
    /// command that runs on a database only, whose binding then has no route (`asc link`). nil: it can be.
    public var refusal: (@Sendable (CommandWords) -> String?)?
    /// The answer is awaited at least this long (an apply answers when it is done): seconds.
    public var minimumWaitSeconds: Double
    /// Problem statuses that mean the server cannot do it now: exit 69 with the problem's detail, as the same
    /// failure on a database (App Store Connect unavailable to the server: 502, 503).
    public var unavailableStatuses: Set<Int>
    /// Options that say how this process runs the operation on a database, refused with `--server` (a server
    /// decides them for itself): `verify --cdn-url`.
    public var localOptions: Set<String>
    /// Options the command reads itself, never sent to a server (`verify --timeout`).
    public var clientOptions: Set<String>

    public init(
        refusal: (@Sendable (CommandWords) -> String?)? = nil, minimumWaitSeconds: Double = 0, unavailableStatuses: Set<Int> = [],
        localOptions: Set<String> = [], clientOptions: Set<String> = []
    ) {
        self.refusal = refusal
        self.minimumWaitSeconds = minimumWaitSeconds
        self.unavailableStatuses = unavailableStatuses
        self.localOptions = localOptions
        self.clientOptions = clientOptions
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
    public let parsed: CommandWords
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
        parsed: CommandWords, readFile: @escaping (_ path: String, _ option: String) throws -> [UInt8],
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
