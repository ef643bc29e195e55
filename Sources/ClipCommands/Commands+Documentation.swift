import ArgParse

/// The commands that print clipctl's own documentation, all generated from its command tree: help,
/// the clipctl(1) manual page, and the shell completion scripts (docs/cli.md).
extension Commands {
    static let help = CommandSpec(
        "help", summary: "show the help of clipctl or of a command, or print the manual page",
        discussion: """
            'clipctl help COMMAND [SUBCOMMAND …]' prints what 'clipctl COMMAND [SUBCOMMAND …] --help' prints.
            With --man it prints the clipctl(1) manual page as roff, the page the Debian package installs; read it with:
                clipctl help --man | man -l -
            """,
        positionals: [
            PositionalSpec("COMMAND", help: "a command, such as domain", optional: true),
            PositionalSpec("SUBCOMMAND", help: "one of its subcommands, such as add", optional: true),
            PositionalSpec("SUBCOMMAND", help: "one of that one's, such as plan in asc testflight plan", optional: true),
        ],
        options: [.flag("man", help: "print the manual page (roff) instead")],
        examples: [
            Example("clipctl help domain add", "Show the help of 'domain add', as 'clipctl domain add --help' does"),
            Example("clipctl help --man", "Print the manual page; pipe it to 'man -l -' to read it"),
        ])

    /// How each shell loads a completion script a user saved by hand; the lines are the ones docs/cli.md gives.
    static let completionInstall: [(shell: String, install: String)] = [
        (
            "bash",
            """
            Load it in each new shell with this line in ~/.bashrc:
                source <(clipctl completion bash)
            or, with the bash-completion package, save it where that package finds it when clipctl is first completed:
                mkdir -p ~/.local/share/bash-completion/completions
                clipctl completion bash > ~/.local/share/bash-completion/completions/clipctl
            """
        ),
        (
            "zsh",
            """
            Save it as _clipctl in a directory of $fpath:
                mkdir -p ~/.zfunc
                clipctl completion zsh > ~/.zfunc/_clipctl
            and in ~/.zshrc, before compinit runs, add that directory:
                fpath=(~/.zfunc $fpath)
                autoload -Uz compinit && compinit
            """
        ),
        (
            "fish",
            """
            Save it where fish looks for completions; fish loads it when clipctl is first completed:
                mkdir -p ~/.config/fish/completions
                clipctl completion fish > ~/.config/fish/completions/clipctl.fish
            """
        ),
    ]

    static let completion = CommandSpec(
        "completion", summary: "print the shell completion script for bash, zsh or fish",
        discussion: """
            The script completes commands, options and file names from the same command tree as the parser. \
            'clipctl completion SHELL --help' says how to install it for that shell; the Debian package installs all three.
            """,
        subcommands: completionInstall.map { shell, install in
            CommandSpec(
                shell, summary: "print the \(shell) completion script", discussion: install,
                examples: [Example("clipctl completion \(shell)", "Print the \(shell) completion script to standard output")])
        })
}
