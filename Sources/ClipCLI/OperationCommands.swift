import ArgParse
import ClipAPI
import ClipApp
import ClipCommands
import StrictJSON

extension ClipCLI {
    /// clipctl's command tree: the grammar of `Commands.root` and every operation's command (`Application.bindings`).
    static let root: CommandSpec = {
        var subcommands = Commands.root.subcommands
        for binding in Application.bindings {
            guard let command = binding.command else { continue }
            subcommands = adding(command, under: binding.commandPath.dropLast(), to: subcommands)
        }
        return CommandSpec(
            Commands.root.name, summary: Commands.root.summary, discussion: Commands.root.discussion,
            positionals: Commands.root.positionals,
            options: Commands.root.options, subcommands: subcommands)
    }()

    private static func adding(_ command: CommandSpec, under path: ArraySlice<String>, to commands: [CommandSpec]) -> [CommandSpec] {
        guard let first = path.first else { return commands + [command] }
        return commands.map { parent in
            guard parent.name == first else { return parent }
            return CommandSpec(
                parent.name, summary: parent.summary, discussion: parent.discussion, positionals: parent.positionals,
                options: parent.options,
                subcommands: adding(command, under: path.dropFirst(), to: parent.subcommands))
        }
    }

    /// The binding whose command `path` names, if an operation's.
    static func binding(for path: [String]) -> Binding? { Application.bindings.first { $0.command != nil && $0.commandPath == path } }
}

extension Context {
    /// Runs an operation's command: on the database as its owner, or by sending the operation's
    /// request to `--server`, whose answer is the same JSON (docs/architecture.md#the-application-layer).
    func perform(_ binding: Binding) throws {
        let arguments = binding.arguments(of: parsed)
        let output: JSONValue
        if remoteServer != nil {
            if let local = binding.localOptions.sorted().first(where: { parsed.value($0) != nil || parsed.flag($0) }) {
                throw CommandFailure.usage("--\(local) applies to a database; a server decides for itself (see clipctl serve --help)")
            }
            guard let remote = try backend() as? RemoteBackend else { throw CommandFailure.usage("--server needs a server URL") }
            let request = binding.request(for: arguments)
            output = try remote.call(binding.method, request.path, query: request.query.map { ($0.name, $0.value) }).json
        } else {
            let outbound = OutboundHTTP(timeoutSeconds: 15, allowPrivateTargets: parsed.flag("allow-private-targets"))
                .outbound(cdnBaseURL: parsed.value("cdn-url"), siteURLTemplate: parsed.value("site-url"))
            output = try binding.perform(arguments, Session(registry: try registry(), caller: .local, outbound: outbound))
        }
        do { try binding.present(output, parsed, Printer(out: io.out, err: io.err)) } catch let status as CommandExitStatus {
            throw CommandFailure(code: status.code, message: "")
        }
    }
}
