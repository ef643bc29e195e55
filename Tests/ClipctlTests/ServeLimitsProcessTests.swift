import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `clipctl serve` holds as many connections as descriptors and memory allow: it raises its soft
/// descriptor limit to the hard one, says its cap at start-up, and keeps a --max-connections
/// below the descriptor limit (docs/architecture.md#limits-and-slow-clients).
@Suite(.serialized) struct ServeLimitsProcessTests {
    /// The soft and hard "Max open files" of a process (proc(5), /proc/PID/limits).
    static func openFilesLimits(_ pid: Int32) -> (soft: Int, hard: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test func serveRaisesItsDescriptorLimitAndSaysItsCap() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let hard = Int(clamping: limit.rlim_max)
        try #require(hard > 1024, "the hard descriptor limit (\(hard)) leaves nothing to raise")
        let clipctl = try Clipctl()
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"), softDescriptorLimit: 1024)
        let limits = Self.openFilesLimits(server.process.processIdentifier)
        #expect(limits?.soft == hard && limits?.hard == hard, "soft raised to the hard limit: \(String(describing: limits))")
        #expect(server.stop() == 0)
        let log = try clipctl.read("serve-stderr.log")
        #expect(log.contains("\"connections: at most "), "\(log)")
        #expect(log.contains("(the default: descriptor limit \(hard), memory "), "\(log)")
    }

    @Test func aCapPastTheDescriptorLimitIsLoweredToIt() throws {
        let clipctl = try Clipctl()
        let server = try ServeProcess(
            clipctl, database: clipctl.file("clips.db"), arguments: ["--max-connections", "100000000"], softDescriptorLimit: 1024)
        #expect(server.stop() == 0)
        let log = try clipctl.read("serve-stderr.log")
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let hard = Int(clamping: limit.rlim_max)
        #expect(
            log.contains("connections: at most \(hard - 256) (--max-connections 100000000 lowered: the descriptor limit is \(hard)"),
            "\(log)")
    }
}
