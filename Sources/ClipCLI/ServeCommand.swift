public import ClipApp
import StrictJSON

/// What `clipctl serve` hands the server the program links in (`ServeEntry`): its command line's words, where
/// it prints, the database, and the App Store Connect client its flags or environment name.
public struct ServeCommand {
    public let words: CommandWords
    public let environment: [String: String]
    public let io: CLIIO
    public let databasePath: String
    /// How `/v1/asc` reaches App Store Connect when a key is given (flags or the `ASC_` environment); nil without one.
    public let appStoreConnect: () throws -> AppStoreConnectAccess?

    /// A usage error (exit 64), reported as every command's.
    public func usage(_ message: String) -> any Error { CommandFailure.usage(message) }

    /// A failure (exit 1), reported as every command's.
    public func failure(_ message: String) -> any Error { CommandFailure(code: ExitCode.failure, message: message) }

    public func print(_ line: String) { io.out(line + "\n") }

    /// One line of serve's log on standard error: `{"level":…,"msg":…}` and a line end.
    public static func logLine(_ level: String, _ message: String) -> String {
        "{\"level\":\"\(level)\",\"msg\":\(JSONWriter.string(.string(message)))}\n"
    }
}

/// Runs `clipctl serve` until it stops: the `clipctl` executable passes `ClipServer.serve`, so that the
/// command line does not import the HTTP API (docs/application-layer.md#clipctl).
public typealias ServeEntry = @Sendable (ServeCommand) throws -> Void
