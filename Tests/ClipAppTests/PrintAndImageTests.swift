import ClipApp
import ClipCore
import ClipStore
import FileFormats
import Foundation
import StrictJSON
import TestSupport
import Testing

/// The print bundle (`GET /v1/codes/export`), the served preview page (`GET /preview`), a stored header image
/// (`GET /v1/images/{sha256}`) and a URL's code for a public caller carrying a token, through the layer as the
/// API calls them: a team sees its own team's codes only, another team's clip answers what a missing one does.
struct PrintAndImageTests {
    let registry: Registry
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        for body in [
            #"{"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","title":"Rent a bike","subtitle":"Tap to unlock"}"#,
            #"{"url":"https://cars.example/rent","clip":"FGHIJ67890.com.example.cars.Clip","title":"Rent a car","subtitle":"Tap to drive"}"#,
        ] {
            _ = try registry.register(try JSONParser.parse(Array(body.utf8)))
        }
    }

    func perform(_ binding: Binding, _ values: [(String, String)], as caller: Caller = .local) throws -> OperationAnswer {
        try binding.perform(Arguments(values.map { (name: $0.0, value: $0.1) }), Session(registry: registry, caller: caller))
    }

    func bundle(_ values: [(String, String)] = [], as caller: Caller) throws -> [UInt8] {
        try #require(try perform(CodesExport.binding, values, as: caller).content).bytes
    }

    @Test func aTeamsBundleHoldsItsOwnCodesAndAnotherTeamsClipIsNotFoundWordForWord() throws {
        let everyone = try bundle(as: .local)
        let own = try bundle(as: teamA)
        #expect(own != everyone)
        #expect(own == (try bundle([("clip", "ABCDE12345.com.example.bikes.Clip")], as: .local)))
        // The same request twice: the same bytes, tagged by their SHA-256.
        let answer = try perform(CodesExport.binding, [], as: teamA)
        #expect(answer.content == OperationContent(bytes: own, type: "application/zip"))
        #expect(answer.headers.map(\.name) == ["ETag", "Content-Disposition"])
        #expect(answer.headers.first?.value == "\"\(SHA256.hexDigest(own))\"")
        #expect(answer.headers.last?.value == "attachment; filename=\"codes.zip\"")
        // Another team's clip, and one that does not exist: the same answer, naming what was asked.
        for clip in ["FGHIJ67890.com.example.cars.Clip", "ABCDE12345.com.example.none.Clip", "FGHIJ67890.com.example.cars.Clip\u{200B}"] {
            #expect(throws: RegistryError.notFound("clip \(clip)")) { try bundle([("clip", clip)], as: teamA) }
        }
        #expect(try bundle([("clip", "FGHIJ67890.com.example.cars.Clip")], as: .admin(tokenID: 1)) != everyone)
        #expect(throws: CallerRefusal.self) { try bundle(as: .anyone) }
    }

    @Test func aBundlesFormatsAndOptionsAreCheckedAndItsPNGsAreAtScreenSizes() throws {
        func refusal(_ values: [(String, String)]) throws -> InvalidArguments? {
            do { _ = try bundle(values, as: teamA) } catch let invalid as InvalidArguments { return invalid }
            return nil
        }
        #expect(try refusal([("formats", "svg,gif")])?.detail == "formats is a comma-separated list of svg, png and ndef")
        #expect(try refusal([("formats", "svg,")])?.errors.map(\.field) == ["formats"])
        #expect(try refusal([("ecc", "Z"), ("size", "0")])?.errors.map(\.field) == ["ecc", "size"])
        #expect(try refusal([("size", "17")])?.errors.map(\.rule) == ["range"])
        // Without PNGs, a print size is the SVGs' to take; a tag takes no QR option and is not refused one in a bundle.
        #expect(try refusal([("formats", "svg,ndef"), ("size", "30mm"), ("ecc", "H")]) == nil)
        #expect(try bundle([("formats", "svg,svg")], as: teamA) == (try bundle([("formats", "svg")], as: teamA)))
    }

    @Test func aPublicCallersPrintSizePNGIsLiftedByALiveTokenWhichIsCheckedOnlyThen() throws {
        let values = [(name: "url", value: "https://bikes.example/rent"), (name: "format", value: "png"), (name: "size", value: "17")]
        var checked = 0
        func session(_ live: Bool) -> Session {
            var session = Session(registry: registry, caller: .anyone)
            session.carriesValidToken = {
                checked += 1
                return live
            }
            return session
        }
        #expect(try URLCode.binding.perform(Arguments(values), session(true)).status == 200)
        #expect(throws: InvalidArguments.self) { try URLCode.binding.perform(Arguments(values), session(false)) }
        #expect(throws: InvalidArguments.self) {
            try URLCode.binding.perform(Arguments(values), Session(registry: registry, caller: .anyone))
        }
        #expect(checked == 2)
        // A screen size needs no token: the token is not looked at (looking records its use).
        _ = try URLCode.binding.perform(Arguments(Array(values.dropLast())), session(false))
        #expect(checked == 2)
        #expect(URLCode.binding.servesRoute && URLCode.binding.caching == .shared(vary: []))
    }

    @Test func theServedPreviewPageCarriesItsSecurityAndCachingFieldsWithItsStatus() throws {
        let card = try perform(ServedPreviewPage.binding, [("url", "https://bikes.example/rent")], as: .anyone)
        #expect(card.status == 200 && card.content?.type == "text/html; charset=utf-8")
        #expect(
            card.headers.map(\.name) == ["Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control", "Vary"])
        #expect(try perform(ServedPreviewPage.binding, [("url", "https://nothing.example/")], as: .anyone).status == 404)
        #expect(try perform(ServedPreviewPage.binding, [("url", "not a url")], as: .anyone).status == 422)
        for values in [[], [("url", "")]] {
            #expect(
                throws: OperationError.malformed(
                    "give the invocation URL as ?url=", errors: [FieldError(field: "url", rule: "required", message: "is required")])
            ) { try perform(ServedPreviewPage.binding, values, as: .anyone) }
        }
        #expect(ServedPreviewPage.binding.servesRoute && !PreviewPage.binding.servesRoute)
        #expect(ServedPreviewPage.binding.caching == .shared(vary: ["Accept-Language"]) && ServedPreviewPage.binding.unreadBody == .ignored)
    }

    @Test func aStoredHeaderImageIsServedByItsHashToAnyoneAndAMalformedHashIsNotFound() throws {
        let png = TestImages.png(width: 1800, height: 1200, grey: 3)
        let stored = try registry.uploadImage(try HeaderImage(bytes: png), team: try TeamID("ABCDE12345")).value
        let answer = try perform(HeaderImageFile.binding, [("sha256", stored.sha256)], as: .anyone)
        #expect(answer.content == OperationContent(bytes: png, type: "image/png"))
        #expect(answer.headers.map(\.name) == ["ETag", "X-Content-Type-Options"])
        #expect(answer.headers.first?.value == "\"\(stored.sha256)\"")
        #expect(try perform(HeaderImageFile.binding, [("sha256", stored.sha256)], as: teamB).content == answer.content)
        for malformed in [stored.sha256.uppercased(), String(stored.sha256.dropLast()), stored.sha256 + "0", "", "../x"] {
            #expect(
                throws: OperationError.notFound("no header image \(malformed.prefix(80)): give its SHA-256 in lower-case hexadecimal")
            ) { try perform(HeaderImageFile.binding, [("sha256", malformed)], as: .anyone) }
        }
        let unknown = String(repeating: "0", count: 64)
        #expect(throws: RegistryError.notFound("header image \(unknown)")) {
            try perform(HeaderImageFile.binding, [("sha256", unknown)], as: .anyone)
        }
        #expect(HeaderImageFile.binding.servesRoute && HeaderImageFile.binding.caching == .immutable)
    }

    func upload(_ bytes: [UInt8], type: String?, team: String? = nil, as caller: Caller) throws -> OperationAnswer {
        var arguments = Arguments(team.map { [(name: "team", value: $0)] } ?? [])
        arguments.attachment = bytes
        arguments.contentType = type
        return try HeaderImageUpload.binding.perform(arguments, Session(registry: registry, caller: caller))
    }

    func databaseBytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: registry.path))) }

    @Test func anUploadIsItsTeamsAndARefusedOneLeavesTheDatabaseByteIdentical() throws {
        let png = TestImages.png(width: 1800, height: 1200, grey: 5)
        let before = try databaseBytes()
        // Another team's, an admin without a team, a type that is not an image, bytes of the other kind, bytes of no image.
        #expect(throws: CallerRefusal.forbidden("a token of team ABCDE12345 cannot act for team FGHIJ67890")) {
            try upload(png, type: "image/png", team: "FGHIJ67890", as: teamA)
        }
        #expect(throws: RegistryError.self) { try upload(png, type: "image/png", as: .admin(tokenID: 1)) }
        #expect(throws: RegistryError.self) { try upload(png, type: "image/png", team: "abc", as: .admin(tokenID: 1)) }
        #expect(throws: OperationError.unsupportedMediaType("send the image as image/png or image/jpeg (got no Content-Type)")) {
            try upload(png, type: nil, as: teamA)
        }
        #expect(throws: OperationError.unsupportedMediaType("send the image as image/png or image/jpeg (got text/plain)")) {
            try upload(png, type: "Text/Plain; charset=utf-8", as: teamA)
        }
        #expect(throws: OperationError.unsupportedMediaType("the bytes are image/png, not the image/jpeg Content-Type says")) {
            try upload(png, type: "image/jpeg", as: teamA)
        }
        #expect(throws: RegistryError.self) { try upload(Array(png.prefix(100)), type: "image/png", as: teamA) }
        #expect(throws: CallerRefusal.self) { try upload(png, type: "image/png", team: "ABCDE12345", as: .anyone) }
        #expect(try databaseBytes() == before)
        // The same upload twice: created, then already there; served where Location says.
        let first = try upload(png, type: "IMAGE/PNG ; x=y", as: teamA)
        let second = try upload(png, type: "image/png", team: "ABCDE12345", as: teamA)
        #expect(first.status == 201 && second.status == 200 && first.json == second.json)
        let sha = try #require(first.json["sha256"]?.stringValue)
        #expect(first.headers.map(\.name) == ["Location"] && first.headers.first?.value == "/v1/images/\(sha)")
        #expect(try perform(HeaderImageFile.binding, [("sha256", sha)], as: .anyone).content?.bytes == png)
        #expect(try upload(png, type: "image/png", team: "FGHIJ67890", as: .admin(tokenID: 1)).status == 201)
        #expect(HeaderImageUpload.binding.takesBytes && !HeaderImageUpload.binding.takesBody)
    }
}
