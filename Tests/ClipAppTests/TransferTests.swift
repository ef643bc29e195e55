import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// Import and export through the layer: a body read as it comes (`BodyStream`), an answer written as it is made
/// (`OperationStream`), each in the caller's team scope; a refused import writes nothing.
struct TransferTests {
    let registry: Registry
    let path: String
    let teamA = try! TeamID("ABCDE12345")

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func line(_ n: Int, team: String = "ABCDE12345") -> String {
        let app = team == "ABCDE12345" ? "bikes" : "other"
        let host = team == "ABCDE12345" ? "new.example" : "other.example"
        return #"{"url":"https://\#(host)/\#(n)","clip":"\#(team).com.example.\#(app).Clip","title":"A","subtitle":"S"}"# + "\n"
    }

    /// A body handed out `chunk` bytes at a time, counting what it handed out.
    final class Source {
        let bytes: [UInt8]
        let chunk: Int
        var offset = 0
        init(_ text: String, chunk: Int) {
            bytes = Array(text.utf8)
            self.chunk = chunk
        }
        func next() -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunk)
            defer { offset = end }
            return bytes[offset..<end]
        }
    }

    func importing(_ text: String, as caller: Caller, type: String = "application/x-ndjson", chunk: Int = 4096) throws -> (
        answer: OperationAnswer, readAtFirstProgress: Int?
    ) {
        let source = Source(text, chunk: chunk)
        var readAtFirstProgress: Int?
        var arguments = Arguments()
        arguments.stream = BodyStream(
            type: type, progress: { _ in readAtFirstProgress = readAtFirstProgress ?? source.offset }, next: { source.next() })
        let answer = try ExperienceImport.binding.perform(arguments, Session(registry: registry, caller: caller))
        return (answer, readAtFirstProgress)
    }

    @Test func anImportTakesItsBodyAsItComesNotWhole() throws {
        let text = (1...40_000).map { Self.line($0) }.joined()
        let (answer, readAtFirstProgress) = try importing(text, as: .local)
        #expect(answer.status == 200)
        #expect(answer.json["imported"] == .integer(40_000))
        // The first batch was written while most of the body was still unread.
        let read = try #require(readAtFirstProgress)
        #expect(read < text.utf8.count * 3 / 4, "\(read) of \(text.utf8.count) bytes read before the first batch was written")
    }

    @Test func aTeamTokenImportsItsOwnClipsOnlyAndARefusalWritesNothing() throws {
        let own = try importing(Self.line(1) + Self.line(2), as: .team(teamA, tokenID: 2), chunk: 7)
        #expect(own.answer.json["imported"] == .integer(2))
        let before = try bytes()
        let mixed = Self.line(3) + Self.line(4, team: "ZZZZZ99999") + Self.line(5)
        #expect(
            throws: CallerRefusal.forbidden(
                "a token of team ABCDE12345 cannot import other teams' clips (line 2: clip ZZZZZ99999.com.example.other.Clip)")
        ) {
            _ = try importing(mixed, as: .team(teamA, tokenID: 2), chunk: 5)
        }
        #expect(try bytes() == before)
        // The same body from an admin token lands whole.
        #expect(try importing(mixed, as: .admin(tokenID: 1)).answer.json["imported"] == .integer(3))
    }

    @Test func aBodyOfAnotherTypeIsRefusedBeforeItIsRead() throws {
        let before = try bytes()
        #expect(throws: OperationError.unsupportedMediaType("send application/x-ndjson or text/csv (got application/json)")) {
            _ = try importing(Self.line(1), as: .local, type: "application/json")
        }
        #expect(try bytes() == before)
    }

    @Test func anExportIsWrittenLineByLineInTheCallersScope() throws {
        _ = try importing(Self.line(1) + Self.line(2) + Self.line(3, team: "ZZZZZ99999"), as: .local)
        func export(as caller: Caller, _ arguments: [(String, String)] = []) throws -> (type: String, pieces: [String]) {
            let answer = try ExperienceExport.binding.perform(
                Arguments(arguments.map { (name: $0.0, value: $0.1) }), Session(registry: registry, caller: caller))
            let stream = try #require(answer.stream)
            var pieces: [String] = []
            try stream.write { pieces.append(String(decoding: $0, as: UTF8.self)) }
            return (stream.type, pieces)
        }
        let all = try export(as: .admin(tokenID: 1))
        #expect(all.type == "application/x-ndjson")
        #expect(all.pieces.count == 3 && all.pieces.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().firstIndex(of: "\n") == nil })
        let own = try export(as: .team(teamA, tokenID: 2), [("format", "csv")])
        #expect(own.type == "text/csv; charset=utf-8")
        #expect(own.pieces.count == 3, "the header and team A's two lines: \(own.pieces)")
        #expect(!own.pieces.joined().contains("ZZZZZ99999"))
        #expect(throws: InvalidArguments.self) { _ = try export(as: .local, [("spreadsheetSafe", "true")]) }
    }

    @Test func bytesAlreadyWholeAreAStreamOfOnePiece() throws {
        let stream = OperationStream(OperationContent(bytes: Array("a\nb\n".utf8), type: "text/csv"))
        var pieces = 0
        try stream.write { _ in pieces += 1 }
        let whole = try stream.bytes()
        #expect(pieces == 1 && whole == Array("a\nb\n".utf8) && stream.type == "text/csv")
        let chunks = BodyStream(type: "text/csv", bytes: Array(repeating: 0x41, count: 10), chunkBytes: 4)
        #expect(try chunks.next()?.count == 4)
        #expect(try chunks.rest().count == 6)
        #expect(try chunks.next() == nil)
    }
}
