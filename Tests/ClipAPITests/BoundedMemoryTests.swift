import ClipAPI
import Foundation
import HTTP1
import Testing

/// Nothing an anonymous client sends grows the server without bound: `/metrics` label sets are
/// fixed whatever the methods, hosts and paths.
struct BoundedMemoryTests {
    func seriesCount(_ metrics: String) -> Int { metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.count }

    @Test(arguments: APITransport.allCases) func madeUpMethodsHostsAndPathsAddNoMetricsSeries(_ transport: APITransport) throws {
        let fixture = try APIFixture(transport)
        func hostileRequests(_ range: Range<Int>) throws {
            for i in range {
                try fixture.call("M\(i)X", "/v1/resolve")
                try fixture.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "h\(i).example")])
                try fixture.call("GET", "/unknown/\(i)")
            }
        }
        try hostileRequests(0..<3)
        try fixture.call("GET", "/metrics")  // its own series
        let before = try fixture.call("GET", "/metrics").text
        try hostileRequests(3..<1_500)
        let after = try fixture.call("GET", "/metrics")
        #expect(after.status == 200)
        #expect(seriesCount(after.text) == seriesCount(before), "series: \(seriesCount(before)) → \(seriesCount(after.text))")
        #expect(after.body.count < 12_000, "bytes: \(after.body.count)")
        #expect(after.text.contains(#"method="other""#))
        #expect(!after.text.contains("M17X"))
        // Still answering, and the known host is still served.
        #expect(try fixture.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")]).status == 200)
    }
}
