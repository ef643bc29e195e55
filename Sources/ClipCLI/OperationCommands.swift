import ArgParse
package import ClipApp
import ClipCommands
import Dispatch
import Foundation
import StrictJSON

extension ClipCLI {
    /// clipctl's command tree: the grammar of `Commands.root` and every operation's command (`Application.bindings`).
    static let root: CommandSpec = {
        var subcommands = Commands.root.subcommands
        for binding in Application.bindings {
            // A routed presentation (`Command.routed`) adds no command.
            guard let command = binding.command, !binding.commandPath.isEmpty else { continue }
            subcommands = adding(grammar(command), under: binding.commandPath.dropLast(), to: subcommands)
        }
        return CommandSpec(
            Commands.root.name, summary: Commands.root.summary, discussion: Commands.root.discussion,
            positionals: Commands.root.positionals,
            options: Commands.root.options, subcommands: subcommands, examples: Commands.root.examples)
    }()

    /// An operation's command as the parser and help read it: its positionals and options from its
    /// arguments' facts (`FieldFacts`), in order.
    static func grammar(_ command: CommandDeclaration) -> CommandSpec {
        CommandSpec(
            command.name, summary: command.help.summary, discussion: command.help.discussion,
            positionals: command.positionals.map {
                PositionalSpec($0.placeholder, help: $0.helpWithDefault, optional: !$0.required, variadic: $0.repeatable)
            },
            options: command.options.flatMap { facts -> [OptionSpec] in
                let option: OptionSpec =
                    facts.type == .flag
                    ? .flag(facts.option, short: facts.short, help: facts.helpWithDefault)
                    : .option(
                        facts.option, short: facts.short, value: facts.placeholder, help: facts.helpWithDefault,
                        repeatable: facts.repeatable)
                // A field's negation follows it (`--app-store-id N`, `--no-app-store-id`).
                return [option] + (facts.negation.map { [.flag($0.option, help: $0.help)] } ?? [])
            },
            examples: command.help.examples.map { Example($0.commandLine, $0.explanation) })
    }

    /// `command` added under `path`; one named like a placeholder of `Commands.root` takes its
    /// place, so that help lists the commands in the order the grammar gives, and keeps the
    /// placeholder's subcommands (`aasa HOST` runs, and is the parent of `aasa check` and `aasa lint`).
    private static func adding(_ command: CommandSpec, under path: ArraySlice<String>, to commands: [CommandSpec]) -> [CommandSpec] {
        guard let first = path.first else {
            guard let place = commands.firstIndex(where: { $0.name == command.name }) else { return commands + [command] }
            var replaced = commands
            replaced[place] = CommandSpec(
                command.name, summary: command.summary, discussion: command.discussion, positionals: command.positionals,
                options: command.options, subcommands: commands[place].subcommands + command.subcommands, examples: command.examples,
                runsAlone: command.runsAlone || commands[place].runsAlone)
            return replaced
        }
        return commands.map { parent in
            guard parent.name == first else { return parent }
            return CommandSpec(
                parent.name, summary: parent.summary, discussion: parent.discussion, positionals: parent.positionals,
                options: parent.options,
                subcommands: adding(command, under: path.dropFirst(), to: parent.subcommands), examples: parent.examples,
                runsAlone: parent.runsAlone)
        }
    }

    /// The binding whose command `path` names, if an operation's.
    static func binding(for path: [String]) -> Binding? { Application.bindings.first { $0.command != nil && $0.commandPath == path } }
}

extension Context {
    /// Runs an operation's command: on the database as its owner, or by sending the operation's
    /// request to `--server`, whose answer is the same JSON (docs/application-layer.md#operations-and-bindings).
    func perform(_ binding: Binding) throws {
        do { try performCommand(binding) } catch let usage as CommandUsageError { throw CommandFailure.usage(usage.description) }
    }

    private func performCommand(_ binding: Binding) throws {
        // The wait's options are read before anything runs: a malformed one is refused without a first try.
        let schedule = try waitSchedule()
        var output = try answer(binding)
        if let schedule, let settled = binding.settled {
            output = try waitUntilSettled(binding, schedule, first: output, settled: settled)
        }
        // A route the words chose presents its own answer when it declares how (`update --where`).
        let routed = binding.commandRoute?(words).flatMap { $0.command != nil && $0.commandPath.isEmpty ? $0 : nil }
        try (routed ?? binding).present(output, words, printer)
    }

