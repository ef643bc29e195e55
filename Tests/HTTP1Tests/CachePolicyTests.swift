import Foundation
import HTTP1
import Testing

/// The caching rule of public answers (RFC 9110 §13, RFC 9111 §5.2) and HTTP dates (RFC 9110 §5.6.7).
struct CachePolicyTests {
    let ok = HTTPResponse(status: 200, contentType: "application/json", body: Array(#"{"a":1}"#.utf8))
    let now: Int64 = 1_700_000_000

    func get(_ headers: [(String, String)] = [], method: String = "GET") -> HTTPRequest {
        HTTPRequest(method: method, target: "/x", headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
    }

    @Test func aPublicAnswerGetsItsFields() {
        let policy = CachePolicy(.publicFor(seconds: 30), vary: ["Accept", "Accept-Language"])
        let r = policy.apply(to: ok, request: get(), entityTag: "\"abc\"", lastModified: now - 100, now: now)
        #expect(r.status == 200 && r.body == ok.body)
        #expect(r.headers["Cache-Control"] == "public, max-age=30")
        #expect(r.headers["ETag"] == "\"abc\"")
        #expect(r.headers["Vary"] == "Accept, Accept-Language")
        #expect(r.headers["Last-Modified"] == HTTPDate.format(now - 100))
        #expect(CachePolicy(.immutable).cacheControl == "public, max-age=31536000, immutable")
    }

    @Test func theResponsesOwnTagWins() {
        var tagged = ok
        tagged.headers.add("ETag", "\"own\"")
        let r = CachePolicy(.publicFor(seconds: 1)).apply(
            to: tagged, request: get(), entityTag: "\"computed\"", lastModified: nil, now: now)
        #expect(r.headers.all("ETag") == ["\"own\""])
        #expect(r.headers["Last-Modified"] == nil)
    }

    @Test func ifNoneMatchUsesTheWeakComparison() {
        let policy = CachePolicy(.publicFor(seconds: 30), vary: ["Accept-Language"])
        for (value, expected) in [
            ("\"abc\"", 304), ("W/\"abc\"", 304), ("\"x\", \"abc\"", 304), ("*", 304), ("\"abcd\"", 200), ("abc", 200),
            ("\"ABC\"", 200), ("", 200), ("\"x\",W/\"abc\"", 304),
        ] {
            let r = policy.apply(to: ok, request: get([("If-None-Match", value)]), entityTag: "\"abc\"", lastModified: nil, now: now)
            #expect(r.status == expected, "If-None-Match: \(value)")
            if expected == 304 {
                // RFC 9110 §15.4.5: no body, the validators and caching fields of the 200, not its Content-Type.
                #expect(r.body.isEmpty && r.headers["ETag"] == "\"abc\"" && r.headers["Vary"] == "Accept-Language")
                #expect(r.headers["Cache-Control"] == "public, max-age=30" && r.headers["Content-Type"] == nil)
            }
        }
    }

    @Test func ifModifiedSinceOnlyWithoutIfNoneMatchAndOnlyForPastSeconds() {
        let policy = CachePolicy(.publicFor(seconds: 30))
        let changed = now - 100
        func status(_ headers: [(String, String)], lastModified: Int64? = nil) -> Int {
            policy.apply(to: ok, request: get(headers), entityTag: "\"t\"", lastModified: lastModified ?? changed, now: now).status
        }
        #expect(status([("If-Modified-Since", HTTPDate.format(changed))]) == 304)
        #expect(status([("If-Modified-Since", HTTPDate.format(changed - 1))]) == 200, "changed after the client's copy")
        // §13.2.2: If-None-Match, when present, decides alone.
        #expect(status([("If-None-Match", "\"other\""), ("If-Modified-Since", HTTPDate.format(changed))]) == 200)
        // A date that cannot be read is ignored (§13.1.3); the same second as now is not trusted (§8.8.2.2).
        #expect(status([("If-Modified-Since", "yesterday")]) == 200)
        #expect(status([("If-Modified-Since", HTTPDate.format(now))], lastModified: now) == 200)
    }

    @Test func onlyA200ToGETOrHEADIsCacheable() {
        let policy = CachePolicy(.publicFor(seconds: 30))
        let missing = HTTPResponse(status: 404, text: "no")
        #expect(policy.apply(to: missing, request: get(), entityTag: "\"t\"", lastModified: now, now: now).headers["Cache-Control"] == nil)
        let head = policy.apply(
            to: ok, request: get([("If-None-Match", "\"t\"")], method: "HEAD"), entityTag: "\"t\"", lastModified: nil, now: now)
        #expect(head.status == 304)
        #expect(policy.apply(to: ok, request: get(method: "POST"), entityTag: "\"t\"", lastModified: nil, now: now).headers["ETag"] == nil)
    }

    @Test func noStoreIsNeverCacheableButStillValidates() {
        let policy = CachePolicy(.noStore)
        let error = policy.apply(to: HTTPResponse(status: 401, text: "no"), request: get(), entityTag: "", lastModified: nil, now: now)
        #expect(error.headers["Cache-Control"] == "no-store")
        var tagged = ok
        tagged.headers.add("ETag", "\"e1-v2\"")
        let r = policy.apply(to: tagged, request: get([("If-None-Match", "\"e1-v2\"")]), entityTag: "", lastModified: now, now: now)
        #expect(r.status == 304 && r.headers["Cache-Control"] == "no-store" && r.headers["Last-Modified"] == nil)
        let untagged = policy.apply(to: ok, request: get([("If-None-Match", "*")]), entityTag: "\"x\"", lastModified: nil, now: now)
        #expect(untagged.status == 200 && untagged.headers["ETag"] == nil)
    }

    /// Against Foundation's own RFC 1123 formatter, an independent implementation.
    @Test func datesAgreeWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] = [0, 784_111_777, 951_782_400, 1_709_164_800, 4_102_444_799, -1, -86_400 * 365]
        let random = (0..<500).map { _ in Int64.random(in: -2_000_000_000...8_000_000_000, using: &generator) }
        for seconds in samples + random {
            let text = HTTPDate.format(seconds)
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
            if seconds >= 0 { #expect(HTTPDate.parse(text) == seconds, "\(text)") }
        }
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT", "RFC 9110 §5.6.7's example")
    }

    @Test func hostileDatesAreIgnored() {
        for text in [
            "", " ", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Mon, 06 Nov 1994 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT extra", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun,\u{200B} 06 Nov 1994 08:49:37 GMT", String(repeating: "Sun, ", count: 10_000), "Sun, 06 Nov +994 08:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text.prefix(40))")
        }
    }
}
