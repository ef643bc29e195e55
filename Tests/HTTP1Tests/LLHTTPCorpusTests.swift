import Foundation
import Testing
@testable import HTTP1

/// Scores `RequestHeadParser` against Node.js's llhttp request test cases, vendored in
/// Fixtures/llhttp/cases.json by scripts/extract-llhttp-cases (see PROVENANCE.md there).
///
/// Each case's bytes go through the server's own loop (Server.serve): skip empty lines before a
/// request line (RFC 9112 §2.2), parse a head, take Content-Length bytes of body, stop after a
/// request that does not keep the connection alive (the server answers and closes), go on while
/// bytes remain. The outcome (accept, reject, incomplete, or the heads before an llhttp upgrade)
/// and, for accepted heads, method, target and ASCII header values are compared with llhttp's.
///
/// HTTP/1.1 requires Host (RFC 9112 §3.2) and most llhttp cases have none; so that the rest of
/// each case is still tested, a `Host: llhttp.test` line is added to an HTTP/1.1 head without one
/// (counted in the summary). Every disagreement is listed in `deliberate` with its reason; the
/// test fails when a case's outcome differs from what the list says.
struct LLHTTPCorpusTests {
    struct Corpus: Decodable { let cases: [Case] }
    struct Case: Decodable {
        let name: String
        let type: String
        let raw: String
        let expect: String
        let error: String?
        let messages: [Message]
    }
    struct Message: Decodable {
        let method: String
        let target: String
        let headers: [[String]]
    }

    enum Reason: String, CaseIterable {
        case transferEncoding =
            "Transfer-Encoding is answered 501: no chunked request bodies (RFC 9112 §6.1, §7: a server may refuse a coding it does not implement)"
        case lenient =
            "llhttp accepts only with a leniency flag on; we apply RFC 9112 strictly (§2.2 CRLF, §5.1 no whitespace before ':', §5.2 obs-fold, §2.3 version, §6.3 TE with CL; RFC 9110 §5.5 no controls in values)"
        case keepAliveOff =
            "after a request without keep-alive we answer and close; later bytes are never parsed (RFC 9112 §9.6), llhttp reports them as an error"
        case decidedAtHeadEnd = "llhttp rejects mid-head; we judge a head once its blank line arrives, and then reject it too (checked)"
        case proxyForms = "an origin server: CONNECT and authority-form are for proxies (RFC 9112 §3.2.3); answered 400"
        case userinfo = "userinfo in an http(s) target is an error (RFC 9110 §4.2.4)"
        case asteriskForm = "asterisk-form only with OPTIONS (RFC 9112 §3.2.4)"
        case anyMethod =
            "any token is a method (RFC 9112 §3.1, RFC 9110 §9.1); llhttp knows a fixed list, we leave unknown ones to the router"
        case notHTTP = "only HTTP/1.0 and HTTP/1.1 request lines: no HTTP/0.9, RTSP or ICE (RFC 9112 §2.3, §3)"
        case http2Preface = "no HTTP/2 with prior knowledge over HTTP/1.1 (RFC 9113 §3.3); PRI * is a 400"
        case llhttpTestOption =
            "llhttp's test skips the body from its callback (skipBody); a server has no such option and waits for Content-Length bytes"
    }

