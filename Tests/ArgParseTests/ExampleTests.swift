import Foundation
import Testing

@testable import ArgParse

/// Examples: read into words as a POSIX shell reads them (checked against bash itself), shown under
/// EXAMPLES in help and in the man page.
struct ExampleTests {
    static let accepted: [(line: String, words: [String])] = [
        ("tool get 42 --format csv", ["tool", "get", "42", "--format", "csv"]),
        ("tool  get\t'Rent a bike'", ["tool", "get", "Rent a bike"]),
        ("tool get 'FR=Louer un vélo|En quelques secondes'", ["tool", "get", "FR=Louer un vélo|En quelques secondes"]),
        (
            "tool get '[{\"/\":\"/rent/*\"}]' 'https://x.example/a?b=1&c=2'",
            ["tool", "get", "[{\"/\":\"/rent/*\"}]", "https://x.example/a?b=1&c=2"]
        ),
        ("tool get \"say \\\"hi\\\" \\\\ \\x\"", ["tool", "get", "say \"hi\" \\ \\x"]),
        ("tool get a'b'\"c\"d '' \"\"", ["tool", "get", "abcd", "", ""]),
        ("tool get b\\ c d\\'e", ["tool", "get", "b c", "d'e"]),
        ("tool get a#b c~d e=f,g", ["tool", "get", "a#b", "c~d", "e=f,g"]),
        ("tool get zero\u{200B}width ≤", ["tool", "get", "zero\u{200B}width", "≤"]),
    ]
    /// Lines a shell would not pass as plain words: an open quote, an expansion, an operator, a comment.
    static let refused = [
        "tool get 'open", "tool get \"open", "tool get \"$HOME\"", "tool get \"`id`\"", "tool get $(touch /tmp/pwned)", "tool get `id`",
        "tool get a | cat", "tool get > out", "tool get < in", "tool get a; b", "tool get a & b", "tool get (a)", "tool get ~/x",
        "tool get *.csv", "tool get a?b", "tool get [ab]", "tool get {a,b}", "tool get # comment", "tool get a\\", "tool get a\nb",
        "tool get a\\\nb",
    ]

    @Test func wordsAreWhatAShellPasses() {
        for (line, words) in Self.accepted { #expect(Example(line, "x").words == words, "\(line)") }
        for line in Self.refused { #expect(Example(line, "x").words == nil, "\(line)") }
    }

    /// bash, given each accepted line after `printf '%s\0'`, passes exactly the words `words` gives.
    @Test(.enabled(if: DocumentationGeneratorTests.tool("bash") != nil)) func bashAgreesOnEveryAcceptedLine() throws {
        for (line, words) in Self.accepted {
            let result = try DocumentationGeneratorTests.run(DocumentationGeneratorTests.tool("bash")!, ["-c", "printf '%s\\0' " + line])
            #expect(result.status == 0)
            #expect(result.out.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init) == words, "\(line)")
        }
    }

    static let root = CommandSpec(
        "tool", summary: "a tool",
        subcommands: [
            CommandSpec(
                "get", summary: "get", positionals: [PositionalSpec("ID", help: "id")],
                examples: [
                    Example("tool get 42", "Get item 42"),
                    Example(".tool get '\\fB-x' --db=a", "'A line a renderer could misread: a dot, a quote, \\fB, minus ≤"),
                ])
        ])

    @Test func helpListsExamplesLastAsCommentedCommandLines() {
        let help = HelpFormatter.help(for: ["get"], root: Self.root, globals: [.flag("json", help: "json")])
        #expect(
            help.hasSuffix(
                """
                GLOBAL OPTIONS:
                      --json  json

                EXAMPLES:
                  # Get item 42
                  tool get 42

                  # 'A line a renderer could misread: a dot, a quote, \\fB, minus ≤
                  .tool get '\\fB-x' --db=a

                """))
        #expect(!HelpFormatter.help(for: [], root: Self.root, globals: []).contains("EXAMPLES"), "the root has none")
    }

    @Test func theManPageHasAnExamplesSectionAfterTheCommands() {
        let page = ManPage.roff(root: Self.root, globals: [], date: "2026-01-02", source: "tool 1.0")
        #expect(page.hasPrefix(".TH \"TOOL\" 1 \"2026-01-02\" \"tool 1.0\" \"User Commands\"\n"), "a date mandoc can read")
        #expect(
            page.hasSuffix(
                """
                .SH EXAMPLES
                Get item 42
                .RS 4
                .EX
                tool get 42
                .EE
                .RE
                .PP
                \\&'A line a renderer could misread: a dot, a quote, \\efB, minus \\[u2264]
                .RS 4
                .EX
                \\&.tool get '\\efB\\-x' \\-\\-db=a
                .EE
                .RE

                """))
        #expect(!ManPage.roff(root: CommandSpec("tool", summary: "s"), globals: [], date: "", source: "").contains(".SH EXAMPLES"))
    }

    /// groff shows each example's command line as written, and warns about nothing.
    @Test(.enabled(if: DocumentationGeneratorTests.tool("groff") != nil)) func groffShowsExampleLinesAsWritten() throws {
        let page = ManPage.roff(root: Self.root, globals: [], date: "2026-01-02", source: "tool 1.0")
        let rendered = try DocumentationGeneratorTests.run(
            DocumentationGeneratorTests.tool("groff")!, ["-man", "-Tutf8", "-ww", "-P-cbou"], input: page)
        #expect(rendered.status == 0)
        #expect(rendered.err == "", "groff warnings")
        #expect(rendered.out.contains("\n           .tool get '\\fB-x' --db=a\n"), "\(rendered.out)")
        #expect(rendered.out.contains("'A line a renderer could misread: a dot, a quote, \\fB, minus ≤"))
    }

    /// mandoc's linter finds nothing at warning level or worse (its style notes, such as long input lines, aside).
    @Test(.enabled(if: DocumentationGeneratorTests.tool("mandoc") != nil)) func mandocLintsTheHostilePageClean() throws {
        let mandoc = DocumentationGeneratorTests.tool("mandoc")!
        for date in ["2026-01-02"] {
            for (root, globals) in [(DocumentationGeneratorTests.root, DocumentationGeneratorTests.globals), (Self.root, [])] {
                let page = ManPage.roff(root: root, globals: globals, date: date, source: "tool 1.0")
                let lint = try DocumentationGeneratorTests.run(mandoc, ["-Tlint", "-W", "warning"], input: page)
                #expect(lint.out + lint.err == "", "date '\(date)'")
            }
        }
    }
}
