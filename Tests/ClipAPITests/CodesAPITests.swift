import ClipCore
import ClipStore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// QR codes, NFC tags and the print bundle over HTTP: statuses, media types, ETag and 304, tenancy.
struct CodesAPITests {
    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard haystack.count >= n.count else { return false }
        return (0...(haystack.count - n.count)).contains { haystack[$0..<($0 + n.count)].elementsEqual(n) }
    }

    static func query(_ url: String) -> String {
        url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
    }

    /// The GET routes of bytes never read a body and have always ignored one, whatever its type: the same answer
    /// as without it (a body that is not JSON was refused 415 once they became operations).
    @Test func theGetRoutesOfBytesIgnoreABody() throws {
        let f = try APIFixture(.inProcess)
        let url = Self.query("https://a.example/store/42?table=7")
        for (target, token) in [
            ("/v1/codes?url=\(url)", nil), ("/preview?url=\(url)", nil), ("/v1/codes/export", f.admin),
            ("/v1/images/\(String(repeating: "0", count: 64))", nil), ("/v1/images/x", nil),
        ] as [(String, String?)] {
            let bare = try f.send("GET", target, token: token, contentType: nil, bytes: [])
            let sent = try f.send("GET", target, token: token, contentType: "text/plain", bytes: Array("not json".utf8))
            #expect(sent.status == bare.status && sent.body == bare.body, "\(target): \(sent.status)")
        }
    }

    @Test(arguments: APITransport.allCases) func publicCodeOfAnInvocationURL(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let url = "https://a.example/store/42?table=7"
        let svg = try f.call("GET", "/v1/codes?url=\(Self.query(url))")
        #expect(svg.status == 200, "\(svg.text)")
        #expect(svg.headers["Content-Type"] == "image/svg+xml")
        #expect(svg.headers["Cache-Control"] == "public, max-age=60")
        #expect(svg.headers["Code-ECC"] == "M")
        #expect(svg.text.contains("<title>https://a.example/store/42?table=7</title>"))
        let tag = try #require(svg.headers["ETag"])
        #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"), "a strong validator")
        let again = try f.call("GET", "/v1/codes?url=\(Self.query(url))", headers: [("If-None-Match", tag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == tag)
        let other = try f.call("GET", "/v1/codes?url=\(Self.query(url))&ecc=H", headers: [("If-None-Match", tag)])
        #expect(other.status == 200, "another level, other bytes, another tag")
        #expect(other.headers["ETag"] != tag)

        let png = try f.call("GET", "/v1/codes?url=\(Self.query(url))&format=png&size=30mm")
        #expect(png.status == 200)
        #expect(png.headers["Content-Type"] == "image/png")
        #expect(Array(png.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Self.contains(png.body, "pHYs"), "a print size says its resolution")

        let ndef = try f.call("GET", "/v1/codes?url=\(Self.query(url))&format=ndef")
        #expect(ndef.status == 200)
        #expect(ndef.headers["Content-Type"] == "application/octet-stream")
        #expect(ndef.headers["Code-NTAG"] == "NTAG213")
        // MB ME SR, TNF well-known; type "U"; 0x04 is "https://" (RTD-URI table).
        #expect(Array(ndef.body.prefix(5)) == [0xD1, 0x01, UInt8(ndef.body.count - 4), 0x55, 0x04])
        #expect(String(decoding: ndef.body.dropFirst(5), as: UTF8.self) == "a.example/store/42?table=7")
    }

    @Test(arguments: APITransport.allCases) func refusalsSayWhy(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let none = try f.call("GET", "/v1/codes?url=\(Self.query("https://unknown.example/"))")
        #expect(none.status == 404)
        #expect(none.text.contains("opens no App Clip card"))
        let http = try f.call("GET", "/v1/codes?url=\(Self.query("http://a.example/store"))")
        #expect(http.status == 422)
        #expect(http.text.contains("https"))
        let invisible = try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store\u{200B}"))")
        #expect(invisible.status == 422)
        #expect(invisible.text.contains("U+200B"))
        #expect(try f.call("GET", "/v1/codes").status == 400)
        for bad in [
            "format=gif", "ecc=X", "size=0", "size=101", "size=5mm", "size=abc", "size=1e9mm", "size=nanmm", "size=1e3mm",
            "format=ndef&ecc=H", "format=ndef&size=30mm",
        ] {
            let r = try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))&\(bad)")
            #expect(r.status == 422, "\(bad): \(r.text)")
        }
        // A poster-size PNG is seconds of work: not for anyone without a token (the SVG, a few bytes more, is).
        for size in ["17", "201mm", "1000mm"] {
            let big = try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))&format=png&size=\(size)")
            #expect(big.status == 422, "\(size)")
            #expect(big.text.contains("without a token"))
        }
        #expect(try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))&format=png&size=16").status == 200)
        #expect(try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))&format=svg&size=1000mm").status == 200)
        #expect(try f.call("GET", "/v1/experiences/1/code.png?size=300mm", token: f.admin).status == 200)
        let ndefWithECC = try f.call("GET", "/v1/experiences/1/tag.ndef?ecc=H", token: f.admin)
        #expect(ndefWithECC.status == 422)
        #expect(ndefWithECC.text.contains("not to NFC tags"))
        // Too long for version 40 at level H: the text fits at L but not at H.
        let long = "https://a.example/store/" + String(repeating: "x", count: 2000)
        #expect(try f.call("GET", "/v1/codes?url=\(Self.query(long))&ecc=L").status == 200)
        let tooLong = try f.call("GET", "/v1/codes?url=\(Self.query(long))&ecc=H")
        #expect(tooLong.status == 422)
        #expect(tooLong.text.contains("version 40"))

        // A deactivated experience: 422 on its own route and for its URL.
        let registry = try Registry(path: f.path)
        _ = try registry.setStatus("1", .deactivated)
        let off = try f.call("GET", "/v1/experiences/1/code.svg", token: f.admin)
        #expect(off.status == 422)
        #expect(off.text.contains("deactivated"))
        #expect(try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))").status == 422)
        #expect(try f.call("GET", "/v1/experiences/99/code.svg", token: f.admin).status == 404)
        #expect(try f.call("GET", "/v1/experiences/01/code.svg", token: f.admin).status == 404)
    }

    /// An experience's code is an operation's answer of bytes (`OperationContentOutput`), its URL's code the API's own
    /// route: the same bytes with the same fields, and a team's experience is not found by another team.
    @Test(arguments: APITransport.allCases) func anExperiencesCodeIsItsURLsCodeByteForByte(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for (file, format) in [("code.svg", "svg"), ("code.png", "png"), ("tag.ndef", "ndef")] {
            let layer = try f.call("GET", "/v1/experiences/1/\(file)", token: f.teamA)
            let route = try f.call("GET", "/v1/codes?url=\(Self.query("https://a.example/store"))&format=\(format)")
            #expect(layer.status == 200 && route.status == 200)
            #expect(layer.body == route.body, "\(file)")
            for field in ["Content-Type", "ETag", "Content-Disposition", "Code-QR-Version", "Code-ECC", "Code-NTAG"] {
                #expect(layer.headers[field] == route.headers[field], "\(file) \(field)")
            }
            let other = try f.call("GET", "/v1/experiences/1/\(file)", token: f.teamB)
            #expect(other.status == 404 && other.text.contains("not found: experience 1"))
        }
    }

    @Test(arguments: APITransport.allCases) func experienceRoutesAndTheBundle(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let svg = try f.call("GET", "/v1/experiences/1/code.svg?size=20mm", token: f.teamA)
        #expect(svg.status == 200)
        #expect(svg.headers["Cache-Control"] == "no-store", "an answer to a token is never stored")
        #expect(svg.text.contains("width=\"20mm\""))
        let tag = try #require(svg.headers["ETag"])
        #expect(try f.call("GET", "/v1/experiences/1/code.svg?size=20mm", token: f.teamA, headers: [("If-None-Match", tag)]).status == 304)

        let all = try f.call("GET", "/v1/codes/export", token: f.admin)
        #expect(all.status == 200)
        #expect(all.headers["Content-Type"] == "application/zip")
        #expect(Array(all.body.prefix(4)) == [0x50, 0x4B, 0x03, 0x04])
        for name in ["svg/a.example_store.svg", "png/b.example_shop.png", "ndef/a.example_store.ndef", "codes.csv", "index.json"] {
            #expect(Self.contains(all.body, name), "\(name)")
        }
        #expect(try f.call("GET", "/v1/codes/export", token: f.admin).body == all.body, "the same data, the same archive")
        // A team sees its own experiences only.
        let teamB = try f.call("GET", "/v1/codes/export", token: f.teamB)
        #expect(teamB.status == 200)
        #expect(Self.contains(teamB.body, "b.example_shop"))
        #expect(!Self.contains(teamB.body, "a.example"))
        let svgOnly = try f.call("GET", "/v1/codes/export?formats=svg&host=a.example", token: f.admin)
        #expect(Self.contains(svgOnly.body, "svg/a.example_store.svg"))
        #expect(!Self.contains(svgOnly.body, "png/"))
        #expect(!Self.contains(svgOnly.body, "b.example"))
        #expect(try f.call("GET", "/v1/codes/export?formats=svg,gif", token: f.admin).status == 422)
    }
}