    /// `--wait`'s schedule from `--timeout` and `--wait-intervals`; nil without `--wait`, where those two are refused.
    private func waitSchedule() throws -> WaitSchedule? {
        guard parsed.flag("wait") else {
            for name in ["timeout", "wait-intervals"] where parsed.value(name) != nil {
                throw CommandFailure.usage("--\(name) goes with --wait")
            }
            return nil
        }
        var timeout = 72 * 3600.0
        if let text = parsed.value("timeout") {
            guard let seconds = WaitSchedule.duration(text) else {
                throw CommandFailure.usage("--timeout takes a duration such as 72h, 30m or 90s, at most 365d")
            }
            timeout = seconds
        }
        var intervals = WaitSchedule.defaultIntervals
        if let text = parsed.value("wait-intervals") {
            let values = text.split(separator: ",", omittingEmptySubsequences: false).map { WaitSchedule.decimal($0) }
            guard values.count <= 100, values.allSatisfy({ ($0 ?? -1) > 0 && ($0 ?? 0) <= 86_400 }) else {
                throw CommandFailure.usage("--wait-intervals takes seconds separated by commas, such as 1,2,4")
            }
            intervals = values.map { $0! }
        }
        return WaitSchedule(intervals: intervals, timeout: timeout)
    }

    /// The operation's answer, from the database or from `--server`, with what the command read
    /// before; a command made of several operations (`Binding.commandAnswer`) runs each the same way.
    private func answer(_ binding: Binding) throws -> OperationAnswer {
        if remoteServer != nil, let refusal = binding.serverCall.refusal?(words) { throw CommandFailure.usage(refusal) }
        let arguments: Arguments
        do {
            arguments = try binding.arguments(of: commandLine())
        } catch let usage as CommandUsageError {
            throw CommandFailure.usage(usage.description)
        }
        if remoteServer != nil, let local = binding.localOptions.sorted().first(where: { parsed.value($0) != nil || parsed.flag($0) }) {
            throw CommandFailure.usage("--\(local) applies to a database; a server decides for itself (see clipctl serve --help)")
        }
        var answer: OperationAnswer
        if let composed = binding.commandAnswer {
            answer = try composed(words, arguments) { try self.everyPage($0, $1) }
        } else {
            // A command whose words choose its route (`webcredentials add|remove`) sends that route's request.
            answer = try everyPage(binding.commandRoute?(words) ?? binding, arguments)
        }
        answer.commandRead = arguments.commandRead
        return answer
    }

    /// The command line as a binding reads it: its files, the operations it may run first, and
    /// with `--server` the image upload.
    private func commandLine() throws -> CommandLine {
        let remote = try server()
        let io = self.io
        return CommandLine(
            parsed: words, readFile: { try self.readFile($0, option: $1) }, perform: { try self.everyPage($0, $1) },
            storeImage: remote.map { remote in { bytes, team in try remote.uploadImage(bytes, team: team) } },
            openFile: { try self.openFile($0, what: $1) },
            progress: io.standardErrorIsTerminal && !json ? { io.err($0) } : nil)
    }

    /// The answer, or with `readsEveryPage` the items of every page as one list answer (`Binding.everyPage`).
    private func everyPage(_ binding: Binding, _ arguments: Arguments) throws -> OperationAnswer {
        try binding.everyPage(arguments) { try self.send($0, $1) }
    }

    /// One operation's answer, from the database as its owner or sent to `--server`: the
    /// `OperationRunner` of a command that is not an operation's own (doctor, publish).
    func send(_ binding: Binding, _ arguments: Arguments) throws -> OperationAnswer {
        if remoteServer != nil {
            return try sendToServer(binding, arguments)
        }
        // As `serve` refuses its --aasa-cdn-url and --aasa-site-url: a URL that no host makes fetchable (exit 64).
        if let problem = Outbound.settingsProblem(
            cdnBaseURL: parsed.value("cdn-url"), siteURLTemplate: parsed.value("site-url"), names: .verify)
        {
            throw CommandFailure.usage(problem)
        }
        let allowsPrivate = parsed.flag("allow-private-targets")
        let outbound = Outbound.checked(
            timeoutSeconds: 15, allowPrivateTargets: allowsPrivate, names: .verify, cdnBaseURL: parsed.value("cdn-url"),
            siteURLTemplate: parsed.value("site-url"))
        var appStoreConnect = try appStoreConnectAccess()
        if let text = parsed.value("rate-reserve") {
            guard let reserve = Int(text), reserve >= 0 else { throw CommandFailure.usage("--rate-reserve takes a number of requests") }
            appStoreConnect.rateLimitReserve = reserve
        }
        do {
            let session = Session(
                registry: try registry(), caller: .local, outbound: outbound, allowsPrivateTargets: allowsPrivate,
                appStoreConnect: appStoreConnect)
            return try binding.perform(arguments, session)
        } catch let partial as PartialFailure {
            // What was done is printed before the failure (an apply stopped halfway).
            try? binding.present(OperationAnswer(json: partial.partial, status: 200), words, Printer(out: io.out, err: io.err))
            throw Self.commandFailure(partial.cause)
        } catch {
            throw Self.commandFailure(error)
        }
    }

