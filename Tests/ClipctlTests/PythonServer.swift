import Foundation

/// A Python script run as a stand-in server on 127.0.0.1 that prints its port on its first line
/// (the webhook receiver, a server that is not the registry); killed with the object.
final class PythonServer {
    let process = Process()
    let port: Int

    init(_ clipctl: Clipctl, script name: String, _ source: String, arguments: [String] = []) throws {
        try clipctl.write(name, source)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [clipctl.file(name)] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let line = out.firstLine()
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Clipctl.CLIError(message: "\(name) printed \(line)")
        }
        self.port = port
    }

    // SIGKILL: the test runner may have SIGTERM ignored, and an ignored signal stays ignored across exec(2).
    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

extension Pipe {
    /// What a child process writes here up to its first newline (all of it if it ends first): a server's
    /// "listening on …" line.
    func firstLine() -> String {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        return String(decoding: line, as: UTF8.self)
    }
}
