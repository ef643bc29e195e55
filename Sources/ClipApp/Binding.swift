public import ArgParse
import ClipCore
import ClipStore
public import StrictJSON

/// An operation bound to its route and to its command (docs/architecture.md#the-application-layer).
/// The route's `{name}` parameters and the command's positionals carry the input's arguments of the
/// same names; the rest travel as query items and options.
public struct Binding: Sendable {
    public let method: String
    /// The route's path template, such as `/v1/experiences/{id}/history`.
    public let path: String
    /// The status of a successful answer.
    public let status: Int
    public let callers: CallerRule
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
    /// Builds the arguments from a command line where its options are not the route's query items
    /// (a body, `If-Match`); nil: each positional and option under its own name.
    public let commandInput: (@Sendable (CommandLine, inout Arguments) throws -> Void)?
    /// The command's answer made of several operations, each run as the command runs (on the
    /// database or sent to `--server`): a route answering 204 read back through a list, pages read
    /// one after another. nil: this binding's operation once.
    public let commandAnswer: (@Sendable (ParsedCommand, Arguments, OperationRunner) throws -> OperationAnswer)?
    /// Under `--json`, the text form's standard error is printed too (`changes`: where the next page begins).
    public let standardErrorUnderJSON: Bool
    /// Reads the input, admits the caller, runs: the output's answer.
    public let perform: @Sendable (Arguments, Session) throws -> OperationAnswer
    /// Prints a command's output, from `perform`'s answer: as text, or under `--json` as the
    /// command's JSON (the output's own unless the binding gives another form).
    public let present: @Sendable (OperationAnswer, ParsedCommand, Printer) throws -> Void

    /// `commandJSON`: what `--json` prints, when it is not the API's answer (a bare array where the
    /// API answers `{"items": …}`, as clipctl printed before the route had an envelope).
    public init<O: Operation>(
        _ operation: O.Type, _ method: String, _ path: String, status: Int = 200, command: CommandSpec, under parent: [String] = [],
        commandJSON: (@Sendable (O.Output) -> JSONValue)? = nil, localOptions: Set<String> = [], clientOptions: Set<String> = [],
        settled: (@Sendable (O.Output) -> Bool)? = nil, takesBody: Bool = false,
        commandInput: (@Sendable (CommandLine, inout Arguments) throws -> Void)? = nil,
        commandAnswer: (@Sendable (ParsedCommand, Arguments, OperationRunner) throws -> OperationAnswer)? = nil,
        standardErrorUnderJSON: Bool = false,
        present: @escaping @Sendable (O.Output, ParsedCommand, Printer) throws -> Void
    ) {
        self.takesBody = takesBody
        self.commandInput = commandInput
        self.commandAnswer = commandAnswer
        self.standardErrorUnderJSON = standardErrorUnderJSON
        self.method = method
        self.path = path
        self.status = status
        self.callers = O.callers
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
        self.perform = { arguments, session in Self.answer(try O.perform(arguments, in: session), status: status) }
        self.present = { answer, parsed, printer in
            let output = try O.Output(json: answer.json, status: answer.status)
            guard parsed.flag("json") else { return try present(output, parsed, printer) }
            printer.line(JSONWriter.string(commandJSON?(output) ?? answer.json, pretty: true))
            // The text form's exit status holds for --json too.
            try present(output, parsed, Printer(out: { _ in }, err: standardErrorUnderJSON ? printer.err : { _ in }))
        }
    }

    /// A route without a command of its own (its command is another binding's).
    public init<O: Operation>(_ operation: O.Type, _ method: String, _ path: String, status: Int = 200, takesBody: Bool = false) {
        self.takesBody = takesBody
        self.commandInput = nil
        self.commandAnswer = nil
        self.standardErrorUnderJSON = false
        self.method = method
        self.path = path
        self.status = status
        self.callers = O.callers
        self.command = nil
        self.commandPath = []
        self.localOptions = []
        self.clientOptions = []
        self.settled = nil
        self.perform = { arguments, session in Self.answer(try O.perform(arguments, in: session), status: status) }
        self.present = { _, _, _ in }
    }

    private static func answer(_ output: some OperationOutput, status: Int) -> OperationAnswer {
        OperationAnswer(json: output.json, status: output.status ?? status, headers: output.headers)
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
                path += Self.encodeSegment(arguments[String(segment.dropFirst().dropLast())] ?? "")
            } else {
                path += segment
            }
        }
        var headers: [(name: String, value: String)] = []
        if let ifMatch = arguments.ifMatch { headers.append(("If-Match", ifMatch)) }
        if let ifNoneMatch = arguments.ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch)) }
        return (path, arguments.values.filter { !parameters.contains($0.name) }, arguments.body, headers)
    }

    /// Every byte but RFC 3986's unreserved characters percent-encoded.
    static func encodeSegment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return out
    }
}

/// Runs a binding with arguments as the command runs: on the database, or by sending its request to a server.
public typealias OperationRunner = (Binding, Arguments) throws -> OperationAnswer

/// A command line as a binding reads it: its words parsed, and the files it names read as the
/// command reads them (a regular file, or `-` for standard input).
public struct CommandLine {
    public let parsed: ParsedCommand
    /// The bytes of the file an option names (`-`: standard input); only a regular file is read.
    public let readFile: (_ path: String, _ option: String) throws -> [UInt8]

    public init(parsed: ParsedCommand, readFile: @escaping (_ path: String, _ option: String) throws -> [UInt8]) {
        self.parsed = parsed
        self.readFile = readFile
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
