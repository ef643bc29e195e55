import ArgParse

extension Commands {
    static let testflightOptions: [OptionSpec] = [
        .option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip with invocations chosen)"),
        .option(
            "build", value: "VERSION|ID", help: "the build: its version (CFBundleVersion) or App Store Connect id (default: the newest)"),
    ]

    /// `clipctl asc`: syncing experiences with App Store Connect.
    static let appStoreConnect = CommandSpec(
        "asc", summary: "sync experiences with App Store Connect: link, pull, plan, apply, status",
        discussion: """
            Credentials: --key-id, --issuer-id, --private-key FILE (a .p8), or ASC_KEY_ID, ASC_ISSUER_ID, \
            ASC_PRIVATE_KEY_PATH or ASC_PRIVATE_KEY (the PEM itself). --asc-url or ASC_API_URL points elsewhere \
            (default https://api.appstoreconnect.apple.com). The key is never stored or printed. \
            With --server, plan, status and apply run on the server (started with a key), with an admin token.
            """,
        subcommands: [
            CommandSpec(
                "link", summary: "find a clip's app and App Clip in App Store Connect by bundle ID and remember their ids",
                positionals: [PositionalSpec("CLIP", help: "the clip's App ID (TEAMID.BUNDLE) or bundle ID")], options: ascOptions,
                examples: [
                    Example(
                        "clipctl asc link ABCDE12345.com.example.bikes.Clip --key-id 2X9R4HXF34 --issuer-id 57246542-96fe-1a63-e053-0824d011072a --private-key AuthKey_2X9R4HXF34.p8",
                        "Find the clip in App Store Connect (the key may come from ASC_ environment variables instead)")
                ]),
            CommandSpec(
                "pull", summary: "adopt what App Store Connect has: experiences, cards, place, header images",
                discussion: """
                    Experiences here are matched by the id of their last push, then by URL. Where both sides differ, \
                    nothing is overwritten (exit 2) unless --prefer says which side wins.
                    """,
                options: [
                    .option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip)"),
                    .option("prefer", value: "asc|registry", help: "where both differ: take App Store Connect's or keep ours"),
                ] + ascOptions,
                examples: [
                    Example(
                        "clipctl asc pull --clip ABCDE12345.com.example.bikes.Clip --prefer registry",
                        "Adopt what App Store Connect has for a clip, keeping ours where both differ")
                ]),
            CommandSpec(
                "plan", summary: "what an apply would change in App Store Connect, and why, per experience",
                discussion: "Exits 0; with --detailed-exitcode 0 when in sync and 2 when changes are pending.",
                options: [
                    .option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip)"),
                    .flag("prune", help: "also remove experiences only App Store Connect has"),
                    .flag("detailed-exitcode", help: "exit 2 when changes are pending"),
                ] + ascOptions,
                examples: [
                    Example("clipctl asc plan --detailed-exitcode", "Show what an apply would change; exit 2 when something would")
                ]),
            CommandSpec(
                "apply", summary: "make App Store Connect hold the registry's experiences (idempotent, resumable)",
                discussion: """
                    Without --yes it shows the plan and sends nothing. Steps App Store Connect would refuse stop it \
                    before anything is sent. An interrupted apply is finished by the next one, without duplicates.
                    """,
                options: [
                    .option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip)"),
                    .flag("prune", help: "also remove experiences only App Store Connect has"),
                    .flag("yes", help: "send the changes"),
                    .option(
                        "rate-reserve", value: "N",
                        help: "requests of the key's hourly limit left to other tools; stop (resumable) below it (default 100)"),
                ] + ascOptions,
                examples: [Example("clipctl asc apply --yes", "Send the registry's experiences to App Store Connect")]),
            CommandSpec(
                "testflight", summary: "the URLs each build's App Clip offers testers in TestFlight: set, show, plan, apply",
                discussion: """
                    set and show choose them (on the database, or with --server and a token); plan and apply make a \
                    build's App Clip offer them (the newest build unless --build names one).
                    """,
                subcommands: [
                    CommandSpec(
                        "plan", summary: "what apply would change in a build's App Clip invocations",
                        discussion: "Exits 0; with --detailed-exitcode 0 when in sync and 2 when changes are pending.",
                        options: testflightOptions + [.flag("detailed-exitcode", help: "exit 2 when changes are pending")] + ascOptions,
                        examples: [Example("clipctl asc testflight plan", "What the newest build's App Clip would be given")]),
                    CommandSpec(
                        "apply", summary: "make a build's App Clip offer the chosen invocations (idempotent, resumable)",
                        discussion: "Without --yes it shows the plan and sends nothing.",
                        options: testflightOptions + [.flag("yes", help: "send the changes")] + ascOptions,
                        examples: [
                            Example(
                                "clipctl asc testflight apply --build 1.4 --yes",
                                "In a release pipeline, after the upload: give build 1.4's App Clip its TestFlight invocations")
                        ]),
                ]),
            CommandSpec(
                "status", summary: "per experience: in sync, pending or drifted, with App Store Connect's ids and states",
                options: [.option("clip", value: "CLIP", help: "only this linked clip (default: every linked clip)")] + ascOptions,
                examples: [
                    Example(
                        "clipctl asc status --clip ABCDE12345.com.example.bikes.Clip",
                        "Which experiences are in sync, pending or drifted")
                ]),
        ])
}
