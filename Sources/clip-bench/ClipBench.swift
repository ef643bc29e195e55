import CAllocCount
import CLinuxIO
import ClipCodes
import ClipCore
import ClipStore
import Foundation

/// In-process measurements for the README's "Performance" (run by scripts/bench, never by the tests):
///
///     clip-bench DATABASE REQUESTS [--seconds S]
///     clip-bench --codes [--seconds S]
///
/// Builds the server's read model from DATABASE (the start-up work), then resolves the URLs of
/// REQUESTS (one a line, as gen-dataset.py writes them) round and round for S seconds (default 3)
/// and prints one line of key=value pairs: build time, lookups, median ns per lookup over batches
/// of 1,000 (normalization and index probes, as a request does), the probes alone, whole answers
/// (the bytes the API sends), heap allocations per lookup and per answer (a counting malloc,
/// `CAllocCount`), memory, and the heap bytes a lookup leaves behind.
/// With --codes: QR codes drawn per second as SVG and as PNG (8 pixels a module, level M) for
/// typical invocation URLs (versions 3 to 5), one core, and NDEF messages per second.
@main
struct ClipBench {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var seconds = 3.0
        if let i = arguments.firstIndex(of: "--seconds"), i + 1 < arguments.count, let s = Double(arguments[i + 1]) {
            seconds = s
            arguments.removeSubrange(i...(i + 1))
        }
        if arguments == ["--codes"] {
            try codes(seconds: seconds)
            return
        }
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: clip-bench DATABASE REQUESTS [--seconds S]\n".utf8))
            exit(64)
        }
        let requests = try String(contentsOfFile: arguments[1], encoding: .utf8).split(separator: "\n").map(String.init)
        guard !requests.isEmpty else { exit(65) }

        let started = now()
        let index = try LiveIndex(path: arguments[0])
        let buildSeconds = now() - started
        let snapshot = index.snapshot()
        let moment = Instant(seconds: Int64(Date().timeIntervalSince1970))
        let urls = requests.compactMap { try? NormalizedURL($0) }
        let raw = requests.map { Array($0.utf8) }

        // Lookups: what the server does per request before rendering (normalization and probes,
        // on the URL's bytes; the full rules for what is not plain).
        var matched = 0
        let lookupNs = measure(seconds: seconds / 2, count: raw.count) { i in
            if raw[i].withUnsafeBufferPointer({ snapshot.matchID($0, at: moment) }) != nil { matched += 1 }
        }
        // Probes alone, on URLs normalized beforehand.
        let probeNs = measure(seconds: seconds / 4, count: urls.count) { i in
            if snapshot.matchID(normalized: urls[i], at: moment) != nil { matched += 1 }
        }
        // Whole answers: the answer's bytes into a reused buffer, as the server writes them, or
        // the Resolution (the full rules) when the URL is not plain or no advanced experience matches.
        var out: [UInt8] = []
        out.reserveCapacity(64 * 1024)
        func answer(_ i: Int) {
            out.removeAll(keepingCapacity: true)
            if raw[i].withUnsafeBufferPointer({ snapshot.writeAdvancedAnswer($0, preferences: [], at: moment, into: &out) }) {
                matched += 1
            } else if snapshot.resolve(requests[i], preferences: [], at: moment).match != nil {
                matched += 1
            }
        }
        let answerNs = measure(seconds: seconds / 4, count: requests.count) { answer($0) }
        // Heap allocations per lookup and per answer (a counting malloc), over the whole request mix.
        let sample = min(10_000, raw.count)
        var allocations = alloc_count_total()
        for i in 0..<sample { _ = raw[i].withUnsafeBufferPointer { snapshot.matchID($0, at: moment) } }
        let allocationsPerLookup = Double(alloc_count_total() - allocations) / Double(sample)
        allocations = alloc_count_total()
        for i in 0..<sample { answer(i) }
        let allocationsPerAnswer = Double(alloc_count_total() - allocations) / Double(sample)
        // The same through the server's entry point (the lock and the freshness check included).
        allocations = alloc_count_total()
        var served = 0
        for i in 0..<sample {
            out.removeAll(keepingCapacity: true)
            if try raw[i].withUnsafeBufferPointer({
                try index.writeAdvancedAnswer(invocationURL: $0, preferences: [], at: moment, into: &out)
            }) {
                served += 1
            }
        }
        let allocationsPerServed = served == 0 ? 0 : Double(alloc_count_total() - allocations) / Double(served)
        let before = mallocBytes()
        for i in 0..<min(10_000, urls.count) { _ = snapshot.matchID(normalized: urls[i], at: moment) }
        let retainedPerProbe = Double(mallocBytes() - before) / Double(min(10_000, urls.count))
        print(
            "experiences=\(index.count) build_s=\(format(buildSeconds)) lookup_ns=\(Int(lookupNs)) probe_ns=\(Int(probeNs)) answer_ns=\(Int(answerNs)) "
                + "allocs_per_lookup=\(String(format: "%.4f", allocationsPerLookup)) allocs_per_answer=\(String(format: "%.4f", allocationsPerAnswer)) "
                + "allocs_per_served_answer=\(String(format: "%.4f", allocationsPerServed)) plain_advanced=\(served)/\(sample) "
                + "bytes_retained_per_probe=\(format(retainedPerProbe)) arena_mib=\(snapshot.arenaBytes >> 20) "
                + "rss_mib=\(memory("VmRSS")) peak_rss_mib=\(memory("VmHWM")) matched=\(matched > 0)"
        )
    }

    static func codes(seconds: Double) throws {
        let urls = (0..<1_000).map { "https://bikesrental.example/store/\($0 * 7919 % 100_000)/rent?table=\($0 % 40)&zone=north" }
        var bytes = 0
        func rate(_ format: CodeFormat, share: Double) throws -> Double {
            var i = 0, made = 0
            let end = now() + seconds * share
            let start = now()
            repeat {
                bytes += try CodeRenderer.render(urls[i], format: format).bytes.count
                i = (i + 1) % urls.count
                made += 1
            } while now() < end
            return Double(made) / (now() - start)
        }
        let svg = try rate(.svg, share: 0.4), png = try rate(.png, share: 0.4), ndef = try rate(.ndef, share: 0.2)
        let versions = Set(try urls.prefix(50).map { try CodeRenderer.render($0, format: .svg).qrVersion ?? 0 }).sorted()
        print(
            "svg_per_s=\(Int(svg)) png_per_s=\(Int(png)) ndef_per_s=\(Int(ndef)) qr_versions=\(versions.map(String.init).joined(separator: ",")) bytes=\(bytes > 0)"
        )
    }

    /// Median over batches of 1,000 calls of the nanoseconds per call.
    static func measure(seconds: Double, count: Int, _ body: (Int) -> Void) -> Double {
        var perCall: [Double] = []
        var i = 0
        let end = now() + seconds
        repeat {
            let start = now()
            for _ in 0..<1_000 {
                body(i)
                i = i + 1 == count ? 0 : i + 1
            }
            perCall.append((now() - start) * 1e9 / 1_000)
        } while now() < end
        perCall.sort()
        return perCall[perCall.count / 2]
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func format(_ x: Double) -> String { String(format: "%.2f", x) }

    /// mallinfo2's bytes in use (glibc), to see whether lookups keep memory.
    static func mallocBytes() -> Int { Int(clinuxio_heap_bytes_in_use()) }

    static func memory(_ field: String) -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        let kib = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return String(format: "%.0f", kib / 1024)
    }
}
