public import ArgParse

/// The grammar of `clipctl` (docs/application-layer.md#clipctl). Help is generated from it.
public enum Commands {
    public static let globals: [OptionSpec] = [
        .option("db", value: "PATH", help: "SQLite database file (env CLIP_DB; default ./clips.db, created and migrated on first use)"),
        .option("server", value: "URL", help: "use a running server's API instead of a database (env CLIP_SERVER)"),
        .option("token", value: "TOKEN", help: "bearer token for --server (env CLIP_TOKEN)"),
        .flag("json", help: "machine-readable JSON output"),
        .flag("help", short: "h", help: "show help"),
    ]

    static let ascOptions: [OptionSpec] = [
        .option("key-id", value: "ID", help: "App Store Connect API key ID (env ASC_KEY_ID)"),
        .option("issuer-id", value: "UUID", help: "the key's issuer ID (env ASC_ISSUER_ID)"),
        .option("private-key", value: "FILE", help: "the key's .p8 file (env ASC_PRIVATE_KEY_PATH, or ASC_PRIVATE_KEY with the PEM)"),
        .option("asc-url", value: "URL", help: "App Store Connect API base URL (env ASC_API_URL)"),
    ]

    public static let root = CommandSpec(
        "clipctl", summary: "the Clip Registry command-line tool",
        discussion: """
            Stores App Clip experiences in SQLite, resolves invocation URLs, and writes AASA files and Smart App Banner tags.
            Exit codes: 0 ok, 1 failure (not found, no match), 64 usage error, 65 invalid input, 69 server unreachable.
            'clipctl --version' prints the version and the git commit it was built from.
            'clipctl help COMMAND' shows a command's help, 'clipctl help --man' the manual page, \
            and 'clipctl completion bash|zsh|fish' prints a shell completion script.
            """,
        subcommands: [
            // The experience commands, declared with their operations (ClipApp/Features/Experiences+Commands.swift);
            // named here for the help order.
            CommandSpec("register", summary: ""),
            CommandSpec("list", summary: ""),
            CommandSpec("show", summary: ""),
            CommandSpec("update", summary: ""),
            CommandSpec("deactivate", summary: ""),
            CommandSpec("activate", summary: ""),
            CommandSpec("remove", summary: ""),
            CommandSpec("resolve", summary: ""),
            // `aasa HOST` is an operation (ClipApp/Features/HostAASA.swift); check and lint are its subcommands.
            CommandSpec(
                "aasa", summary: "",
                subcommands: [
                    CommandSpec(
                        "check", summary: "does an AASA file give this URL to this app? (match, exclude or no_match)",
                        discussion:
                            "Evaluates the registry's AASA for the URL's host, or a file. Exits 0 on match, 1 otherwise, like grep.",
                        positionals: [PositionalSpec("URL", help: "the URL to decide")],
                        options: [
                            .option("app", value: "TEAMID.BUNDLE", help: "the app's App ID (required)"),
                            .option(
                                "file", value: "FILE", help: "an AASA file to evaluate instead of the registry's (- for standard input)"),
                        ],
                        examples: [
                            Example(
                                "clipctl aasa check https://bikesrental.example/rent/paris --app ABCDE12345.com.example.bikes",
                                "Does the host's AASA open this URL in the full app?"),
                            Example(
                                "clipctl aasa check https://bikesrental.example/rent --app ABCDE12345.com.example.bikes --file apple-app-site-association",
                                "The same question asked of a downloaded file"),
                        ]),
                    CommandSpec(
                        "lint", summary: "report the problems of an AASA file, each with a stable code (AASA###)",
                        discussion: "Exits 1 when any problem is an error.",
                        positionals: [PositionalSpec("FILE|HOST", help: "a file (- for standard input), or a host of the registry")],
                        examples: [Example("clipctl aasa lint apple-app-site-association", "Report the problems of a downloaded AASA file")]
                    ),
                ]),
            CommandSpec("preview", summary: ""),
            CommandSpec("banner", summary: ""),
            CommandSpec("import", summary: ""),
            CommandSpec("export", summary: ""),
            CommandSpec("app", summary: "manage full apps"),
            CommandSpec("clip", summary: "manage App Clips"),
            CommandSpec("domain", summary: "manage domain associations (appclips hosts)"),
            CommandSpec("default", summary: "manage default experiences"),
            CommandSpec("applinks", summary: "manage the applinks section of a host's AASA"),
            CommandSpec(
                "doctor", summary: "cross-check the registry and say how to fix what is wrong",
                discussion:
                    "Checks host associations, each host's AASA (lint, size headroom, generated applinks), banner clips, App Clip Code URL rules, card text against the older 18/43 guidance, default experiences, App Store IDs and localization sets; for clips linked to App Store Connect, with a key, drift and pending changes there (on the database only). With --server, the same checks over the server's registry (GET /v1/bulk), in the token's scope. Exits 1 when any finding is an error.",
                options: [
                    .option("host", value: "HOST", help: "only what touches this host"),
                    .flag("all", help: "every finding on its own lines (a rule with many prints a few and its count)"),
                    .option("fixes", value: "FILE", help: "write every finding's fix to FILE (a new file), one command a line"),
                    .flag("acknowledged", help: "list the acknowledged rules, each with the findings it quiets"),
                ] + ascOptions,
                examples: [
                    Example("clipctl doctor --host bikesrental.example", "Check everything that touches one host, and say how to fix it"),
                    Example("clipctl doctor --acknowledged", "List the acknowledged rules and the findings each keeps quiet"),
                ], runsAlone: true),
            CommandSpec(
                "publish", summary: "write every AASA file, banner snippets, an index and an nginx sample to a directory",
                discussion:
                    "Writes DIR/<host>/.well-known/apple-app-site-association per host, DIR/<host>/banners/<id>.html per experience served at --at (default now; or by page path, --banner-names path), DIR/index.json (sizes and SHA-256 of every file) and DIR/nginx.conf.sample. The same data gives the same bytes. DIR is replaced as a whole in one rename; an existing DIR must be empty or an earlier publish. With --server, everything is read from the server (GET /v1/bulk) before DIR is touched.",
                positionals: [PositionalSpec("DIR", help: "the directory to write")],
                options: [
                    .option(
                        "nginx-listen", value: "LISTEN",
                        help: "the sample's nginx listen parameter (default \"443 ssl\", with certificate lines to fill in)"),
                    .option(
                        "banner-names", value: "id|path",
                        help: "name banner snippets by experience id (default) or by page path: banners/s/paris/par007.html"),
                    .option("at", value: "TIME", help: "the site as at this time: banners of the experiences served then (default now)"),
                ],
                examples: [Example("clipctl publish /srv/www/clips", "Write every AASA file and banner snippet for a web server to serve")]),
            CommandSpec("code", summary: ""),
            // Its subcommand is the application layer's (ClipApp `CodesExportDirectory`); this keeps its place in help.
            CommandSpec("codes", summary: "print bundles of codes"),
            CommandSpec(
                "serve", summary: "serve the HTTP API on the database",
                discussion:
                    "Binds 127.0.0.1 unless told otherwise; port 0 picks a free port (the real one is printed). Stops gracefully on SIGTERM or SIGINT. With an App Store Connect key (--asc-key-id … or the ASC_ environment), admin tokens can plan and apply through /v1/asc.",
                options: [
                    .option("listen", value: "HOST:PORT", help: "address to listen on (default 127.0.0.1:8080)"),
                    .option(
                        "max-connections", value: "N",
                        help: "open connections at most (default: what the descriptor limit and memory allow)"),
                    .option("max-body-bytes", value: "N", help: "largest request body (default 10485760, the largest header image)"),
                    .option("public-max-age", value: "SECONDS", help: "how long caches and CDNs may keep public answers (default 60)"),
                    .flag("quiet", help: "no request log lines"),
                    .flag(
                        "no-saved-read-model",
                        help: "build the read model from the rows; neither read nor write DATABASE-read-model (saved at a graceful stop)"),
                    .option("asc-key-id", value: "ID", help: "App Store Connect API key ID for /v1/asc (env ASC_KEY_ID)"),
                    .option("asc-issuer-id", value: "UUID", help: "the key's issuer ID (env ASC_ISSUER_ID)"),
                    .option("asc-key", value: "FILE", help: "the key's .p8 file (env ASC_PRIVATE_KEY_PATH, or ASC_PRIVATE_KEY)"),
                    .option("asc-url", value: "URL", help: "App Store Connect API base URL (env ASC_API_URL)"),
                    .flag("allow-private-targets", help: "allow webhooks and verify to loopback, private and link-local addresses"),
                    .option("aasa-cdn-url", value: "URL", help: "Apple's CDN base URL for verify (tests, mirrors; default Apple's)"),
                    .option("aasa-site-url", value: "TEMPLATE", help: "where verify fetches a site's file, {host} replaced (tests)"),
                    .option(
                        "aasa-watch-schedule", value: "S,S,…",
                        help: "seconds between the watch's checks after a change, the last repeating, each at least 1, or off "
                            + "(env CLIP_AASA_WATCH_SCHEDULE)"),
                    .option(
                        "aasa-watch-for", value: "DURATION",
                        help: "the watch gives up after this long, such as 72h (env CLIP_AASA_WATCH_FOR)"),
                    .option(
                        "webhook-retry-schedule", value: "MS,MS,…",
                        help: "waits after each failed delivery, in ms (testing; default 5 s … 10 h)"),
                    .option("webhook-timeout", value: "SECONDS", help: "how long a webhook request may take (default 10)"),
                    .option(
                        "webhook-retention-days", value: "DAYS",
                        help: "forget webhook deliveries made longer ago than this, and their events (default 30)"),
                ],
                examples: [
                    Example(
                        "clipctl --db /var/lib/clip-registry/clips.db serve --listen 127.0.0.1:8080",
                        "Serve the API on a database, on the loopback interface")
                ]),
            CommandSpec("token", summary: "manage API tokens"),
            CommandSpec(
                "webhook", summary: "send events to HTTP endpoints: add, list, remove, test, enable, deliveries",
                discussion: """
                    Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1, and the base 64 \
                    HMAC-SHA256 of id.timestamp.body with the secret shown once by add). Events: experience.created, \
                    experience.updated, experience.deleted, experience.live, experience.ended (or experience.*), \
                    campaign.started, campaign.ended, aasa.changed, aasa.propagated, asc.applied, asc.testflight.applied, or *. clipctl serve delivers them in order per endpoint, retrying for about a day \
                    before marking the endpoint failing.
                    """),
            CommandSpec("campaign", summary: "change some experiences for a while: add, list, show, start, end, cancel"),
            CommandSpec("schedule", summary: "what falls due and what was applied: list, run"),
            appStoreConnect,
            CommandSpec(
                "backup", summary: "write a consistent snapshot of the database to a new file (safe while a server runs)",
                positionals: [PositionalSpec("FILE", help: "the backup file to create")],
                examples: [Example("clipctl backup clips-backup.db", "Snapshot the database while a server runs")]),
            CommandSpec(
                "restore", summary: "replace the database's content with a backup",
                discussion:
                    "The backup is checked and migrated on a private copy first (integrity, foreign keys, migration history, schema); a refused restore changes nothing. The backup's content is checked too (every row read back, the registry's invariants). API tokens stay as they are (they are the installation's, not the backup's), and no id is handed out twice. The content replaced is kept beside the database as DB.replaced-<time>. A running server sees the restored data at its next request.",
                positionals: [PositionalSpec("FILE", help: "a file written by clipctl backup")],
                examples: [Example("clipctl restore clips-backup.db", "Replace the database's content with that snapshot")]),
            // Its grammar is the application layer's (ClipApp `ChangeList`); this keeps its place in help.
            CommandSpec("changes", summary: "list change records"),
            help, completion,
        ])
}
