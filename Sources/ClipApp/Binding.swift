public import ArgParse
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
    /// Reads the input, admits the caller, runs: the output's JSON.
    public let perform: @Sendable (Arguments, Session) throws -> JSONValue
    /// Prints a command's output, from `perform`'s JSON: as text, or under `--json` as the
    /// command's JSON (the output's own unless the binding gives another form).
    public let present: @Sendable (JSONValue, ParsedCommand, Printer) throws -> Void

    /// `commandJSON`: what `--json` prints, when it is not the API's answer (a bare array where the
    /// API answers `{"items": …}`, as clipctl printed before the route had an envelope).
    public init<O: Operation>(
        _ operation: O.Type, _ method: String, _ path: String, status: Int = 200, command: CommandSpec, under parent: [String] = [],
        commandJSON: (@Sendable (O.Output) -> JSONValue)? = nil, localOptions: Set<String> = [], clientOptions: Set<String> = [],
        settled: (@Sendable (O.Output) -> Bool)? = nil,
        present: @escaping @Sendable (O.Output, ParsedCommand, Printer) throws -> Void
    ) {
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
        self.perform = { arguments, session in try O.perform(arguments, in: session).json }
        self.present = { json, parsed, printer in
            let output = try O.Output(json: json)
            guard parsed.flag("json") else { return try present(output, parsed, printer) }
            printer.line(JSONWriter.string(commandJSON?(output) ?? json, pretty: true))
            // The text form's exit status holds for --json too.
            try present(output, parsed, Printer(out: { _ in }, err: { _ in }))
        }
    }

    /// A route without a command of its own (its command is another binding's).
    public init<O: Operation>(_ operation: O.Type, _ method: String, _ path: String, status: Int = 200) {
        self.method = method
        self.path = path
        self.status = status
        self.callers = O.callers
        self.command = nil
        self.commandPath = []
        self.localOptions = []
        self.clientOptions = []
        self.settled = nil
        self.perform = { arguments, session in try O.perform(arguments, in: session).json }
        self.present = { _, _, _ in }
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
    public func arguments(of parsed: ParsedCommand) -> Arguments {
        var arguments = Arguments()
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
    public func request(for arguments: Arguments) -> (path: String, query: [(name: String, value: String)]) {
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
        return (path, arguments.values.filter { !parameters.contains($0.name) })
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
