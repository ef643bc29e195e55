import Foundation
import StrictJSON
import Testing
@testable import ClipCore

/// `DomainName.normalize` scored against the UTS #46 conformance file (IdnaTestV2, as WPT converts
/// it for the URL Standard), the measure docs/rules.md#host-names states.
struct UTS46Conformance {
    /// Figures of one run.
    var refusalsExpected = 0, refused = 0
    var clean = 0, mappedExactly = 0, refusedByStatedRule = 0
    var std3Excluded = 0, std3Refused = 0
    var otherShapes = 0, otherShapesRefusedByStatedRule = 0
    var failures: [String] = []

    /// The registry's own rules beyond browsers' (docs/rules.md#host-names): a clean name refused
    /// for one of them counts as handled (a single label only where it maps exactly in a longer name).
    static func isStatedRule(_ problem: DomainName.Problem) -> Bool {
        switch problem {
        case .empty, .singleLabel, .ipAddress, .ipv6Literal, .notIPv4, .hyphenAtEdge, .emptyLabel, .labelTooLong, .tooLong: true
        default: false
        }
    }

    /// An ordinary DNS name: labels of lower-case letters, digits and hyphens, 1–63 long, no hyphen
    /// at either end, at most 253 in all (a trailing dot, the root, aside).
    static func isOrdinaryDNSName(_ name: String) -> Bool {
        let body = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard body.utf8.count <= 253 else { return false }
        return body.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        }
    }

    init(file: URL) throws {
        let entries =
            try JSONParser.parse(Array(Self.withoutLoneSurrogates(try String(contentsOf: file, encoding: .utf8)).utf8)).arrayValue ?? []
        for entry in entries {
            guard let input = entry["input"]?.stringValue else { continue }  // the file's header strings
            score(input: input, output: entry["output"]?.stringValue, comment: entry["comment"]?.stringValue ?? "")
        }
    }

    /// A lone surrogate escape (two inputs of the full file) becomes U+FFFD, as a browser's
    /// USVString conversion makes it (WebIDL §3.2.11); the vendored copy leaves those two out.
    static func withoutLoneSurrogates(_ json: String) -> String {
        let loneSurrogate =
            #"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"#
        let expression = try! NSRegularExpression(pattern: loneSurrogate)
        return expression.stringByReplacingMatches(
            in: json, range: NSRange(json.startIndex..., in: json), withTemplate: #"\\uFFFD"#)
    }

    mutating func score(input: String, output: String?, comment: String) {
        // The converter's comment lists the statuses; "(ignored)" ones are the flags browsers turn
        // off. Any other status is an error, whatever the output says (the vendored converter kept
        // some outputs it should have nulled).
        let statuses = comment.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let errors = statuses.filter { !$0.hasSuffix("(ignored)") }
        var ours: Result<String, DomainName.Problem> { Result { () throws(DomainName.Problem) in try DomainName.normalize(input) } }
        let shown = "\(input.unicodeScalars.map { String($0.value, radix: 16) }) [\(comment)]"
        guard let output, errors.isEmpty else {
            refusalsExpected += 1
            if case .failure = ours { refused += 1 } else { failures.append("\(shown): mapped, expected a refusal") }
            return
        }
        if statuses.contains(where: { $0.hasPrefix("U1") }) {
            std3Excluded += 1
            if case .failure = ours { std3Refused += 1 }
            return
        }
        guard Self.isOrdinaryDNSName(output) else {
            otherShapes += 1
            if case .failure(let problem) = ours, Self.isStatedRule(problem) {
                otherShapesRefusedByStatedRule += 1
            } else {
                failures.append("\(shown): \(String(describing: ours)), expected a refusal by a stated rule for \(output)")
            }
            return
        }
        clean += 1
        let expected = output.hasSuffix(".") ? String(output.dropLast()) : output
        switch ours {
        case .success(expected): mappedExactly += 1
        case .failure(.singleLabel) where !output.hasSuffix("."):
            // Refused as a single label (a stated rule): the same label in a longer name must map exactly.
            if (try? DomainName.normalize(input + ".example")) == expected + ".example" {
                refusedByStatedRule += 1
            } else {
                failures.append("\(shown): as \(input).example not \(expected).example")
            }
        case .failure(let problem) where Self.isStatedRule(problem): refusedByStatedRule += 1
        case .success(let got): failures.append("\(shown): \(got), expected \(expected)")
        case .failure(let problem): failures.append("\(shown): refused (\(problem.message)), expected \(expected)")
        }
    }

    var report: String {
        let handled = mappedExactly + refusedByStatedRule
        return """
            UTS #46 conformance: clean ordinary DNS names \(handled)/\(clean) handled \
            (\(mappedExactly) mapped exactly, \(refusedByStatedRule) refused by a stated rule), \
            \(String(format: "%.2f", 100 * Double(handled) / Double(max(clean, 1))))%; \
            refusals \(refused)/\(refusalsExpected); \
            STD3-excluded names refused \(std3Refused)/\(std3Excluded); \
            other shapes refused by a stated rule \(otherShapesRefusedByStatedRule)/\(otherShapes)
            """
    }

    /// The thresholds of issue 24 (docs/rules.md#host-names).
    func expectThresholds() {
        print(report)
        for failure in failures.prefix(20) { print("  \(failure)") }
        #expect(clean > 400, "too few clean names: is this the conformance file?")
        #expect(Double(mappedExactly + refusedByStatedRule) >= 0.99 * Double(clean), "\(report)")
        #expect(refused == refusalsExpected, "\(report)")
        #expect(std3Refused == std3Excluded, "\(report)")
        #expect(otherShapesRefusedByStatedRule == otherShapes, "\(report)")
    }
}

