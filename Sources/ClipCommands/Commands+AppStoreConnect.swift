import ArgParse

extension Commands {
    /// `clipctl asc`: syncing experiences with App Store Connect.
    static let appStoreConnect = CommandSpec(
        "asc", summary: "sync experiences with App Store Connect: link, pull, plan, apply, status",
        discussion: """
            Credentials: --key-id, --issuer-id, --private-key FILE (a .p8), or ASC_KEY_ID, ASC_ISSUER_ID, \
            ASC_PRIVATE_KEY_PATH or ASC_PRIVATE_KEY (the PEM itself). --asc-url or ASC_API_URL points elsewhere \
            (default https://api.appstoreconnect.apple.com). The key is never stored or printed. \
            With --server, plan, status, apply and testflight plan|apply run on the server (started with a key), with an admin token.
            """,
        // Each subcommand is an operation's (ClipApp/Features/AppStoreConnectSync.swift, AppStoreConnectLinkPull.swift,
        // TestFlightPush.swift, TestFlightInvocations.swift): these names place them in help's order.
        subcommands: [
            placeholder("link"), placeholder("pull"), placeholder("plan"), placeholder("apply"),
            CommandSpec(
                "testflight", summary: "the URLs each build's App Clip offers testers in TestFlight: set, show, plan, apply",
                discussion: """
                    set and show choose them (on the database, or with --server and a token); plan and apply make a \
                    build's App Clip offer them (the newest build unless --build names one).
                    """,
                subcommands: [placeholder("plan"), placeholder("apply")]),
            placeholder("status"),
        ])

    /// Where an operation's command takes its place (`ClipCLI.root`).
    static func placeholder(_ name: String) -> CommandSpec { CommandSpec(name, summary: "") }
}
