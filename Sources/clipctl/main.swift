import ClipCLI
import ClipServer
import Foundation

// Wiring only: real argv, environment and standard streams.
let code = ClipCLI.run(
    Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    io: CLIIO(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) },
        readStandardInput: { atMost in
            var bytes: [UInt8] = []
            while bytes.count < atMost {
                let data = FileHandle.standardInput.readData(ofLength: atMost - bytes.count)
                if data.isEmpty { break }
                bytes += data
            }
            return bytes
        },
        standardErrorIsTerminal: isatty(2) == 1,
        standardOutputIsTerminal: isatty(1) == 1),
    serve: ClipServer.serve)
exit(code)
