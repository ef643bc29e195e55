import Dispatch
import Foundation
import Locking
import Testing

/// The runner of every clipctl test finishes with a child that writes more than a pipe holds
/// (64 KiB, pipe(7)) to both streams, or reads a large standard input while it writes: reading
/// one stream to its end before the other, or writing all the input first, blocks for ever.
struct ProcessRunnerTests {
    static let mebibyte = 1 << 20

    /// Runs `process` through `ProcessRunner` on a thread of its own and waits at most `seconds`,
    /// so that a runner that deadlocks fails the test instead of hanging the suite (the child is
    /// killed, which ends its output and frees the runner).
    func runBounded(_ process: Process, stdin: Data? = nil, seconds: Double = 60) throws -> ProcessRunner.Output? {
        let result = Locked<Result<ProcessRunner.Output, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try ProcessRunner.run(process, stdin: stdin, timeoutSeconds: seconds * 2) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("the runner did not finish within \(seconds) s: a deadlock on a full pipe")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            return nil
        }
        return try result.withLock { $0 }?.get()
    }

    func python(_ program: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", program]
        return process
    }

    @Test func aChildWritingAMebibyteToEachStreamFinishes() throws {
        // Standard error first, then standard output, then standard error again: whichever stream
        // a runner reads first, the child fills the other pipe while that stream is still open.
        let program = """
            import sys
            sys.stderr.write('e' * \(Self.mebibyte)); sys.stderr.flush()
            sys.stdout.write('o' * \(Self.mebibyte)); sys.stdout.flush()
            sys.stderr.write('E' * \(Self.mebibyte)); sys.exit(3)
            """
        guard let output = try runBounded(python(program)) else { return }
        #expect(output.code == 3)
        #expect(output.out == Data(repeating: UInt8(ascii: "o"), count: Self.mebibyte))
        let err = Data(repeating: UInt8(ascii: "e"), count: Self.mebibyte) + Data(repeating: UInt8(ascii: "E"), count: Self.mebibyte)
        #expect(output.err == err)
    }

    @Test func aChildEchoingAMebibyteOfInputFinishes() throws {
        let input = Data((0..<Self.mebibyte).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let program = "import sys\nwhile chunk := sys.stdin.buffer.read1(4096): sys.stdout.buffer.write(chunk); sys.stdout.flush()"
        guard let output = try runBounded(python(program), stdin: input) else { return }
        #expect(output.code == 0)
        #expect(output.out == input)
    }

    /// A child that exits without reading its input: the runner is not killed by SIGPIPE, and
    /// reports what the child said.
    @Test func aChildIgnoringItsInputFinishes() throws {
        let input = Data(repeating: 0x61, count: 4 * Self.mebibyte)
        guard let output = try runBounded(python("import sys; sys.stdout.write('done')"), stdin: input) else { return }
        #expect(output.code == 0 && output.out == Data("done".utf8))
    }

    /// Its own bound: a child that never ends is killed and reported.
    @Test func aChildThatNeverEndsIsKilledAtTheBound() throws {
        let started = Date()
        #expect(throws: ProcessRunner.TimedOut.self) { try ProcessRunner.run(python("import time; time.sleep(600)"), timeoutSeconds: 1) }
        #expect(Date().timeIntervalSince(started) < 30)
    }
}
