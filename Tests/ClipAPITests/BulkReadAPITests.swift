import ClipAPI
import ClipCore
import ClipStore
import FileFormats
import Foundation
import HTTP1
import Locking
import StrictJSON
import Testing

/// `GET /v1/bulk`: the registry page by page in the caller's scope, with cursors only the server makes.
@Suite(.serialized) struct BulkReadAPITests {
    /// Every page from the start (or from `cursor`): the records' JSON and how many pages it took.
    static func readAll(
        _ f: APIFixture, token: String, query: String = "", cursor: String? = nil
    ) throws -> (records: [JSONValue], pages: Int) {
        var records: [JSONValue] = []
        var next = cursor, pages = 0
        repeat {
            var parts = query.isEmpty ? [] : [query]
            if let next { parts.append("cursor=\(next)") }
            let r = try f.call("GET", "/v1/bulk" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&")), token: token)
            try #require(r.status == 200, "\(r.text)")
            let page = try f.jsonOf(r)
            records += page["items"]?.arrayValue ?? []
            next = page["nextCursor"]?.stringValue
            pages += 1
        } while next != nil
        return (records, pages)
    }

    static func text(_ records: [JSONValue]) -> String { records.map { JSONWriter.string($0) }.joined(separator: "\n") }

    @Test(arguments: APITransport.allCases) func aTeamReadsOnlyItsOwnRows(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for (clip, subtitle) in [("com.a.app.Clip", "A"), ("com.b.app.Clip", "B")] {
            let token = clip.contains(".a.") ? f.teamA : f.teamB
            let r = try f.call(
                "PUT", "/v1/clips/\(clip)/default-experience", token: token,
                json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"\#(subtitle)"}}}"#)
            try #require(r.status == 201, "\(r.text)")
        }
        let all = Self.text(try Self.readAll(f, token: f.admin).records)
        for seen in ["ABCDE12345", "FGHIJ67890", "a.example", "b.example", "\"kind\":\"defaultExperience\"", "\"kind\":\"host\""] {
            #expect(all.contains(seen), "the admin reads \(seen)")
        }
        // Page by page (one record a page) or at once, another team's rows never show; nor through ?host=.
        for query in ["", "limit=1", "host=b.example", "host=b.example&limit=1"] {
            let a = try Self.readAll(f, token: f.teamA, query: query)
            let text = Self.text(a.records)
            #expect(!text.contains("FGHIJ67890") && !text.contains("b.example") && !text.contains("com.b.app"), "\(query): \(text)")
            if query.hasPrefix("limit=1") { #expect(a.pages >= a.records.count, "\(query): a record a page") }
        }
        let own = Self.text(try Self.readAll(f, token: f.teamA).records)
        #expect(own.contains("https://a.example/store") && own.contains("\"kind\":\"host\""))
        // A cursor forged to start anywhere is only a place in the caller's own scope.
        for forged in ["apps ", "hosts a", "sharedHosts a", "experiences https://a"] {
            let cursor = Data(forged.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let r = try f.call("GET", "/v1/bulk?cursor=\(cursor)", token: f.teamA)
            #expect(!r.text.contains("FGHIJ67890") && !r.text.contains("b.example"), "\(forged): \(r.text)")
        }
        #expect(try f.call("GET", "/v1/bulk").status == 401)
    }

    @Test(arguments: APITransport.allCases) func cursorsAndLimitsNotTheServersAreRefused(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
        }
        let garbage = [
            "", "!!!", "AAAA", "%00", "a%20b", base64url("nosuch https://a.example/"), base64url("experiences "), base64url("experiences"),
            base64url("apps"), "____", String(repeating: "A", count: 5000), base64url("\u{200B}experiences x"), "YXBwcyB4=",
        ]
        for cursor in garbage {
            let r = try f.call("GET", "/v1/bulk?cursor=\(cursor)", token: f.admin)
            #expect(
                r.status == 400 && r.headers["Content-Type"] == "application/problem+json", "\(cursor.prefix(40)): \(r.status) \(r.text)")
        }
        for limit in ["0", "-1", "1001", "99999999999999999999999", "1e3", "", "%205", "0x10"] {
            let r = try f.call("GET", "/v1/bulk?limit=\(limit)", token: f.admin)
            #expect(r.status == 422 && r.text.contains("\"limit\""), "limit=\(limit): \(r.status)")
        }
        #expect(try f.call("GET", "/v1/bulk?host=not%20a%20host", token: f.admin).status == 422)
        #expect(try f.call("GET", "/v1/bulk?limit=1000", token: f.admin).status == 200)
    }

    /// Each host record's AASA is, byte for byte, the file the server serves for the host.
    @Test(arguments: APITransport.allCases) func hostRecordsCarryTheServedBytes(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let hosts = try Self.readAll(f, token: f.admin).records.filter { $0["kind"] == "host" }.compactMap(\.["value"])
        #expect(hosts.count == 2)
        for host in hosts {
            let name = host["host"]?.stringValue ?? ""
            let served = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", name)])
            #expect(served.status == 200 && Base64.decode(host["aasa"]?.stringValue ?? "") == served.body, "\(name)")
        }
    }

    /// 10,000 experiences read 997 at a time while another connection adds, changes and removes
    /// experiences: no record is given twice, and every experience that exists throughout is given.
    @Test func tenThousandExperiencesPageExactlyUnderConcurrentWrites() throws {
        let f = try APIFixture(.live)
        let registry = try Registry(path: f.path)
        let lines = (0..<10_000).map { i in
            #"{"url":"https://a.example/p/\#(String(format: "%05d", i))","clip":"ABCDE12345.com.a.app.Clip","title":"T\#(i)","subtitle":"S"}"#
        }
        let report = try registry.importExperiences(lines.joined(separator: "\n") + "\n", format: .ndjson)
        try #require(report.imported == 10_000, "\(report)")
        let stable = Set(lines.indices.filter { $0 % 10 != 3 }.map { "https://a.example/p/\(String(format: "%05d", $0))" })
        let stop = Locked(false)
        let writes = Locked(0)
        let path = f.path
        let writer = Thread {
            // A connection of its own, as another process would have.
            guard let registry = try? Registry(path: path) else { return }
            var i = 0
            while !stop.withLock({ $0 }) {
                do {
                    // Added between and after the pages' keys, one removed from those not in `stable`, one changed.
                    _ = try registry.register(
                        try JSONParser.parse(
                            #"{"url":"https://a.example/p/\#(String(format: "%05d", (i * 7919) % 10_000))x","clip":"ABCDE12345.com.a.app.Clip","title":"N","subtitle":"S"}"#
                        ))
                    _ = try? registry.remove("https://a.example/p/\(String(format: "%05d", (i * 10 + 3) % 10_000))")
                    let changed = "https://a.example/p/\(String(format: "%05d", (i * 31) % 10_000 / 10 * 10))"
                    _ = try registry.update(changed, with: .object(["title": .string("U\(i)")]))
                    writes.withLock { $0 += 1 }
                } catch {}
                i += 1
            }
        }
        writer.start()
        let read = try Self.readAll(f, token: f.admin, query: "limit=997")
        stop.withLock { $0 = true }
        while !writer.isFinished { usleep(1000) }
        let urls = read.records.filter { $0["kind"] == "experience" }.compactMap { $0["value"]?["url"]?.stringValue }
        #expect(urls.count == Set(urls).count, "no experience twice")
        #expect(stable.isSubset(of: Set(urls)), "\(stable.subtracting(urls).count) lost")
        #expect(read.pages >= 10, "\(read.pages) pages")
        #expect(writes.withLock { $0 } > 0, "the writes ran while the pages were read")
        #expect(urls == urls.sorted(), "in URL order")
    }
}
