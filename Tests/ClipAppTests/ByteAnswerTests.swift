import AppleFormats
import ArgParse
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import FileFormats
import Foundation
import StrictJSON
import Testing

/// Operations whose answer is bytes (`OperationContentOutput`) or not only a 2xx, through the layer as both
/// edges call it: the same bytes as the store gives, the headers the API sends, another team's
/// experience not found word for word, and each answer read back as a remote `clipctl` reads it.
struct ByteAnswerTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("bytes-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","title":"Rent a bike","subtitle":"Tap to unlock"}"#
            ))
    }

    func perform(_ binding: Binding, _ values: [(String, String)], as caller: Caller = .local) throws -> OperationAnswer {
        try binding.perform(Arguments(values.map { (name: $0.0, value: $0.1) }), Session(registry: registry, caller: caller))
    }

    /// What a remote clipctl makes of the answer: its bytes, status and header fields, names lower-cased.
    func overTheWire(_ answer: OperationAnswer) -> OperationAnswer {
        OperationAnswer(
            json: .null, status: answer.status, headers: answer.headers.map { (name: $0.name.lowercased(), value: $0.value) },
            content: answer.content)
    }

    @Test func aHostsAASAFileIsTheStoresBytesAsJSONAndAnyoneReadsIt() throws {
        let answer = try perform(HostAASAFile.binding, [("host", "bikes.example")], as: .anyone)
        #expect(answer.content == OperationContent(bytes: try registry.aasa(host: "bikes.example"), type: "application/json"))
        #expect(answer.status == 200)
        #expect(HostAASAFile.binding.answersContent && !HostAASAFile.binding.servesRoute)
        // HostAASA serves the route: its JSON is the same file.
        let served = try perform(HostAASA.binding, [("host", "bikes.example")])
        #expect(JSONWriter.bytes(served.json) == answer.content?.bytes)
        #expect(throws: RegistryError.self) { try perform(HostAASAFile.binding, [("host", "nothing.example")]) }
    }

    @Test func anExperiencesCodeIsItsTeamsAndAnotherTeamsIsNotFoundWordForWord() throws {
        let own = try perform(ExperienceSVGCode.binding, [("id", "1")], as: teamA)
        let content = try #require(own.content)
        #expect(content.type == "image/svg+xml")
        #expect(String(decoding: content.bytes, as: UTF8.self).hasPrefix("<"))
        #expect(own.headers.map(\.name) == ["ETag", "Content-Disposition", "Code-QR-Version", "Code-ECC"])
        #expect(own.headers.first?.value == "\"\(SHA256.hexDigest(content.bytes))\"")
        // The same request twice: the same bytes.
        #expect(try perform(ExperienceSVGCode.binding, [("id", "1")], as: teamA).content == content)
        for id in ["1", "2", "01", "+1", "1\u{200B}"] {
            #expect(throws: RegistryError.notFound("experience \(id)")) { try perform(ExperienceSVGCode.binding, [("id", id)], as: teamB) }
        }
        #expect(throws: CallerRefusal.self) { try perform(ExperiencePNGCode.binding, [("id", "1")], as: .anyone) }
        // Read back as a remote clipctl reads it: the facts from the header fields.
        let read = try CodeOutput(answer: overTheWire(own))
        #expect(read.content == content && read.qrVersion != nil && read.errorCorrection == "M")
        let tag = try CodeOutput(answer: overTheWire(try perform(ExperienceNDEFTag.binding, [("id", "1")], as: teamA)))
        #expect(tag.qrVersion == nil && tag.ntag != nil && tag.content.type == "application/octet-stream")
    }

    @Test func aCodesOptionsAreCheckedAllAtOnceAndRefusedForATag() throws {
        #expect(throws: InvalidArguments.self) { try perform(ExperienceSVGCode.binding, [("id", "1"), ("ecc", "Z"), ("size", "0")]) }
        do {
            _ = try perform(ExperienceNDEFTag.binding, [("id", "1"), ("ecc", "M")])
            Issue.record("a tag took ecc")
        } catch let invalid as InvalidArguments {
            #expect(invalid.detail == "the code options are invalid" && invalid.errors.map(\.rule) == ["not-applicable"])
        }
    }

    @Test func aURLsCodeIsRefusedWhenItOpensNothingAndAPrintSizePNGNeedsACaller() throws {
        let svg = try perform(URLCode.binding, [("url", "https://bikes.example/rent")])
        #expect(svg.content == (try perform(ExperienceSVGCode.binding, [("id", "1")])).content)
        #expect(throws: OperationError.self) { try perform(URLCode.binding, [("url", "https://nothing.example/")]) }
        do {
            _ = try perform(URLCode.binding, [("url", "https://nothing.example/")])
        } catch let refusal as OperationError {
            guard case .notFound(let detail) = refusal else { throw refusal }
            #expect(detail.hasPrefix("no code: "))
        }
        #expect(throws: InvalidArguments.self) {
            try perform(URLCode.binding, [("url", "https://bikes.example/rent"), ("format", "png"), ("size", "17")], as: .anyone)
        }
        #expect(try perform(URLCode.binding, [("url", "https://bikes.example/rent"), ("format", "png"), ("size", "17")]).status == 200)
    }

    @Test func aResolvesMissIsA404ThatCarriesItAndReadsBackAsTheSameAnswer() throws {
        let hit = try perform(Resolve.binding, [("url", "https://bikes.example/rent")], as: .anyone)
        #expect(hit.status == 200 && hit.json["matched"] != nil)
        let miss = try perform(Resolve.binding, [("url", "https://bikes.example/other"), ("explain", "true")], as: .anyone)
        #expect(miss.status == 404)
        #expect(miss.json["title"] == "Not Found" && miss.json["detail"]?.stringValue?.hasPrefix("no match: ") == true)
        #expect(Resolve.Output.isOutput(miss) && Resolve.binding.isOutput(miss))
        // Another 404 (the route itself missing) is a failure, not a miss.
        #expect(!Resolve.binding.isOutput(OperationAnswer(json: ["detail": "not found"], status: 404)))
        let local = try Resolve.Output(answer: miss)
        #expect(local.answer.match == nil && local.answer.explanation != nil)
        #expect(ResolutionJSON.json(local.answer) == ResolutionJSON.json(try Resolve.Output(json: miss.json, status: 404).answer))
    }

    @Test func aPagesBannerNamesTheClip() throws {
        let answer = try perform(Banner.binding, [("url", "https://bikes.example/rent")], as: .anyone)
        #expect(answer.json["clip"] == "ABCDE12345.com.example.bikes.Clip")
        #expect(try Banner.Output(json: answer.json).banner.metaTag.hasPrefix("<meta"))
    }

    @Test func aPreviewPageIsHTMLWithItsStatusAndOnADatabaseSaysWhyNoCardShows() throws {
        let card = try perform(PreviewPage.binding, [("url", "https://bikes.example/rent")], as: .anyone)
        #expect(card.status == 200 && card.content?.type == "text/html; charset=utf-8")
        #expect(try PreviewPage.Output(answer: card).showsCard)
        let none = try PreviewPage.Output(answer: try perform(PreviewPage.binding, [("url", "https://nothing.example/")]))
        #expect(none.status == 404 && !none.showsCard && none.reason?.isEmpty == false && none.reason?.hasPrefix("the server") == false)
        #expect(try perform(PreviewPage.binding, [("url", "not a url")]).status == 422)
        // From a server: a page with a 404 is the answer, a problem is not.
        let page = OperationContent(bytes: Array("<!doctype html>".utf8), type: "text/html; charset=utf-8")
        #expect(PreviewPage.Output.isOutput(OperationAnswer(json: .null, status: 404, content: page)))
        let problem = OperationContent(bytes: Array("{}".utf8), type: "application/problem+json")
        #expect(!PreviewPage.Output.isOutput(OperationAnswer(json: .null, status: 422, content: problem)))
        #expect(
            try PreviewPage.Output(answer: OperationAnswer(json: .null, status: 404, content: page)).reason == "the server answered 404")
    }
}