    /// Cases whose outcome differs from llhttp's, and why. Keyed by case name.
    static let deliberate: [String: Reason] = [
        "connection/No restart when keep-alive is off (1.0)": .keepAliveOff,
        "connection/Resetting flags when keep-alive is off (1.0, lenient)": .keepAliveOff,
        "connection/CRLF between requests, explicit `close`": .keepAliveOff,
        "connection/CRLF between requests, explicit `close` followed by tab": .keepAliveOff,
        "connection/CRLF between requests, explicit `close` (lenient)": .keepAliveOff,
        "connection/Multiple tokens with folding": .lenient,
        "connection/Multiple tokens with folding, LWS, and CRLF": .lenient,
        "connection/Invalid whitespace token with `Connection` header field (lenient)": .lenient,
        "content-length/Error on `Content-Length` overflow": .decidedAtHeadEnd,
        "content-length/Error on duplicate `Content-Length`": .decidedAtHeadEnd,
        "content-length/Invalid whitespace token with `Content-Length` header field (lenient)": .lenient,
        "content-length/No error on simultaneous `Content-Length` and `Transfer-Encoding: identity` (lenient)": .lenient,
        "content-length/Content-Length reset when no body is received": .llhttpTestOption,
        "content-length/Missing CRLF-CRLF before body (lenient)": .lenient,
        "invalid/HTTP protocol and ANNOUNCE method": .anyMethod,
        "invalid/Invalid method": .anyMethod,
        "invalid/Invalid HTTP version": .decidedAtHeadEnd,
        "invalid/Invalid space after start line": .decidedAtHeadEnd,
        "invalid/Only LFs present (lenient)": .lenient,
        "invalid/Spaces before headers (lenient)": .lenient,
        "lenient-header-value-relaxed/Control char in header value (relaxed)": .lenient,
        "lenient-header-value-relaxed/Space after start line must still fail": .decidedAtHeadEnd,
        "lenient-headers/Header value (lenient)": .lenient,
        "lenient-headers/Second request header value (lenient)": .lenient,
        "lenient-headers/Empty headers separated by CR (lenient)": .lenient,
        "lenient-version/Invalid HTTP version (lenient)": .lenient,
        "method/CONNECT request": .proxyForms,
        "method/CONNECT request with CAPS": .proxyForms,
        "method/CONNECT with body": .proxyForms,
        "method/M-SEARCH request": .asteriskForm,
        "method/SOURCE request with ICE": .notHTTP,
        "method/OPTIONS request with RTSP": .notHTTP,
        "method/ANNOUNCE request with RTSP": .notHTTP,
        "method/PRI request HTTP2": .http2Preface,
        "pausing/on_chunk_header": .transferEncoding,
        "pausing/on_chunk_extension_name": .transferEncoding,
        "pausing/on_chunk_extension_value": .transferEncoding,
        "pausing/on_chunk_complete": .transferEncoding,
        "sample/No HTTP version": .notHTTP,
        "sample/Line folding in header value with CRLF": .lenient,
        "sample/No LF after CR (lenient)": .lenient,
        "sample/X-SSL-Nonsense": .lenient,
        "transfer-encoding/Parsing and setting flag": .transferEncoding,
        "transfer-encoding/Parse chunks with lowercase size": .transferEncoding,
        "transfer-encoding/Parse chunks with uppercase size": .transferEncoding,
        "transfer-encoding/POST with `Transfer-Encoding: chunked`": .transferEncoding,
        "transfer-encoding/Two chunks and triple zero prefixed end chunk": .transferEncoding,
        "transfer-encoding/Trailing headers": .transferEncoding,
        "transfer-encoding/Chunk extensions": .transferEncoding,
        "transfer-encoding/Chunk extensions quoting": .transferEncoding,
        "transfer-encoding/POST with `Transfer-Encoding` and `Content-Length` (lenient)": .lenient,
        "transfer-encoding/POST with `chunked` before other transfer-coding (lenient)": .lenient,
        "transfer-encoding/POST with `chunked` and duplicate transfer-encoding (lenient)": .lenient,
        "transfer-encoding/POST with `chunked` as last transfer-encoding": .transferEncoding,
        "transfer-encoding/POST with `chunked` as last transfer-encoding (multiple headers)": .transferEncoding,
        "transfer-encoding/Chunk header not terminated by CRLF (lenient)": .lenient,
        "transfer-encoding/Chunk data not terminated by CRLF (lenient)": .lenient,
        "transfer-encoding/Space after chunk header (lenient)": .lenient,
        "uri/Underscore in hostname": .proxyForms,
        "uri/`host:port` and basic auth": .userinfo,
    ]

    static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/llhttp/cases.json")

