import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Locking
import StrictJSON
import TestSupport
import Testing

/// `clipctl --server … doctor` and `publish` (GET /v1/bulk): a team token's scope, and publish's
/// safety when the server is down, refuses the token or dies between two pages.
@Suite(.serialized) struct RemoteDoctorPublishTests {
    /// Three teams' clips, each associated with its host.
    static func threeTeams() throws -> Clipctl {
        let c = try Clipctl()
        try c.registerExampleBusinesses()
        for (clip, host) in [
            ("ABCDE12345.com.example.bikes.Clip", "bikesrental.example"), ("FGHIJ67890.com.brightegg.app.Clip", "brighteggcafe.example"),
            ("KLMNO13579.com.melamela.app.Clip", "melamela.example"),
        ] {
            let r = try c("domain", "add", clip, host)
            guard r.code == 0 else { throw Clipctl.CLIError(message: r.err) }
        }
        return c
    }

    static func token(_ c: Clipctl, _ arguments: String...) throws -> String {
        try c.run(["token", "create", "--name", "t"] + arguments).out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aTeamTokenDoctorsAndPublishesOnlyItsTeamsHosts() throws {
        var c = try Self.threeTeams()
        let team = try Self.token(c, "--team", "FGHIJ67890")
        let server = try ServeProcess(c, database: c.file("clips.db"))
        defer { _ = server.stop() }
        c.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        c.environment["CLIP_TOKEN"] = team
        let doctor = try c("doctor", "--json")
        #expect(doctor.code == 0 || doctor.code == 1, "\(doctor.err)")
        let subjects = (try JSONParser.parse(Array(doctor.out.utf8))["findings"]?.arrayValue ?? []).map { JSONWriter.string($0) }
        #expect(!subjects.isEmpty && subjects.allSatisfy { !$0.contains("melamela") && !$0.contains("bikes") }, "\(subjects)")
        let site = c.file("site")
        let published = try c("publish", site)
        #expect(published.code == 0, "\(published.err)")
        let hosts = try FileManager.default.contentsOfDirectory(atPath: site).filter { !$0.contains(".") || $0.hasSuffix(".example") }
        #expect(hosts == ["brighteggcafe.example"], "\(hosts)")
        #expect(published.out.hasPrefix("published 1 AASA file(s) and 2 banner snippet(s)"), "\(published.out)")
    }

    /// A chosen TestFlight URL that stopped resolving (GET /v1/bulk's testflight record): the same warning over the server,
    /// for the team that holds the clip only.
    @Test func aChosenTestFlightURLThatNoLongerResolvesIsWarnedOverTheServerToo() throws {
        var c = try Self.threeTeams()
        try #require(try c("asc", "testflight", "set", "ABCDE12345.com.example.bikes.Clip", "https://bikesrental.example/rent").code == 0)
        try #require(try c("remove", "1").code == 0)
        func testflightFindings(_ c: Clipctl) throws -> [String] {
            let doctor = try c("doctor", "--json")
            return (try JSONParser.parse(Array(doctor.out.utf8))["findings"]?.arrayValue ?? []).filter {
                $0["code"]?.stringValue?.hasPrefix("testflight") == true
            }.map { JSONWriter.string($0) }
        }
        let local = try testflightFindings(c)
        #expect(local.count == 1 && local[0].contains("https://bikesrental.example/rent"), "\(local)")
        let admin = try Self.token(c, "--admin"), other = try Self.token(c, "--team", "FGHIJ67890")
        let server = try ServeProcess(c, database: c.file("clips.db"))
        defer { _ = server.stop() }
        c.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        c.environment["CLIP_TOKEN"] = admin
        #expect(try testflightFindings(c) == local)
        c.environment["CLIP_TOKEN"] = other
        #expect(try testflightFindings(c) == [])
    }

    @Test func publishOverTheServerKeepsDIRAsItWasWhenAnythingFails() throws {
        var c = try Self.threeTeams()
        let admin = try Self.token(c, "--admin")
        let site = c.file("site")
        try #require(try c("publish", site).code == 0)
        let before = try DoctorPublishTests.tree(site)
        func unchanged(_ what: String) throws {
            #expect(try DoctorPublishTests.tree(site) == before, "\(what): DIR as it was")
            let staging = try FileManager.default.contentsOfDirectory(atPath: c.directory.path).filter { $0.contains(".publishing-") }
            #expect(staging.isEmpty, "\(what): \(staging)")
        }
        let server = try ServeProcess(c, database: c.file("clips.db"))
        c.environment["CLIP_TOKEN"] = admin
        // Somebody else's directory is refused, untouched, as locally.
        try FileManager.default.createDirectory(atPath: c.file("theirs"), withIntermediateDirectories: true)
        try c.write("theirs/notes.txt", "keep me")
        let refused = try c("--server", "http://127.0.0.1:\(server.port)", "publish", "theirs")
        #expect(refused.code == 65 && refused.err.contains("was not written by clipctl publish"), "\(refused.err)")
        #expect(try c.read("theirs/notes.txt") == "keep me")
        // A wrong token: exit 1, nothing written.
        c.environment["CLIP_TOKEN"] = "clip_1_" + String(repeating: "a", count: 64)
        let denied = try c("--server", "http://127.0.0.1:\(server.port)", "publish", site)
        #expect(denied.code == 1 && denied.err.contains("check --token"), "\(denied.err)")
        try unchanged("a wrong token")
        #expect(server.stop() == 0)
        // A server that is down: exit 69.
        c.environment["CLIP_TOKEN"] = admin
        let down = try c("--server", "http://127.0.0.1:\(server.port)", "publish", site)
        #expect(down.code == 69 && down.err.contains("cannot reach the server"), "\(down.err)")
        try unchanged("a server that is down")
        // A server that answers the first page and dies before the second.
        let dying = try OnePageServer(
            page:
                #"{"items":[{"kind":"app","value":{"bundleId":"com.x.app","team":"ABCDE12345","appStoreId":null,"name":"X","version":1}}],"nextCursor":"YXBwcyBjb20ueC5hcHA"}"#
        )
        let died = try c("--server", "http://127.0.0.1:\(dying.port)", "publish", site)
        #expect(died.code == 69, "\(died.code) \(died.err)")
        #expect(dying.requests == 2, "the second page was asked for")
        try unchanged("a server that died between two pages")
        #expect(try c("--server", "http://127.0.0.1:\(dying.port)", "doctor").code == 69)
    }
}

/// A server that answers one request with `page` and closes the next connection without an answer.
final class OnePageServer: Sendable {
    let port: Int
    /// How many requests came.
    var requests: Int { counter.value.withLock { $0 } }
    private let counter = Counter()
    private let descriptor: Int32

    final class Counter: Sendable { let value = Locked(0) }

    init(page: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = fd
        let counter = self.counter
        let body = Array(page.utf8)
        Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                // The request head (no body on a GET).
                var head: [UInt8] = [], byte: UInt8 = 0
                while read(connection, &byte, 1) == 1 {
                    head.append(byte)
                    if head.suffix(4) == Array("\r\n\r\n".utf8) { break }
                }
                let n = counter.value.withLock {
                    $0 += 1; return $0
                }
                if n == 1 {
                    let answer =
                        Array(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                                .utf8)
                        + body
                    _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                }
                close(connection)
            }
        }.start()
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}
