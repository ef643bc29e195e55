import HTTP1
import Testing

/// A hot answer (`HotBuffers.appendAnswer`) is the bytes `ResponseWriter.serialize` writes for the same response,
/// request id included: the hot routes answer as the ordinary way does (docs/architecture.md#the-path-of-a-request).
struct HotAnswerTests {
    /// The head's `Date` line, which the two writers take at their own moment.
    static func undated(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
    }

    @Test func aProblemIsWhatTheResponseWriterWrites() {
        var buffers = HotBuffers()
        buffers.out = Array("an answer before it\n".utf8)
        buffers.body = Array(#"{"detail":"not found"}"#.utf8)
        let id = buffers.appendAnswer(status: 404, contentType: "application/problem+json", isHEAD: false)
        let requestID = String(decoding: buffers.out[id], as: UTF8.self)
        #expect(requestID.count == 16 && requestID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        var response = HTTPResponse(status: 404, contentType: "application/problem+json", body: buffers.body)
        response.headers.add("X-Request-Id", requestID)
        let expected = Array("an answer before it\n".utf8) + ResponseWriter.serialize(response, includeBody: true, keepAlive: true)
        #expect(Self.undated(buffers.out) == Self.undated(expected))
    }

    @Test func aCacheableAnswerCarriesItsTagPolicyAndDateAndHEADNoBody() {
        let policy = CachePolicy(.publicFor(seconds: 60), vary: ["Accept-Language"])
        for isHEAD in [false, true] {
            var buffers = HotBuffers()
            buffers.body = Array(#"{"ok":true}"#.utf8)
            let id = buffers.appendAnswer(
                status: 200, contentType: "application/json", entityTag: .given("\"v1\""), cachingFields: policy.fieldLines,
                lastModified: 784_111_777, isHEAD: isHEAD)
            let text = Self.undated(buffers.out)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"v1\"\r\n"))
            #expect(
                text.contains(
                    "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Request-Id: \(String(decoding: buffers.out[id], as: UTF8.self))\r\n")
            )
            #expect(text.contains("Content-Length: 11\r\n\r\n"))
            #expect(text.hasSuffix(isHEAD ? "\r\n\r\n" : #"{"ok":true}"#))
        }
    }

    @Test func requestIDsAreEchoedWhenSafeAndNeverRepeated() {
        #expect(RequestID.echoing("abc-1.2_3") == "abc-1.2_3")
        for unsafe in ["", "a b", "a\r\nX: y", String(repeating: "a", count: 129), "é"] {
            #expect(RequestID.echoing(unsafe) != unsafe)
        }
        let made = (0..<1000).map { _ in RequestID.echoing(nil) }
        #expect(Set(made).count == made.count)
    }
}
