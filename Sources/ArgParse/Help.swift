/// Help text generated from the same `CommandSpec` the parser uses.
public enum HelpFormatter {
    public static func help(for path: [String], root: CommandSpec, globals: [OptionSpec]) -> String {
        let command = ArgumentParser.command(at: path, in: root)
        let fullName = ([root.name] + path).joined(separator: " ")
        var out = "\(fullName): \(command.summary)\n\n"
        var usage = "USAGE: \(fullName)"
        if !command.subcommands.isEmpty { usage += command.positionals.isEmpty && !command.runsAlone ? " <command>" : " [<command>]" }
        for p in command.positionals { usage += p.optional ? " [\(p.usageName)]" : " \(p.usageName)" }
        if !command.options.isEmpty || !globals.isEmpty { usage += " [options]" }
        out += usage + "\n"
        if !command.discussion.isEmpty { out += "\n" + command.discussion + "\n" }
        if !command.subcommands.isEmpty {
            out += "\nCOMMANDS:\n"
            let width = command.subcommands.map(\.name.count).max() ?? 0
            for sub in command.subcommands {
                out += "  \(sub.name.padding(width))  \(sub.summary)\n"
            }
        }
        if !command.positionals.isEmpty {
            out += "\nARGUMENTS:\n"
            let width = command.positionals.map(\.name.count).max() ?? 0
            for p in command.positionals { out += "  \(p.name.padding(width))  \(p.help)\n" }
        }
        func optionLines(_ options: [OptionSpec]) -> String {
            let labels = options.map { o in
                (o.short.map { "-\($0), " } ?? "    ") + "--\(o.name)" + (o.valueName.map { " \($0)" } ?? "")
            }
            let width = labels.map(\.count).max() ?? 0
            return zip(labels, options).map { "  \($0.padding(width))  \($1.help)\($1.repeatable ? " (repeatable)" : "")\n" }.joined()
        }
        if !command.options.isEmpty { out += "\nOPTIONS:\n" + optionLines(command.options) }
        if !globals.isEmpty { out += "\nGLOBAL OPTIONS:\n" + optionLines(globals) }
        if !command.examples.isEmpty { out += "\nEXAMPLES:\n" + examples(command.examples) }
        if !command.subcommands.isEmpty { out += "\nSee '\(fullName) <command> --help' for a command's options.\n" }
        return out
    }

    /// Each example as a shell comment over its command line, so a line can be copied as it is.
    static func examples(_ examples: [Example]) -> String {
        examples.map { "  # \($0.explanation)\n  \($0.commandLine)\n" }.joined(separator: "\n")
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
