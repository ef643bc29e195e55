import ArgParse
import ClipApp
import ClipCore
import ClipStore
import Foundation

/// serve, backup, restore: local database only.
extension Context {
    /// `serve` runs the server the program linked in (`ServeEntry`, given to `ClipCLI.run`): ClipCLI parses and
    /// reports, the HTTP API is not its to start (docs/application-layer.md#clipctl).
    func serve() throws {
        if remoteServer != nil { throw CommandFailure.usage("serve runs on a local database; --server and CLIP_SERVER do not apply") }
        guard let serveEntry else { throw CommandFailure(code: ExitCode.failure, message: "this clipctl was built without its server") }
        try serveEntry(
            ServeCommand(
                words: words, environment: environment, io: io, databasePath: databasePath,
                appStoreConnect: { try self.servedAppStoreConnect() }))
    }

    /// How `/v1/asc` reaches App Store Connect when a key is given (flags or the ASC_ environment); nil without one.
    /// The key is read now: an unusable one stops serve before it listens (exit 64).
    func servedAppStoreConnect() throws -> AppStoreConnectAccess? {
        let flags = ["asc-key-id", "asc-issuer-id", "asc-key"].compactMap { parsed.value($0) }
        let named = environment.contains {
            ["ASC_KEY_ID", "ASC_PRIVATE_KEY_PATH", "ASC_PRIVATE_KEY"].contains($0.key) && !$0.value.isEmpty
        }
        guard !flags.isEmpty || named else { return nil }
        let key = AppStoreConnectAccess.Key(
            keyID: parsed.value("asc-key-id"), issuerID: parsed.value("asc-issuer-id"), privateKeyPath: parsed.value("asc-key"),
            baseURL: parsed.value("asc-url"))
        do {
            return try AppStoreConnectAccess(
                key: key, environment: environment, purpose: "App Store Connect key for /v1/asc: ", saysWaits: io.standardErrorIsTerminal,
                err: io.err)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }

    func backup() throws {
        if remoteServer != nil { throw CommandFailure.usage("backup runs on a local database; --server does not apply") }
        try DatabaseFile.backup(database: databasePath, to: parsed.positional(0)!, registry: registry, json: json, printer: printer)
    }

    func restore() throws {
        if remoteServer != nil { throw CommandFailure.usage("restore runs on a local database; --server does not apply") }
        try DatabaseFile.restore(
            database: databasePath, from: parsed.positional(0)!, actor: "clipctl:\(environment["USER"] ?? "local")", json: json,
            printer: printer)
    }
}
