import Testing
@testable import ArgParse

struct ParserTests {
    static let root = CommandSpec(
        "tool", summary: "a tool",
        subcommands: [
            CommandSpec(
                "get", summary: "get",
                positionals: [PositionalSpec("ID", help: "id"), PositionalSpec("MORE", help: "more", optional: true)],
                options: [
                    .option("format", short: "f", value: "F", help: "format"), .flag("explain", help: "explain"),
                    .option("tag", value: "T", help: "tag", repeatable: true),
                ]),
            CommandSpec(
                "group", summary: "group", subcommands: [CommandSpec("add", summary: "add", positionals: [PositionalSpec("X", help: "x")])]),
        ])
    static let globals: [OptionSpec] = [.option("db", value: "PATH", help: "db"), .flag("json", help: "json")]

    func parse(_ args: [String]) throws(ArgParseError) -> ParsedCommand {
        try ArgumentParser.parse(args, root: Self.root, globals: Self.globals)
    }

    @Test func parsesOptionSpellingsFlagsAndGlobalsAnywhere() throws {
        let p = try parse(["--db", "x.db", "get", "42", "--format=csv", "--explain", "--tag", "a", "--tag", "b", "--json"])
        #expect(p.path == ["get"])
        #expect(p.positionals == ["42"])
        #expect(p.value("format") == "csv")
        #expect(p.all("tag") == ["a", "b"])
        #expect(p.flag("explain") && p.flag("json"))
        #expect(p.value("db") == "x.db")
        #expect(try parse(["get", "-f", "ndjson", "1"]).value("format") == "ndjson")
        #expect(try parse(["get", "-fcsv", "1"]).value("format") == "csv")
    }

    @Test func doubleDashEndsOptionsAndDashIsAPositional() throws {
        #expect(try parse(["get", "--", "--not-an-option"]).positionals == ["--not-an-option"])
        #expect(try parse(["get", "-"]).positionals == ["-"])
        #expect(try parse(["get", "1", "2"]).positionals == ["1", "2"])
    }

    @Test func nestedSubcommands() throws {
        #expect(try parse(["group", "add", "x"]).path == ["group", "add"])
    }

    @Test(arguments: [
        (["get"], ArgParseError.missingArgument("ID", path: ["get"])),
        (["get", "1", "2", "3"], .unexpectedArgument("3", path: ["get"])),
        (["get", "1", "--nope"], .unknownOption("--nope", path: ["get"])),
        (["get", "1", "--format"], .missingValue("format", path: ["get"])),
        (["get", "1", "--explain=yes"], .unexpectedValue("explain", path: ["get"])),
        (["get", "1", "--format", "a", "--format", "b"], .repeatedOption("format", path: ["get"])),
        (["nope"], .unknownCommand("nope", path: [])),
        ([], .missingCommand(path: [])),
        (["group"], .missingCommand(path: ["group"])),
        (["group", "add", "--help"], .helpRequested(path: ["group", "add"])),
        (["help"], .helpRequested(path: [])),
    ])
    func reportsUsageErrors(_ args: [String], _ expected: ArgParseError) {
        #expect(throws: expected) { try parse(args) }
    }

    @Test func helpListsEverythingFromTheSpec() {
        let help = HelpFormatter.help(for: ["get"], root: Self.root, globals: Self.globals)
        #expect(help.contains("USAGE: tool get ID [MORE] [options]"))
        #expect(help.contains("-f, --format F"))
        #expect(help.contains("--tag T") && help.contains("(repeatable)"))
        #expect(help.contains("--db PATH"))
        let top = HelpFormatter.help(for: [], root: Self.root, globals: Self.globals)
        #expect(top.contains("COMMANDS:") && top.contains("group"))
    }
}
