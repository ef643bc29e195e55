@testable import ClipAPI
import Foundation
import Locking
import StrictJSON
import Testing

/// The hot routes' access log: its fields written as bytes are the ordinary line's (`JSONWriter`,
/// Foundation's ISO 8601 style), and its buffers keep each thread's order and lose no line.
@Suite struct AccessLogTests {
    final class Collected: Sendable {
        let bytes = Locked<[UInt8]>([])
        let batches = Locked<[Int]>([])
    }

    @Test func durationsAreWrittenAsJSONWriterWritesThem() {
        var generator = SystemRandomNumberGenerator()
        // Every hundredth of a millisecond up to 3 s, then random durations up to a day.
        let seconds = (0..<300_000).map { Double($0) / 1e5 } + (0..<20_000).map { _ in Double.random(in: 0..<86_400, using: &generator) }
        for s in seconds + [0.000_004_999, 0.000_005, 0.000_005_001, 1e-9, 12_345.678_9] {
            var bytes: [UInt8] = []
            AccessLog.appendMilliseconds(s, to: &bytes)
            let expected = JSONWriter.string(.double((s * 1e5).rounded() / 100))
            #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(s)")
            if String(decoding: bytes, as: UTF8.self) != expected { return }
        }
    }

    @Test func timesAreFoundationsISO8601() {
        var generator = SystemRandomNumberGenerator()
        // 1970 to 2400, leap days and the ends of years and centuries included.
        let special: [Int64] = [0, 59, 86_399, 86_400, 951_782_400, 951_868_800, 4_107_456_000, 4_107_542_400, 946_684_799, 13_569_465_599]
        let times = special + (0..<20_000).map { _ in Int64.random(in: 0..<13_569_465_600, using: &generator) }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for t in times {
            let ms = Int.random(in: 0..<1000, using: &generator)
            var bytes: [UInt8] = []
            AccessLog.appendTime(seconds: t, milliseconds: ms, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            // Foundation's text of the whole second (its fraction of a Double is not exact), then the milliseconds.
            let whole = Date(timeIntervalSince1970: Double(t)).formatted(style)
            #expect(text.prefix(20) == whole.prefix(20), "\(t)")
            #expect(text.dropFirst(20) == String(1000 + ms).dropFirst() + "Z", "\(t) \(ms)")
            if text.prefix(20) != whole.prefix(20) { return }
        }
    }

    /// Four threads writing at once: every line arrives, whole, each thread's in its order.
    @Test func linesKeepEachThreadsOrderAndNoneIsLost() async {
        let collected = Collected()
        let log = AccessLog { bytes in
            #expect(bytes.last == 0x0A)
            collected.bytes.withLock { $0.append(contentsOf: bytes) }
            collected.batches.withLock { $0.append(bytes.count) }
        }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<5_000 {
                        log.append {
                            $0.append(
                                contentsOf: "{\"thread\":\(thread),\"line\":\(i),\"pad\":\"\(String(repeating: "x", count: i % 90))\"}".utf8
                            )
                        }
                    }
                }
            }
        }
        log.flush()
        let lines = collected.bytes.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
        #expect(lines.count == 20_000)
        var next = [Int](repeating: 0, count: 4)
        for line in lines {
            guard let value = try? JSONParser.parse(Array(line.utf8)), case .integer(let t)? = value["thread"],
                case .integer(let i)? = value["line"]
            else {
                Issue.record("not a whole line: \(line)")
                return
            }
            #expect(Int(i) == next[Int(t)], "thread \(t)")
            next[Int(t)] = Int(i) + 1
        }
        #expect(next == [5_000, 5_000, 5_000, 5_000])
        // Handed on in batches, not a write per line.
        #expect(collected.batches.withLock { $0.count } < 2_000)
    }

    /// A line of a quiet server is handed on by the timer, without a flush.
    @Test func aQuietServersLineShowsWithinTheInterval() async throws {
        let collected = Collected()
        let log = AccessLog { bytes in collected.bytes.withLock { $0.append(contentsOf: bytes) } }
        log.append { $0.append(contentsOf: "one".utf8) }
        for _ in 0..<100 where collected.bytes.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(collected.bytes.withLock { $0 } == Array("one\n".utf8))
    }
}
