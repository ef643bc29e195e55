// swift-tools-version:6.2
import PackageDescription

// One list of strict settings for every target of ours.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "clip-registry",
    products: [
        .executable(name: "clipctl", targets: ["clipctl"])
    ],
    targets: [
        // System SQLite (Debian: libsqlite3-dev). The only C dependency.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLinuxIO"),
        // System OpenSSL libcrypto (Debian: libssl-dev), for signatures and digests only.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // System libcurl (Debian: libcurl4-openssl-dev), for outbound HTTPS whose reads stop at a cap.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Generic layers: know nothing about App Clips.
        .target(name: "SQLiteDB", dependencies: ["CSQLite"], swiftSettings: strict),
        // Word-at-a-time byte scans for the hot paths' parsers and writers, and a cursor writing into room reserved once.
        .target(name: "ByteScan", swiftSettings: strict),
        .target(name: "StrictJSON", dependencies: ["ByteScan"], swiftSettings: strict),
        .target(name: "ArgParse", swiftSettings: strict),
        // A value behind a lock (the standard library's Mutex, visible to ThreadSanitizer).
        .target(name: "Locking", swiftSettings: strict),
        .target(name: "HTTP1", dependencies: ["CLinuxIO", "Locking", "ByteScan", "FileFormats"], swiftSettings: strict),
        // One outbound exchange through libcurl with its body and headers read up to a cap, never further.
        .target(name: "HTTPSClient", dependencies: ["CCurl"], swiftSettings: strict),
        // Bytes to bytes, pure, no I/O: CRC-32, Adler-32, DEFLATE, zlib, PNG, ZIP, NDEF, and the project's one SHA-256
        // and one Base 64 (pure modules hash and encode without libcrypto; SystemCrypto and the JWT use them too).
        .target(name: "FileFormats", swiftSettings: strict),
        // P-256 keys from PKCS#8 PEM, ES256 signatures (R‖S), HMAC-SHA256 and MD5 over libcrypto.
        .target(name: "SystemCrypto", dependencies: ["CCrypto", "FileFormats"], swiftSettings: strict),
        // Writes those formats from standard input and arguments, for scripts/formats-check's independent readers.
        .executableTarget(name: "formats-write", dependencies: ["FileFormats"], swiftSettings: strict),

        // QR codes (ISO/IEC 18004:2015) and their SVG drawing; pure, knows nothing about App Clips.
        .target(name: "QRCode", swiftSettings: strict),

        // UTS #46 processing (IDNA mapping, validity, CheckBidi, CheckJoiners) with the Unicode tables scripts/gen-idna-tables
        // writes, and Punycode (RFC 3492). Pure; knows nothing about App Clips.
        .target(name: "IDNA", swiftSettings: strict),

        // Pure domain core: the model and its rules (identifiers, validation, URL and host normalization, the resolver),
        // the read model's index, the webhook rules and the import/export formats. No I/O.
        .target(name: "ClipCore", dependencies: ["ByteScan", "StrictJSON", "FileFormats", "IDNA"], swiftSettings: strict),

        // Apple's formats over the model: the AASA file (generation, comparison, the evaluator's pattern matching and the
        // linter), stored and generated applinks, the Smart App Banner. Pure, no I/O.
        .target(name: "AppleFormats", dependencies: ["ClipCore", "StrictJSON", "FileFormats"], swiftSettings: strict),

        // What a bulk read of the registry (RegistryRecord) becomes: the doctor's cross-checks and the static site publish
        // writes (its directory's index, shared with the codes export). Pure, no I/O.
        .target(
            name: "DoctorAndPublish", dependencies: ["ClipCore", "AppleFormats", "QRCode", "FileFormats", "StrictJSON"],
            swiftSettings: strict),

        // Which URL gets a QR code or NFC tag, how the files of a print bundle are named, and their bytes. Pure, no I/O.
        .target(
            name: "ClipCodes", dependencies: ["ClipCore", "DoctorAndPublish", "QRCode", "FileFormats", "StrictJSON"], swiftSettings: strict),

        // Every JSON shape the API answers and clipctl prints: encoders, and the readers a remote clipctl needs.
        .target(
            name: "ClipWire", dependencies: ["ClipCore", "AppleFormats", "DoctorAndPublish", "StrictJSON", "FileFormats"],
            swiftSettings: strict),

        .target(name: "CardPreview", dependencies: ["ClipCore", "AppleFormats", "QRCode", "FileFormats"], swiftSettings: strict),

        // Migrations/*.sql embedded into ClipStore by a build-tool plugin.
        .executableTarget(name: "embed-migrations", swiftSettings: strict),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["embed-migrations"]),

        // The SQLite-backed registry store.
        .target(
            name: "ClipStore",
            dependencies: [
                "ClipCore", "AppleFormats", "DoctorAndPublish", "ClipCodes", "FileFormats", "SQLiteDB", "StrictJSON", "Locking",
            ],
            swiftSettings: strict,
            plugins: ["EmbedMigrations"]),

        // Every request to an address a tenant named (webhooks, verify, the propagation watch): the address rules (SSRF),
        // connections to the checked addresses only, caps, and the one rule that a redirect is answered, never followed.
        .target(name: "OutboundHTTP", dependencies: ["ClipCore", "HTTP1", "HTTPSClient"], swiftSettings: strict),

        // The application layer: each operation declared once (its callers, typed input, output and run), bound to a route and a command;
        // what went wrong in its own words (never a status or an exit code); the work of the commands that are not one operation
        // (doctor, publish, aasa check and lint, backup, restore).
        .target(
            name: "ClipApp",
            dependencies: [
                "CardPreview", "ClipCodes", "ClipCore", "AppleFormats", "DoctorAndPublish", "ClipStore", "ClipWire",
                "FileFormats", "StrictJSON", "Locking", "QRCode", "AppStoreConnect", "ClipSync", "ClipSyncEngine", "OutboundHTTP",
            ],
            swiftSettings: strict),

        // The HTTP API: maps HTTP to the application layer (routes, tokens, caching, the hot routes, the RFC 9457 problem and status
        // each failure answers); HTTP1 writes the hot answers' heads and request ids.
        .target(
            name: "ClipAPI",
            dependencies: [
                "ClipApp", "ClipCore", "AppleFormats", "ClipStore", "ClipWire", "HTTP1", "StrictJSON", "Locking",
            ],
            swiftSettings: strict),

        // Webhook delivery, like the App Store Connect trio beside it: the pure rules (events, payloads, signature text,
        // retry schedule, target checks) are in ClipCore and the outbox in ClipStore; this is the worker that sends,
        // the sender (SSRF check at delivery, no redirects) and the HMAC signing (SystemCrypto). `clipctl serve` wires it in.
        .target(
            name: "ClipWebhooks",
            dependencies: ["ClipCore", "ClipStore", "Locking", "OutboundHTTP", "SystemCrypto"],
            swiftSettings: strict),

        // clipctl's grammar (options, arguments, help), shared by clipctl and the argument fuzzer.
        .target(name: "ClipCommands", dependencies: ["ArgParse"], swiftSettings: strict),

        // Fuzz targets (properties over arbitrary bytes) and the libFuzzer/replay executable.
        // Fuzz build: swift build --scratch-path .build-fuzz --sanitize=fuzzer -Xswiftc -DFUZZING --product clip-fuzz
        .target(
            name: "FuzzTargets", dependencies: ["HTTP1", "ClipCore", "AppleFormats", "StrictJSON", "ArgParse", "ClipCommands"],
            swiftSettings: strict),
        .executableTarget(name: "clip-fuzz", dependencies: ["FuzzTargets"], swiftSettings: strict),

        // clipctl as a library (its command line, files and environment, each command run through ClipApp or sent to `--server`,
        // each failure's exit code), and the thin executable.
        .target(
            name: "ClipCLI",
            dependencies: [
                "ClipApp", "ClipCore", "DoctorAndPublish", "ClipStore", "ClipWire", "ArgParse", "ClipCommands", "OutboundHTTP",
                "StrictJSON",
            ],
            swiftSettings: strict,
            plugins: ["EmbedBuildInfo"]),
        // `clipctl serve`: where the command line and the HTTP API meet; the executable hands it to ClipCLI.
        .target(
            name: "ClipServer",
            dependencies: [
                "ClipAPI", "ClipApp", "ClipCLI", "ClipCore", "ClipStore", "ClipWebhooks", "HTTP1",
            ],
            swiftSettings: strict),
        .executableTarget(name: "clipctl", dependencies: ["ClipCLI", "ClipServer"], swiftSettings: strict),
        // VERSION and the git commit embedded into ClipCLI for `clipctl --version`.
        .executableTarget(name: "embed-build-info", swiftSettings: strict),
        .plugin(name: "EmbedBuildInfo", capability: .buildTool(), dependencies: ["embed-build-info"]),
        // The App Store Connect API client side: credentials and the ES256 JWT (knows ASC, not the store).
        .target(name: "AppStoreConnect", dependencies: ["SystemCrypto", "FileFormats", "StrictJSON", "Locking"], swiftSettings: strict),
        // Prints a JWT for a given key and ids, for scripts/asc-jwt-check's independent verification.
        // The pure sync plan: the registry's experiences against App Store Connect's (knows both, does no I/O).
        .target(
            name: "ClipSync", dependencies: ["ClipCore", "DoctorAndPublish", "AppStoreConnect", "FileFormats", "StrictJSON"],
            swiftSettings: strict),
        .target(
            name: "ClipSyncEngine",
            dependencies: ["ClipSync", "ClipStore", "ClipCore", "AppStoreConnect", "SystemCrypto", "StrictJSON", "Locking"],
            swiftSettings: strict),
        .executableTarget(name: "asc-jwt", dependencies: ["AppStoreConnect", "SystemCrypto"], swiftSettings: strict),
        // Counts heap allocations (it replaces malloc: clip-bench only).
        .target(name: "CAllocCount"),
        .executableTarget(
            name: "clip-bench", dependencies: ["CAllocCount", "CLinuxIO", "ClipCore", "ClipCodes", "ClipStore"], swiftSettings: strict),

        // What more than one test target uses (test images), in one place; no test depends on another.
        .target(name: "TestSupport", dependencies: ["CCrypto"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"], swiftSettings: strict),
        .testTarget(name: "SQLiteDBTests", dependencies: ["SQLiteDB"], swiftSettings: strict),
        .testTarget(
            name: "HTTP1Tests", dependencies: ["ByteScan", "HTTP1", "Locking", "TestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ClipAPITests",
            dependencies: [
                "ClipAPI", "ClipApp", "ClipStore", "ClipCore", "AppleFormats", "ClipWire", "FileFormats", "HTTP1", "SQLiteDB",
                "StrictJSON", "Locking", "SystemCrypto", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ClipWebhooksTests",
            dependencies: ["ClipWebhooks", "ClipCore", "ClipStore", "HTTP1", "Locking", "StrictJSON", "SystemCrypto"],
            swiftSettings: strict),
        .testTarget(name: "OutboundHTTPTests", dependencies: ["OutboundHTTP"], swiftSettings: strict),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
        .testTarget(name: "ArgParseTests", dependencies: ["ArgParse"], swiftSettings: strict),
        .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: strict),
        .testTarget(name: "ByteScanTests", dependencies: ["ByteScan", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "AppleFormatsTests", dependencies: ["AppleFormats", "ClipCore", "StrictJSON"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "DoctorAndPublishTests", dependencies: ["DoctorAndPublish", "ClipCore", "AppleFormats", "FileFormats", "StrictJSON"],
            swiftSettings: strict),
        .testTarget(name: "IDNATests", dependencies: ["IDNA"], swiftSettings: strict),
        .testTarget(
            name: "ClipCoreTests", dependencies: ["ClipCore", "AppleFormats", "ClipWire", "StrictJSON", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "ClipCodesTests", dependencies: ["ClipCodes", "ClipCore", "DoctorAndPublish", "QRCode", "FileFormats", "StrictJSON"],
            swiftSettings: strict),
        .testTarget(name: "ClipWireTests", dependencies: ["ClipWire", "ClipCore", "AppleFormats", "StrictJSON"], swiftSettings: strict),
        .testTarget(
            name: "ClipStoreTests",
            dependencies: [
                "ClipStore", "ClipCore", "AppleFormats", "DoctorAndPublish", "ClipWire", "FileFormats", "SQLiteDB", "StrictJSON",
                "TestSupport",
            ],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "FileFormatsTests", dependencies: ["FileFormats", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SystemCryptoTests", dependencies: ["SystemCrypto", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "AppStoreConnectTests",
            dependencies: ["AppStoreConnect", "FileFormats", "SystemCrypto", "StrictJSON", "Locking", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "ClipctlTests", dependencies: ["StrictJSON", "TestSupport", "SystemCrypto", "Locking"], swiftSettings: strict),
        .testTarget(
            name: "ClipSyncTests", dependencies: ["ClipSync", "ClipCore", "DoctorAndPublish", "AppStoreConnect", "StrictJSON"],
            swiftSettings: strict),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "CardPreviewTests", dependencies: ["CardPreview", "ClipCore", "AppleFormats", "FileFormats", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ClipAppTests",
            dependencies: [
                "ClipApp", "ClipCLI", "ClipCore", "AppleFormats", "DoctorAndPublish", "ClipStore", "ClipWire", "FileFormats",
                "StrictJSON", "TestSupport", "AppStoreConnect", "ClipSyncEngine", "ClipSync", "HTTP1", "Locking", "OutboundHTTP",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ClipCLITests", dependencies: ["ClipApp", "ClipCLI", "ClipCommands", "ClipCore", "ArgParse"], swiftSettings: strict),
    ]
)