    /// The fixture's escapes: \r \n \t \\ \xHH.
    static func bytes(_ escaped: String) -> [UInt8] {
        var out: [UInt8] = []
        let s = Array(escaped.utf8)
        var i = 0
        while i < s.count {
            guard s[i] == 0x5C, i + 1 < s.count else { out.append(s[i]); i += 1; continue }
            switch s[i + 1] {
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "x"): out.append(UInt8(String(decoding: s[(i + 2)..<(i + 4)], as: UTF8.self), radix: 16)!); i += 4
            default: out.append(s[i + 1]); i += 2
            }
        }
        return out
    }

    /// An HTTP/1.1 head (CRLF lines) with no Host line gets one after its request line; returns the
    /// bytes and how many were added.
    static func addingHost(_ rest: [UInt8]) -> ([UInt8], Int) {
        let text = String(decoding: rest, as: UTF8.self)
        guard let lineEnd = rest.firstIndex(of: 0x0A), lineEnd > 0, rest[lineEnd - 1] == 0x0D else { return (rest, 0) }
        let requestLine = String(decoding: rest[..<(lineEnd - 1)], as: UTF8.self)
        guard requestLine.hasSuffix(" HTTP/1.1") else { return (rest, 0) }
        let headEnd = text.range(of: "\r\n\r\n").map { text.utf8.distance(from: text.startIndex, to: $0.lowerBound) } ?? rest.count
        let head = String(decoding: rest[..<headEnd], as: UTF8.self).lowercased()
        if head.contains("\r\nhost:") || head.contains("\r\nhost ") { return (rest, 0) }
        let line = Array("Host: llhttp.test\r\n".utf8)
        return (Array(rest[...lineEnd]) + line + Array(rest[(lineEnd + 1)...]), line.count)
    }

    struct Run {
        var outcome = "accept"
        var heads: [RequestHead] = []
        var error: RequestError?
        var hostAdded = false
    }

    /// The server's loop over one connection's bytes.
    static func run(_ input: [UInt8], upgradeAfter: Int?) -> Run {
        var run = Run()
        var pos = 0
        while true {
            while pos + 1 < input.count, input[pos] == 0x0D, input[pos + 1] == 0x0A { pos += 2 }
            guard pos < input.count else { return run }
            let (rest, added) = addingHost(Array(input[pos...]))
            if added > 0 { run.hostAdded = true }
            let outcome = rest.withUnsafeBytes { raw in
                Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: HTTPLimits()) }
            }
            switch outcome {
            case .failure(let error):
                run.outcome = "reject"
                run.error = error
                return run
            case .success(.incomplete):
                run.outcome = "incomplete"
                return run
            case .success(.complete(let head, let length)):
                run.heads.append(head)
                if run.heads.count == upgradeAfter { run.outcome = "upgrade"; return run }
                pos += length - added
                guard input.count - pos >= head.contentLength else { run.outcome = "incomplete"; return run }
                pos += head.contentLength
                if !head.keepAlive { return run }
            }
        }
    }

    /// Where our heads differ from llhttp's (method, target, ASCII header values); empty if none.
    static func detailDifferences(_ c: Case, _ heads: [RequestHead]) -> [String] {
        var differences: [String] = []
        for (expected, head) in zip(c.messages, heads) {
            if expected.method != head.method { differences.append("method \(head.method) ≠ \(expected.method)") }
            var target = expected.target, absolute = false
            for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
                absolute = true
                target = String(target.dropFirst(scheme.count).drop(while: { $0 != "/" && $0 != "?" }))
                if !target.hasPrefix("/") { target = "/" + target }
            }
            if target != head.target { differences.append("target \(head.target) ≠ \(target)") }
            for pair in expected.headers where pair[1].utf8.allSatisfy({ $0 < 0x80 }) {
                if absolute && pair[0].lowercased() == "host" { continue }
                // llhttp's value span keeps trailing whitespace; OWS is not part of a field value (RFC 9112 §5).
                let value = pair[1].trimmingOWS()
                if !head.headers.all(pair[0]).contains(value) {
                    differences.append("\(pair[0]): \(head.headers.all(pair[0])) ≠ \(value.debugDescription)")
                }
            }
        }
        return differences
    }

    @Test func llhttpRequestCorpus() throws {
        let corpus = try JSONDecoder().decode(Corpus.self, from: Data(contentsOf: Self.fixtureURL))
        var agree = 0, hostAdded = 0, byReason: [Reason: Int] = [:]
        var report: [String] = []
        for c in corpus.cases {
            let run = Self.run(Self.bytes(c.raw), upgradeAfter: c.expect == "upgrade" ? c.messages.count : nil)
            if run.hostAdded { hostAdded += 1 }
            var differences = run.outcome == c.expect ? [] : ["\(run.outcome) ≠ llhttp \(c.expect)"]
            differences += Self.detailDifferences(c, run.heads)
            let describe =
                "\(c.name) [\(c.type)]: \(differences.joined(separator: "; ")) (ours: \(run.error.map { "\($0.status) \($0.message)" } ?? "-"); llhttp: \(c.error ?? "-"))"
            switch (differences.isEmpty, Self.deliberate[c.name]) {
            case (true, nil): agree += 1
            case (true, .some): Issue.record("listed as deliberate but now agrees with llhttp: \(describe)")
            case (false, .some(let reason)):
                byReason[reason, default: 0] += 1
                if reason == .decidedAtHeadEnd {
                    let finished = Self.run(Self.bytes(c.raw) + Array("\r\n\r\n".utf8), upgradeAfter: nil)
                    #expect(finished.outcome == "reject", "\(c.name): the completed head should be refused")
                }
            case (false, nil):
                report.append(describe)
                Issue.record("disagrees with llhttp and is not listed: \(describe)")
            }
        }
        let deliberate = byReason.values.reduce(0, +)
        print("llhttp request corpus: agree \(agree), deliberate \(deliberate), of \(corpus.cases.count) (Host added to \(hostAdded))")
        for reason in Reason.allCases where byReason[reason] != nil { print("  \(byReason[reason]!)  \(reason.rawValue)") }
        for line in report { print("  UNLISTED \(line)") }
        #expect(corpus.cases.count == 166)
    }
}