struct UTS46ConformanceTests {
    @Test func vendoredConformanceFile() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/idna/IdnaTestV2.json")
        let conformance = try UTS46Conformance(file: url)
        #expect(conformance.refusalsExpected + conformance.clean + conformance.std3Excluded + conformance.otherShapes == 2_669)
        conformance.expectThresholds()
    }

    /// The full file beside the repository (`.ci/run` → scripts/idna-conformance sets the variable).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IDNA_CONFORMANCE_FILE"] != nil))
    func fullConformanceFile() throws {
        let path = ProcessInfo.processInfo.environment["IDNA_CONFORMANCE_FILE"]!
        try UTS46Conformance(file: URL(fileURLWithPath: path)).expectThresholds()
    }

    /// Every host the URL Standard's own tests read as an IPv4 address (urltestdata.json: an output
    /// hostname of four decimal parts from another spelling) is refused as an IP address.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IDNA_URLTESTDATA_FILE"] != nil))
    func everyIPv4FormOfTheURLTests() throws {
        let path = ProcessInfo.processInfo.environment["IDNA_URLTESTDATA_FILE"]!
        let entries = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).arrayValue ?? []
        var forms = 0, refused = 0
        for entry in entries {
            guard let input = entry["input"]?.stringValue, let hostname = entry["hostname"]?.stringValue,
                hostname.split(separator: ".").count == 4, hostname.split(separator: ".").allSatisfy({ UInt8($0) != nil }),
                let rest = ["http://", "https://"].lazy.compactMap({ input.hasPrefix($0) ? input.dropFirst($0.count) : nil }).first
            else { continue }
            let host = String(rest.prefix { !"/?#:".contains($0) })
            guard !host.contains("@"), !host.contains("%"), !host.contains("\\"), host != hostname else { continue }
            forms += 1
            if case .failure(.ipAddress) = Result(catching: { () throws(DomainName.Problem) in try DomainName.normalize(host) }) {
                refused += 1
            } else {
                Issue.record("\(host) is not refused as an IP address")
            }
        }
        print("IPv4 forms of urltestdata.json refused as IP addresses: \(refused)/\(forms)")
        #expect(forms > 10)
    }
}
