import ArgParse
import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// `clipctl default set` as an operation's command: it saves the clip first (`ClipSave`), then
/// `PUT …/default-experience`; on a database a refused input writes nothing, not even the clip;
/// with `--server` the image is uploaded for the clip's team after the clip and named by hash.
struct DefaultSetCommandTests {
    let registry: Registry
    let path: String
    let binding = DefaultExperienceSave.binding

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("default-set-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func parsed(_ words: [String]) throws -> ParsedCommand {
        let root = CommandSpec("clipctl", summary: "", subcommands: [CommandSpec("default", summary: "", subcommands: [binding.command!])])
        return try ArgumentParser.parse(["default"] + words, root: root, globals: [])
    }

    /// The command run on the database, as clipctl runs it: its arguments, then the write.
    func runLocally(_ words: [String], files: [String: [UInt8]] = [:]) throws -> DefaultExperienceSave.Output {
        let session = Session(registry: registry, caller: .local)
        let line = CommandLine(
            parsed: try parsed(words), readFile: { name, _ in files[name] ?? [] }, perform: { try $0.perform($1, session) })
        let arguments = try binding.arguments(of: line)
        var answer = try binding.perform(arguments, session)
        answer.commandRead = arguments.commandRead
        return try DefaultExperienceSave.Output(answer: answer)
    }

    @Test func aNewClipIsSavedFirstAndItsNotesComeWithTheDefault() throws {
        let output = try runLocally(["set", "ABCDE12345.com.example.bikes.Clip", "--action", "view", "--subtitle", "en-US=Bikes"])
        #expect(output.outcome.created)
        #expect(output.outcome.value.action == .view)
        #expect(output.outcome.notes.map(\.text).contains { $0.contains("ABCDE12345") }, "the clip's team and app were created first")
        #expect(try registry.clip("com.example.bikes.Clip").appID.rawValue == "ABCDE12345.com.example.bikes.Clip")
        let before = try bytes()
        let again = try runLocally(["set", "ABCDE12345.com.example.bikes.Clip", "--action", "VIEW", "--subtitle", "en-US=Bikes"])
        #expect(!again.outcome.created && again.outcome.notes.isEmpty)
        #expect(try bytes() == before, "the same command twice writes nothing the second time")
    }

    @Test func aRefusedInputWritesNothingNotEvenTheClip() throws {
        let before = try bytes()
        // No subtitle, then an image that is not one: every field error at once, before the clip is saved.
        #expect {
            try runLocally(["set", "ABCDE12345.com.example.bikes.Clip", "--image", "x.png"], files: ["x.png": [1, 2, 3]])
        } throws: { error in
            guard case .invalid(let errors) = error as? RegistryError else { return false }
            return errors.count == 2
        }
        #expect(throws: RegistryError.self) { try runLocally(["set", "ABCDE12345.com.example.bikes.Clip", "--subtitle", "en-US="]) }
        #expect(throws: CommandUsageError.self) { try runLocally(["set", "ABCDE12345.com.example.bikes.Clip", "--subtitle", "en-US"]) }
        #expect(throws: RegistryError.self) { try runLocally(["set", "com.example.bikes.Clip", "--subtitle", "en-US=Bikes"]) }
        #expect(try bytes() == before)
        #expect(throws: RegistryError.self) { try registry.clip("com.example.bikes.Clip") }
    }

    @Test func sentToAServerTheImageIsUploadedAfterTheClipAndNamedByHash() throws {
        var sent: [String] = []
        let line = CommandLine(
            parsed: try parsed(["set", "ABCDE12345.com.example.bikes.Clip", "--subtitle", "en-US=Bikes", "--image", "h.png"]),
            readFile: { _, _ in [9, 9] },
            perform: { binding, arguments in
                sent.append("\(binding.method) \(binding.request(for: arguments).path)")
                return OperationAnswer(json: ["notes": []], status: 201)
            },
            storeImage: { bytes, team in
                sent.append("image \(bytes.count) bytes for \(team ?? "-")")
                return ("abc123", [])
            })
        let arguments = try binding.arguments(of: line)
        #expect(sent == ["PUT /v1/clips/com.example.bikes.Clip", "image 2 bytes for ABCDE12345"])
        #expect(arguments.attachment == nil)
        let request = binding.request(for: arguments)
        #expect(request.path == "/v1/clips/ABCDE12345.com.example.bikes.Clip/default-experience")
        #expect(request.body?["localizations"]?["en-US"]?["headerImage"] == "abc123")
        #expect(request.query.isEmpty)
    }
}
