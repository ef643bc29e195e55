/// Shell completion scripts for bash, zsh and fish generated from the same `CommandSpec` the parser
/// uses. Each script walks the words typed so far the way `ArgumentParser` does (a word naming a
/// subcommand descends, an option taking a value consumes the next word), then offers the current
/// command's subcommands and options, and files for an option's value.
public enum ShellCompletion {
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    public static func script(for shell: Shell, root: CommandSpec, globals: [OptionSpec]) -> String {
        let tree = Tree(root: root, globals: globals)
        switch shell {
        case .bash: return bash(tree)
        case .zsh: return zsh(tree)
        case .fish: return fish(tree)
        }
    }

    /// Every command with its path below the root, as the words that reach it (`["domain", "add"]`).
    struct Tree {
        let program: String
        let commands: [(path: [String], spec: CommandSpec)]
        let globals: [OptionSpec]
        /// Function names are built from the program name: only letters, digits and `_` survive.
        var function: String { "_" + String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" }) }

        init(root: CommandSpec, globals: [OptionSpec]) {
            var all: [(path: [String], spec: CommandSpec)] = []
            func walk(_ spec: CommandSpec, _ path: [String]) {
                all.append((path, spec))
                for sub in spec.subcommands { walk(sub, path + [sub.name]) }
            }
            walk(root, [])
            program = root.name
            commands = all
            self.globals = globals
        }

        /// `" domain add"`: the key scripts compare against (empty for the root).
        static func key(_ path: [String]) -> String { path.map { " " + $0 }.joined() }
    }

    // MARK: bash (bash(1) "Programmable Completion": COMP_WORDS, COMP_CWORD, COMPREPLY, compgen, complete -F)

    static func bash(_ tree: Tree) -> String {
        let f = tree.function
        let globalValued = tree.globals.filter { !$0.isFlag }.flatMap(spellings)
        var out = """
            # bash completion for \(tree.program); generated from its command tree.
            \(f)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path="" word i skip=0
                if [ "$COMP_CWORD" -gt 0 ]; then prev="${COMP_WORDS[COMP_CWORD-1]}"; fi
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    if [ "$skip" = 1 ]; then skip=0; continue; fi
                    case "$word" in
                    --) break ;;
                    --*=*) ;;
                    -*) if \(f)_valued "$path" "$word"; then skip=1; fi ;;
                    *) if \(f)_is_command "$path $word"; then path="$path $word"; fi ;;
                    esac
                done
                if [ "$skip" = 1 ] && \(f)_valued "$path" "$prev"; then
                    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                    return 0
                fi
                local words=""
                case "$path" in

            """
        for (path, spec) in tree.commands {
            let words = spec.subcommands.map(\.name) + (spec.options + tree.globals).flatMap(spellings)
            out += "        \(shellQuoted(Tree.key(path)))) words=\(shellQuoted(words.joined(separator: " "))) ;;\n"
        }
        out += """
                esac
                mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
            }
            # Whether "$1" (a path such as " domain add") names a command.
            \(f)_is_command() {
                case "$1" in

            """
        out += "        " + tree.commands.dropFirst().map { shellQuoted(Tree.key($0.path)) }.joined(separator: "|") + ") return 0 ;;\n"
        out += """
                esac
                return 1
            }
            # Whether option "$2" of the command at path "$1" takes a value (the next word).
            \(f)_valued() {
                case "$2" in

            """
        if !globalValued.isEmpty { out += "        " + globalValued.map(shellQuoted).joined(separator: "|") + ") return 0 ;;\n" }
        out += "    esac\n    case \"$1 $2\" in\n"
        let valued = tree.commands.flatMap { command in
            command.spec.options.filter { !$0.isFlag }.flatMap(spellings).map { Tree.key(command.path) + " " + $0 }
        }
        if !valued.isEmpty { out += "        " + valued.map(shellQuoted).joined(separator: "|") + ") return 0 ;;\n" }
        out += """
                esac
                return 1
            }
            complete -o default -F \(f) \(tree.program)

            """
        return out
    }

    // MARK: zsh (zshcompsys(1): #compdef, $words, $CURRENT, _describe, _files)

