public import Foundation

/// The fake App Store Connect (scripts/fake-asc/fake_asc.py) as a process on 127.0.0.1, port 0; it
/// ends when this object goes (its standard input closes). It needs .venv-asc (scripts/asc-venv).
public final class FakeAppStoreConnectProcess {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    public static let python = repository.appendingPathComponent(".venv-asc/bin/python").path

    /// The tests that need the fake run unless .venv-asc is missing AND CLIP_SKIP_FAKE_ASC=1 says
    /// to skip them; without that variable a missing venv fails them, saying how to make it.
    public static var shouldRun: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CLIP_SKIP_FAKE_ASC"] != "1"
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let process = Process()
    private let input = Pipe()
    public let baseURL: String

    /// Starts the fake verifying JWTs with `publicKeyPath` for the example key and issuer ids, with
    /// `arguments` added (page size, faults…).
    public init(publicKeyPath: String, arguments: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw Unavailable(
                description: "\(Self.python) is missing: run scripts/asc-venv (or set CLIP_SKIP_FAKE_ASC=1 to skip these tests)")
        }
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments =
            [
                Self.repository.appendingPathComponent("scripts/fake-asc/fake_asc.py").path, "--public-key", publicKeyPath,
                "--key-id", ThrowawayKeys.exampleKeyID, "--issuer-id", ThrowawayKeys.exampleIssuerID, "--exit-with-stdin",
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        // The first line is "fake-asc listening on PORT".
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let port = String(decoding: line, as: UTF8.self).split(separator: " ").last.flatMap({ Int($0) }) else {
            process.terminate()
            throw Unavailable(description: "the fake App Store Connect did not start: \(String(decoding: line, as: UTF8.self))")
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    deinit {
        // Process.waitUntilExit spins a run loop off the main thread; polling is enough here.
        try? input.fileHandleForWriting.close()
        process.terminate()
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
    }
}
