import ArgParse
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Dispatch
import Foundation
import StrictJSON

/// serve, backup, restore: local database only.
extension Context {
    /// `serve` runs the server the program linked in (`ServeEntry`, given to `ClipCLI.run`): ClipCLI parses and
    /// reports, the HTTP API is not its to start (docs/application-layer.md#clipctl).
    func serve() throws {
        if remoteServer != nil { throw CommandFailure.usage("serve runs on a local database; --server and CLIP_SERVER do not apply") }
        guard let serveEntry else { throw CommandFailure(code: ExitCode.failure, message: "this clipctl was built without its server") }
        try serveEntry(
            ServeCommand(
                parsed: parsed, environment: environment, io: io, databasePath: databasePath,
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
        let path = parsed.positional(0)!
        if path.isEmpty { throw CommandFailure.usage("backup takes the name of the file to create") }
        // Opening a registry creates a missing database: a mistyped --db would back up an empty one.
        guard DurableFiles.exists(databasePath) else {
            throw CommandFailure(code: ExitCode.failure, message: "no database at \(databasePath)")
        }
        try registry().backup(to: path)
        if json { printJSON(CommandJSON.backup(path)) } else { print("backed up \(databasePath) to \(path)") }
    }

    func restore() throws {
        if remoteServer != nil { throw CommandFailure.usage("restore runs on a local database; --server does not apply") }
        let path = parsed.positional(0)!
        if path.isEmpty { throw CommandFailure.usage("restore takes the name of a file written by clipctl backup") }
        // Not registry(): the database replaced need not open (or migrate) as a registry.
        let report = try Registry.restore(database: databasePath, from: path, actor: "clipctl:\(environment["USER"] ?? "local")")
        if json {
            printJSON(
                CommandJSON.restored(
                    from: path, migrated: report.migrated, replacedCopy: report.replacedCopy,
                    tokensKept: report.tokensKept))
            return
        }
        print("restored \(databasePath) from \(path)")
        print("  the content replaced is kept in \(report.replacedCopy) (restore it to undo; delete it when no longer needed)")
        print("  API tokens kept as they are: \(report.tokensKept) (tokens are the installation's, not the backup's)")
        printNotes(report.migrated.map { "applied migration \($0)" })
    }
}
