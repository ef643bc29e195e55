import ClipAPI
import Foundation
import HTTP1
import StrictJSON
import TestSupport
import Testing

/// `POST /v1/images`: the checks of `--image`, team ownership, the hash then usable by the team only.
@Suite(.serialized) struct ImageUploadAPITests {
    static let apple = TestImages.png(width: 1800, height: 1200, grey: 0x21)

    @Test(arguments: APITransport.allCases) func uploadThenReferenceByHash(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let first = try f.send("POST", "/v1/images", token: f.teamA, contentType: "image/png", bytes: Self.apple)
        #expect(first.status == 201, "\(first.text)")
        let answer = try f.jsonOf(first)
        // The hash against an independent SHA-256 (libcrypto).
        let sha = LibcryptoSHA256.hexDigest(Self.apple)
        #expect(answer["sha256"]?.stringValue == sha)
        #expect(answer["mediaType"] == "image/png" && answer["width"] == 1800 && answer["height"] == 1200)
        #expect(answer["bytes"] == .integer(Int64(Self.apple.count)) && answer["warnings"] == nil)
        #expect(first.headers["Location"] == "/v1/images/\(sha)" && first.headers["Cache-Control"] == "no-store")
        // The same upload again: 200, nothing new.
        let before = try tableDump(f.path)
        let again = try f.send("POST", "/v1/images", token: f.teamA, contentType: "image/png; charset=binary", bytes: Self.apple)
        #expect(try again.status == 200 && f.jsonOf(again)["sha256"]?.stringValue == sha)
        #expect(try tableDump(f.path) == before)
        // Served to anyone, for ever.
        let served = try f.call("GET", "/v1/images/\(sha)")
        #expect(served.status == 200 && served.body == Self.apple && served.headers["Content-Type"] == "image/png")
        #expect(served.headers["Cache-Control"] == "public, max-age=31536000, immutable" && served.headers["ETag"] == "\"\(sha)\"")
        // Team A names it by hash; team B may not, whatever it knows of the hash.
        let created = try f.call(
            "POST", "/v1/experiences", token: f.teamA,
            json: #"{"url":"https://a.example/img","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","headerImage":"\#(sha)"}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(try f.call("PATCH", "/v1/experiences/1", token: f.teamA, json: #"{"headerImage":"\#(sha)"}"#).status == 200)
        let stolen = try f.call("PATCH", "/v1/experiences/2", token: f.teamB, json: #"{"headerImage":"\#(sha)"}"#)
        let unknown = String(repeating: "0", count: 64)
        let missing = try f.call("PATCH", "/v1/experiences/2", token: f.teamB, json: #"{"headerImage":"\#(unknown)"}"#)
        #expect(stolen.status == 422 && stolen.text.contains("headerImage.missing"))
        #expect(stolen.text.replacingOccurrences(of: sha, with: unknown) == missing.text, "no oracle: the same as an unknown hash")
        // Team B uploading the same bytes has them for itself: 201 (its own first upload), not 200.
        #expect(try f.send("POST", "/v1/images", token: f.teamB, contentType: "image/png", bytes: Self.apple).status == 201)
        #expect(try f.call("PATCH", "/v1/experiences/2", token: f.teamB, json: #"{"headerImage":"\#(sha)"}"#).status == 200)
    }

    @Test(arguments: APITransport.allCases) func adminsNameTheTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let jpeg = TestImages.jpeg(width: 1800, height: 1200)
        let noTeam = try f.send("POST", "/v1/images", token: f.admin, contentType: "image/jpeg", bytes: jpeg)
        #expect(noTeam.status == 422 && noTeam.text.contains("\"team\""))
        let named = try f.send("POST", "/v1/images?team=FGHIJ67890", token: f.admin, contentType: "image/jpeg", bytes: jpeg)
        #expect(try named.status == 201 && f.jsonOf(named)["mediaType"] == "image/jpeg")
        #expect(try f.send("POST", "/v1/images?team=nope", token: f.admin, contentType: "image/jpeg", bytes: jpeg).status == 422)
        #expect(try f.send("POST", "/v1/images?team=FGHIJ67890", token: f.teamA, contentType: "image/jpeg", bytes: jpeg).status == 403)
        #expect(try f.send("POST", "/v1/images?team=FGHIJ67890", token: f.teamA, contentType: "image/jpeg", bytes: [1, 2]).status == 403)
        // A size other than Apple's is stored, with the warning --image gives.
        let small = try f.send(
            "POST", "/v1/images", token: f.teamA, contentType: "image/png", bytes: TestImages.png(width: 300, height: 200))
        #expect(small.status == 201 && small.text.contains("image.size"))
    }

    @Test(arguments: APITransport.allCases) func hostileUploadsChangeNothing(_ transport: APITransport) throws {
        let f = try APIFixture(
            transport,
            limits: {
                var l = HTTPLimits(); l.maxBodyBytes = 64 * 1024; return l
            }())
        let before = try tableDump(f.path)
        let cases: [(String, String?, [UInt8], Int)] = [
            ("empty", "image/png", [], 422),
            ("no Content-Type", nil, Self.apple, 415),
            ("JSON", "application/json", Self.apple, 415),
            ("a PNG sent as JPEG", "image/jpeg", Self.apple, 415),
            ("a JPEG sent as PNG", "image/png", TestImages.jpeg(width: 1800, height: 1200), 415),
            ("a JPEG sent as PNG, not 3:2 either", "image/png", TestImages.jpeg(width: 1000, height: 1000), 415),
            ("a PNG sent as JPEG, with alpha too", "image/jpeg", TestImages.png(width: 1800, height: 1200, colorType: 6), 415),
            ("a PNG that lies about its size", "image/png", TestImages.png(width: 30, height: 20, ihdrWidth: 1800, ihdrHeight: 1200), 422),
            ("a truncated JPEG", "image/jpeg", TestImages.jpeg(width: 1800, height: 1200, sos: false, eoi: false), 422),
            ("a PNG with alpha", "image/png", TestImages.png(width: 1800, height: 1200, colorType: 6), 422),
            ("a PNG with tRNS", "image/png", TestImages.png(width: 1800, height: 1200, tRNS: true), 422),
            ("not 3:2", "image/png", TestImages.png(width: 1000, height: 1000), 422),
            ("a truncated PNG", "image/png", Array(Self.apple.prefix(Self.apple.count / 2)), 422),
            ("invisible characters", "image/png", Array("\u{200B}\u{FEFF}".utf8), 422),
            ("beyond the body limit", "image/png", [UInt8](repeating: 0x89, count: 65 * 1024), 413),
        ]
        for (what, type, bytes, status) in cases {
            let r = try f.send("POST", "/v1/images", token: f.teamA, contentType: type, bytes: bytes)
            #expect(r.status == status, "\(what): \(r.text)")
        }
        #expect(try f.send("POST", "/v1/images", token: nil, contentType: "image/png", bytes: Self.apple).status == 401)
        #expect(try tableDump(f.path) == before, "a refused upload stored something")
    }

    /// An administrator's upload for a team that does not exist yet makes the team, as any write that implies it does:
    /// no image row is left held by a team id nobody has.
    @Test func anUploadForANewTeamMakesTheTeam() throws {
        let f = try APIFixture(.inProcess)
        let r = try f.send("POST", "/v1/images?team=QQQQQ99999", token: f.admin, contentType: "image/png", bytes: Self.apple)
        #expect(r.status == 201, "\(r.text)")
        #expect(try tableDump(f.path).contains { $0.hasPrefix("team:") && $0.contains("QQQQQ99999") })
    }
}
