import Dispatch
import Foundation
import Locking

/// Runs a child process to its end and collects what it wrote. Standard input is written, and
/// standard output and standard error are read to end of file, each on its own thread: a pipe
/// holds 64 KiB (pipe(7)), so reading one stream to its end before the other, or writing the
/// whole input before reading, blocks forever against a child that fills the other pipe first.
enum ProcessRunner {
    struct Output {
        let code: Int32
        let out: Data
        let err: Data
    }

    struct TimedOut: Error, CustomStringConvertible {
        let command: String
        let seconds: Double
        var description: String { "\(command) did not finish within \(seconds) s (killed)" }
    }

    /// Runs `process` (executable, arguments, environment and folder already set) with `stdin`
    /// as its standard input (empty when nil). A child still running, or still holding its
    /// output open, after `timeoutSeconds` is killed and `TimedOut` thrown.
    static func run(_ process: Process, stdin: Data? = nil, timeoutSeconds: Double = 300) throws -> Output {
        _ = sigpipeIgnored
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let collected = Collected()
        let group = DispatchGroup()
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            // A child that exits without reading all of it closes the pipe: the write fails with
            // EPIPE (SIGPIPE ignored, below), which is not an error here.
            if let stdin, !stdin.isEmpty { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        let outReader = out.fileHandleForReading, errReader = err.fileHandleForReading
        DispatchQueue.global().async(group: group) { collected.out.withLock { $0 = outReader.readDataToEndOfFile() } }
        DispatchQueue.global().async(group: group) { collected.err.withLock { $0 = errReader.readDataToEndOfFile() } }
        if group.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let command = ([process.executableURL?.path ?? "?"] + (process.arguments ?? [])).joined(separator: " ")
            throw TimedOut(command: String(command.prefix(200)), seconds: timeoutSeconds)
        }
        process.waitUntilExit()
        return Output(code: process.terminationStatus, out: collected.out.withLock { $0 }, err: collected.err.withLock { $0 })
    }

    /// A write to a pipe whose reader is gone raises SIGPIPE, which would end the test process;
    /// ignored, the write fails with EPIPE instead (as `HTTPServer.start` does for sockets).
    private static let sigpipeIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private final class Collected: Sendable {
        let out = Locked(Data())
        let err = Locked(Data())
    }
}
