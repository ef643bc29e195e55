/// A roff manual page (man(7) macros) generated from the same `CommandSpec` the parser uses, so the
/// page lists exactly the commands and options `--help` shows.
public enum ManPage {
    /// The page for `root` in `section` (1 for user commands, per man-pages(7)). `date` and `source`
    /// go in the `.TH` line (man(7): title, section, date, source, manual).
    public static func roff(
        root: CommandSpec, globals: [OptionSpec], section: Int = 1, date: String, source: String, manual: String = "User Commands"
    ) -> String {
        var out = ".TH \(quoted(root.name.uppercased())) \(section) \(quoted(date, hyphens: true)) \(quoted(source)) \(quoted(manual))\n"
        out += ".SH NAME\n\(escape(root.name)) \\- \(escape(root.summary))\n"
        out += ".SH SYNOPSIS\n.B \(escape(root.name))\n.RI [ options ] \" command \" [ arguments ]\n"
        if !root.discussion.isEmpty { out += ".SH DESCRIPTION\n" + paragraphs(root.discussion) }
        if !globals.isEmpty {
            out += ".SH GLOBAL OPTIONS\nAccepted by every command.\n"
            for option in globals { out += optionItem(option) }
        }
        out += ".SH COMMANDS\n"
        for sub in root.subcommands { out += commandSection(sub, parents: [root.name]) }
        let examples = root.allCommands().flatMap(\.spec.examples)
        if !examples.isEmpty { out += ".SH EXAMPLES\n" + examples.map(exampleItem).joined(separator: ".PP\n") }
        return out
    }

    /// An explanation, then its command line in an indented example block (man-pages(7) "EXAMPLES":
    /// `.EX`/`.EE`, which groff's and mandoc's man macros both define). Items are separated by `.PP`, not
    /// opened with it: a paragraph macro right after `.SH` is one mandoc warns it skips.
    static func exampleItem(_ example: Example) -> String {
        "\(escape(example.explanation))\n.RS 4\n.EX\n\(escape(example.commandLine))\n.EE\n.RE\n"
    }

    static func commandSection(_ command: CommandSpec, parents: [String]) -> String {
        let path = parents + [command.name]
        var usage = path.map(escape).joined(separator: " ")
        if !command.subcommands.isEmpty { usage += command.positionals.isEmpty ? " \\fIcommand\\fR" : " [\\fIcommand\\fR]" }
        for p in command.positionals { usage += p.optional ? " [\\fI\(escape(p.usageName))\\fR]" : " \\fI\(escape(p.usageName))\\fR" }
        if !command.options.isEmpty { usage += " [\\fIoptions\\fR]" }
        var out = ".SS \(quoted(path.dropFirst().joined(separator: " ")))\n.B \(usage)\n.PP\n\(escape(command.summary))\n"
        if !command.discussion.isEmpty { out += ".PP\n" + paragraphs(command.discussion) }
        for p in command.positionals { out += ".TP\n.I \(escape(p.usageName))\n\(escape(p.help))\n" }
        for option in command.options { out += optionItem(option) }
        for sub in command.subcommands { out += commandSection(sub, parents: path) }
        return out
    }

    static func optionItem(_ option: OptionSpec) -> String {
        var label = option.short.map { "\\fB\\-\(escape(String($0)))\\fR, " } ?? ""
        label += "\\fB\\-\\-\(escape(option.name))\\fR"
        if let value = option.valueName { label += " \\fI\(escape(value))\\fR" }
        return ".TP\n\(label)\n\(escape(option.help))\(option.repeatable ? " (repeatable)" : "")\n"
    }

    static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { escape(String($0)) }.joined(separator: "\n.PP\n") + "\n"
    }

    /// Text safe on a roff text line (groff(7)): the escape character as `\e`, `-` as `\-` (a minus, so
    /// options can be searched and copied), a line break as a space, anything beyond ASCII as `\[uXXXX]`
    /// (groff_char(7): 4 to 6 upper-case hex digits, so the page needs no input encoding), and a leading
    /// `.` or `'` (a control line) shielded with `\&`.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n", "\r", "\t": out += " "
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: break
            case _ where scalar.value > 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    /// A macro argument in double quotes (groff(7): a `"` inside is written `\(dq`). `hyphens` keeps `-` a
    /// hyphen: mandoc reads the `.TH` date `2026-01-02` as a date, but `2026\-01\-02` only as text.
    static func quoted(_ text: String, hyphens: Bool = false) -> String {
        let escaped = escape(text)
        return "\"" + (hyphens ? escaped.replacing("\\-", with: "-") : escaped).replacingAll("\"", with: "\\(dq") + "\""
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