    /// An operation's failure as the command reports it: its exit status and what it says on standard error
    /// (docs/application-layer.md#clipctl); the rest as it is.
    static func commandFailure(_ error: any Error) -> any Error {
        switch error {
        case let failed as PreconditionFailed: return CommandFailure(code: ExitCode.failure, message: failed.description)
        case let refusal as CallerRefusal: return CommandFailure(code: ExitCode.failure, message: refusal.description)
        case let invalid as InvalidArguments:
            return CommandFailure(code: ExitCode.invalidInput, message: "invalid input", fieldErrors: invalid.errors)
        case let failure as OperationError: return CommandFailure(failure)
        case let usage as CommandUsageError: return CommandFailure.usage(usage.description)
        case let verdict as CommandVerdict: return CommandFailure(verdict)
        default: return error
        }
    }

    /// The operation sent to `--server`: its request, its answer, or the failure local mode would give.
    private func sendToServer(_ binding: Binding, _ arguments: Arguments) throws -> OperationAnswer {
        guard var remote = try server() else { throw CommandFailure.usage("--server needs a server URL") }
        if binding.serverCall.minimumWaitSeconds > remote.timeoutSeconds {
            remote = try RemoteServer(server: remote.base, token: remote.token, timeoutSeconds: binding.serverCall.minimumWaitSeconds)
        }
        return try remote.answer(binding, binding.request(for: arguments), stream: arguments.stream)
    }

    /// How the App Store Connect operations reach it from here: with the key the options or the `ASC_` environment
    /// name, read when one needs it; progress and waits said as `--progress` chooses for this standard error.
    func appStoreConnectAccess() throws -> AppStoreConnectAccess {
        do {
            return try AppStoreConnectAccess(
                command: words, environment: environment, standardErrorIsTerminal: io.standardErrorIsTerminal, json: json, err: io.err)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }

    /// `--wait`: the command again on its `WaitSchedule` until its answer is settled; each unsettled
    /// answer is told on standard error with the time to the next try.
    private func waitUntilSettled(
        _ binding: Binding, _ schedule: WaitSchedule, first: OperationAnswer, settled: @Sendable (JSONValue) -> Bool
    ) throws -> OperationAnswer {
        var pending: OperationAnswer? = first
        let io = self.io
        return try schedule.run(
            now: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
            sleep: { Thread.sleep(forTimeInterval: $0) },
            attempt: {
                defer { pending = nil }
                return try pending ?? answer(binding)
            },
            settled: { settled($0.json) },
            tried: { _, next in
                io.err(next.map { "not there yet; checking again in \(Outbound.seconds($0))\n" } ?? "not there before --timeout\n")
            }
        ).last
    }
}

extension ClipCLI {
    /// The words of `arguments` (the binding's command words first) as clipctl's parser reads them with the
    /// binding's grammar alone, without the global options: how a test runs a binding's command line.
    package static func words(_ arguments: [String], for binding: Binding) throws -> CommandWords {
        guard let command = binding.command else { throw CommandUsageError("the binding has no command") }
        var spec = grammar(command)
        for parent in command.path.dropLast().reversed() { spec = CommandSpec(parent, summary: "", subcommands: [spec]) }
        let parsed = try ArgumentParser.parse(arguments, root: CommandSpec("clipctl", summary: "", subcommands: [spec]))
        return CommandWords(path: parsed.path, positionals: parsed.positionals, values: parsed.values, flags: parsed.flags)
    }
}