    static func zsh(_ tree: Tree) -> String {
        let f = tree.function
        var out = """
            #compdef \(tree.program)
            # zsh completion for \(tree.program); generated from its command tree.
            \(f)() {
                local path_key="" word skip=0 i
                local -a described
                for ((i = 2; i < CURRENT; i++)); do
                    word="${words[i]}"
                    if [[ $skip == 1 ]]; then skip=0; continue; fi
                    case "$word" in
                    --) break ;;
                    --*=*) ;;
                    -*) if \(f)_valued "$path_key" "$word"; then skip=1; fi ;;
                    *) if \(f)_is_command "$path_key $word"; then path_key="$path_key $word"; fi ;;
                    esac
                done
                if [[ $skip == 1 ]]; then
                    _files
                    return
                fi
                case "$path_key" in

            """
        for (path, spec) in tree.commands {
            let subs = spec.subcommands.map { zshDescribed($0.name, $0.summary) }
            let options = (spec.options + tree.globals).flatMap { o in spellings(o).map { zshDescribed($0, o.help) } }
            out += "    \(shellQuoted(Tree.key(path))))\n"
            if !subs.isEmpty {
                out += "        described=(\(subs.joined(separator: " ")))\n        _describe -t commands command described\n"
            }
            out += "        described=(\(options.joined(separator: " ")))\n        _describe -t options option described\n        ;;\n"
        }
        out += """
                esac
            }
            \(f)_is_command() {
                case "$1" in

            """
        out += "    " + tree.commands.dropFirst().map { shellQuoted(Tree.key($0.path)) }.joined(separator: "|") + ") return 0 ;;\n"
        out += "    esac\n    return 1\n}\n\(f)_valued() {\n    case \"$2\" in\n"
        let globalValued = tree.globals.filter { !$0.isFlag }.flatMap(spellings)
        if !globalValued.isEmpty { out += "    " + globalValued.map(shellQuoted).joined(separator: "|") + ") return 0 ;;\n" }
        out += "    esac\n    case \"$1 $2\" in\n"
        let valued = tree.commands.flatMap { command in
            command.spec.options.filter { !$0.isFlag }.flatMap(spellings).map { Tree.key(command.path) + " " + $0 }
        }
        if !valued.isEmpty { out += "    " + valued.map(shellQuoted).joined(separator: "|") + ") return 0 ;;\n" }
        out += "    esac\n    return 1\n}\n\(f) \"$@\"\n"
        return out
    }

    /// A `_describe` entry `name:description`, a `:` in the name written `\:` (zshcompsys(1)).
    static func zshDescribed(_ name: String, _ description: String) -> String {
        shellQuoted(name.replacingAll(":", with: "\\:") + ":" + oneLine(description))
    }

    // MARK: fish (fish's `complete` builtin: -c, -n condition, -a, -l, -s, -r, -d, -f)

    static func fish(_ tree: Tree) -> String {
        let f = "__fish" + tree.function
        let valuedKeys =
            tree.globals.filter { !$0.isFlag }.flatMap(spellings)
            + tree.commands.flatMap { command in
                command.spec.options.filter { !$0.isFlag }.flatMap(spellings).map { Tree.key(command.path) + " " + $0 }
            }
        var out = """
            # fish completion for \(tree.program); generated from its command tree.
            set -g \(f)_commands \(tree.commands.dropFirst().map { fishQuoted(Tree.key($0.path)) }.joined(separator: " "))
            set -g \(f)_valued \(valuedKeys.map(fishQuoted).joined(separator: " "))
            # The command path typed so far, such as " domain add".
            function \(f)_path
                set -l path ''
                set -l skip 0
                for word in (commandline -opc)[2..-1]
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    switch $word
                        case '--'
                            break
                        case '--*=*'
                        case '-*'
                            if contains -- $word $\(f)_valued; or contains -- "$path $word" $\(f)_valued
                                set skip 1
                            end
                        case '*'
                            if contains -- "$path $word" $\(f)_commands
                                set path "$path $word"
                            end
                    end
                end
                echo $path
            end
            function \(f)_at
                set -l path (\(f)_path)
                test "$path" = "$argv[1]"
            end
            complete -c \(tree.program) -f

            """
        for option in tree.globals { out += "complete -c \(tree.program)" + fishOption(option) + "\n" }
        for (path, spec) in tree.commands {
            let condition = " -n " + fishQuoted("\(f)_at " + fishQuoted(Tree.key(path)))
            for sub in spec.subcommands {
                out += "complete -c \(tree.program)\(condition) -a \(fishQuoted(sub.name)) -d \(fishQuoted(oneLine(sub.summary)))\n"
            }
            for option in spec.options { out += "complete -c \(tree.program)\(condition)" + fishOption(option) + "\n" }
        }
        return out
    }

    static func fishOption(_ option: OptionSpec) -> String {
        var out = " -l \(fishQuoted(option.name))"
        if let short = option.short { out += " -s \(fishQuoted(String(short)))" }
        if !option.isFlag { out += " -r -F" }
        return out + " -d \(fishQuoted(oneLine(option.help)))"
    }

    // MARK: shared

    static func spellings(_ option: OptionSpec) -> [String] {
        ["--" + option.name] + (option.short.map { ["-" + String($0)] } ?? [])
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }

    /// A POSIX shell word in single quotes: nothing inside is special, a `'` is written `'\''`
    /// (POSIX.1-2017 XCU §2.2.2).
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    /// A fish word in single quotes: only `\` and `'` are escaped (fish documentation, "Quotes").
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }
}
