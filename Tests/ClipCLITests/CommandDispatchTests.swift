import ArgParse
import ClipApp
@testable import ClipCLI
import ClipCommands
import Testing

/// Every command of clipctl's grammar has a handler, and every handler a command: a new leaf
/// without a handler (it would answer "unknown command") or a handler the parser can never reach
/// fails here rather than in a user's hands.
struct CommandDispatchTests {
    /// The command paths the parser can return: a command with no subcommands, or one that also
    /// takes arguments of its own (`aasa HOST` beside `aasa check`).
    static func runnablePaths(_ command: CommandSpec, _ path: [String] = []) -> [[String]] {
        let own = command.isRunnable ? [path] : []
        return own + command.subcommands.flatMap { runnablePaths($0, path + [$0.name]) }
    }

    @Test func everyCommandPathHasAHandlerAndEveryHandlerACommand() {
        let commands = Set(Self.runnablePaths(ClipCLI.root))
        // A binding without a command (a route alone) adds none, nor does a routed presentation (`update --where`).
        let commanded = Application.bindings.filter { $0.command != nil && !$0.commandPath.isEmpty }
        let legacy = Set(Context.handlers.keys), operations = Set(commanded.map(\.commandPath))
        let documentation = Set(ClipCLI.documentation.keys)
        let handled = legacy.union(operations).union(documentation)
        #expect(commands.count > 40)
        #expect(legacy.isDisjoint(with: operations), "a command with both a handler and an operation")
        #expect(documentation.isDisjoint(with: legacy.union(operations)), "a documentation command with another handler")
        #expect(operations.count == commanded.count, "two operations bound to one command")
        #expect(commands.subtracting(handled).map { $0.joined(separator: " ") }.sorted() == [], "commands without a handler")
        #expect(handled.subtracting(commands).map { $0.joined(separator: " ") }.sorted() == [], "handlers of no command")
    }

    /// `runnablePaths` agrees with the parser: each path parses (given its required arguments),
    /// and each command with subcommands that is not in the list asks for one.
    @Test func runnablePathsAreWhatTheParserReturns() throws {
        func visit(_ command: CommandSpec, _ path: [String]) throws {
            let arguments = path + command.positionals.filter { !$0.optional }.map { _ in "x" }
            if Self.runnablePaths(ClipCLI.root).contains(path) {
                let parsed = try ArgumentParser.parse(arguments, root: ClipCLI.root, globals: Commands.globals)
                #expect(parsed.path == path)
            } else {
                #expect(throws: ArgParseError.missingCommand(path: path)) {
                    try ArgumentParser.parse(path, root: ClipCLI.root, globals: Commands.globals)
                }
            }
            for sub in command.subcommands { try visit(sub, path + [sub.name]) }
        }
        try visit(ClipCLI.root, [])
    }

    /// A routed presentation (`Command.routed`) is reached through another command's words: `update --where` chooses
    /// the bulk route, `update ID` its own.
    @Test func everyRoutedPresentationIsChosenByACommandsWords() throws {
        let routed = Application.bindings.filter { $0.command != nil && $0.commandPath.isEmpty }
        #expect(routed.map(\.path) == [ExperienceBulkUpdate.binding.path])
        func chosen(_ arguments: [String]) throws -> String? {
            let parsed = try ArgumentParser.parse(arguments, root: ClipCLI.root, globals: Commands.globals)
            let words = CommandWords(path: parsed.path, positionals: parsed.positionals, values: parsed.values, flags: parsed.flags)
            return ExperienceUpdate.binding.commandRoute?(words)?.path
        }
        #expect(try chosen(["update", "--where", "host=ride.example", "--subtitle", "x"]) == "/v1/experiences")
        #expect(try chosen(["update", "1", "--subtitle", "x"]) == nil)
    }
}