/// `GET /v1/experiences/{id}/codes`: the files the print bundle makes for one experience, by id or URL, for its team only.
struct ExperienceCodeFilesAPITests {
    @Test(arguments: APITransport.allCases) func theBundlesOwnNamesByIDOrURLAndOnlyForTheTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let byID = try f.call("GET", "/v1/experiences/1/codes", token: f.teamA)
        #expect(byID.status == 200, "\(byID.text)")
        let json = try f.jsonOf(byID)
        let paths = json["files"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
        #expect(paths == ["ndef/a.example_store.ndef", "png/a.example_store.png", "svg/a.example_store.svg"])
        #expect(json["files"]?.arrayValue?.last?["ecc"] == .string("M"))
        #expect(json["files"]?.arrayValue?.first?["ntag"] == .string("NTAG213"))
        // The names the print bundle gives (its archive's entries are stored by name).
        let bundle = try f.call("GET", "/v1/codes/export", token: f.teamA)
        for path in paths ?? [] { #expect(CodesAPITests.contains(bundle.body, path), "\(path) in the bundle") }
        let url = CodesAPITests.query("https://a.example/store")
        #expect(try f.call("GET", "/v1/experiences/\(url)/codes", token: f.admin).body == byID.body, "by URL, the same answer")
        let other = try f.call("GET", "/v1/experiences/1/codes", token: f.teamB)
        let missing = try f.call("GET", "/v1/experiences/999/codes", token: f.teamB)
        #expect(other.status == 404 && missing.status == 404)
        #expect(try f.jsonOf(other)["detail"] == .string("not found: experience 1"))
        #expect(try f.call("GET", "/v1/experiences/1/codes").status == 401)
        #expect(try f.call("GET", "/v1/experiences/01/codes", token: f.admin).status == 404, "an id is written one way")
    }

    @Test func aDeactivatedExperienceHasNoFilesAndSaysWhy() throws {
        let f = try APIFixture(.inProcess)
        let patched = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"status":"DEACTIVATED"}"#)
        #expect(patched.status == 200, "\(patched.text)")
        let json = try f.jsonOf(try f.call("GET", "/v1/experiences/1/codes", token: f.admin))
        #expect(json["files"]?.arrayValue == [])
        #expect(json["reason"]?.stringValue?.hasPrefix("no code for https://a.example/store") == true, "\(json)")
    }
}
