import ClipCore
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// An import inserts its lines `importChunkRows` at a time: the result must be the one of
/// inserting every line in turn, refusals included (same lines, same errors, nothing written).
struct ImportChunkTests {
    static let clips = ["ABCDE12345.com.example.bikes.Clip", "ABCDE12345.com.example.cafe.Clip", "FGHIJ67890.com.example.tea.Clip"]

    /// Line `n` (1-based) of a file of `count` lines: three clips of two teams and five hosts that first appear
    /// mid-chunk, every third line with a second localization.
    static func line(_ n: Int) -> String {
        let clip = n < 40 ? clips[0] : n < 100 ? clips[n % 2] : clips[n % 3]
        let host =
            clip == clips[2] ? ["t1.example", "t2.example"][n % 2] : n < 70 ? "a.example" : ["a.example", "b.example", "c.example"][n % 3]
        let extra = n % 3 == 0 ? #","localizations":{"FR":{"title":"Vélo \#(n)","subtitle":"Louer"}}"# : ""
        return #"{"url":"https://\#(host)/\#(n)","clip":"\#(clip)","title":"Bike \#(n)","subtitle":"Tap \#(n)"\#(extra)}"#
    }

    static let lineCount = 3 * Registry.importChunkRows + 20

    static var text: String { (1...lineCount).map(line).joined(separator: "\n") }

    /// The change feed without its times (a write's own time is not the import's).
    static func feed(_ registry: Registry) throws -> [String] {
        try registry.changes(limit: 10_000).map { change in
            let after = (change.after?.objectMembers ?? []).filter { $0.key != "createdAt" && $0.key != "updatedAt" }
            return "\(change.entity) \(change.entityID) \(change.action) \(JSONWriter.string(.object(after)))"
        }
    }

    @Test func aChunkedImportWritesWhatLineByLineRegistrationsWrite() throws {
        let imported = try Registry(path: temporaryDatabasePath())
        let report = try imported.importExperiences(Self.text, format: .ndjson)
        #expect(report.imported == Self.lineCount)

        let oneByOne = try Registry(path: temporaryDatabasePath())
        var notes: [WriteNote] = []
        for n in 1...Self.lineCount { notes += try oneByOne.register(try JSONParser.parse(Self.line(n))).notes }

        #expect(try Self.feed(imported) == Self.feed(oneByOne), "same change records, in the same order, with the same ids")
        #expect(report.notes == notes)
        #expect(
            try imported.experiences()
                == oneByOne.experiences().map { e in
                    var e = e
                    let same = try imported.experience(String(e.id))
                    e.createdAt = same.createdAt
                    e.updatedAt = same.updatedAt
                    return e
                })
    }

    /// Lines whose URL is registered already fail in the database, inside a chunk: the first
    /// and last row of one, its middle, and several in one.
    @Test func refusedRowsInsideChunksAreEachNamed() throws {
        let chunk = Registry.importChunkRows
        let bad = [30, chunk + 1, 2 * chunk, 2 * chunk + 2, 2 * chunk + 20, 3 * chunk - 1, Self.lineCount]
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        var existing: [Int: Int64] = [:]
        for n in bad {
            let object = try JSONParser.parse(Self.line(n))
            existing[n] = try registry.register(object).value.id
        }
        let before = try snapshot(path)
        #expect { try registry.importExperiences(Self.text, format: .ndjson) } throws: { error in
            guard case .invalidImport(let lines) = error as? RegistryError else { return false }
            let expected = bad.map { n in
                Interchange.LineError(
                    line: n,
                    errors: [
                        FieldError(
                            field: "url", rule: "duplicate",
                            message:
                                "\(try! JSONParser.parse(Self.line(n))["url"]!.stringValue!) is already registered as experience \(existing[n]!)"
                        )
                    ])
            }
            return lines == expected
        }
        #expect(try snapshot(path) == before)
    }

    /// Every line bad: no chunk goes in whole.
    @Test func everyRowOfAChunkRefused() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        for n in 1...Registry.importChunkRows { _ = try registry.register(try JSONParser.parse(Self.line(n))) }
        let before = try snapshot(path)
        let text = (1...Registry.importChunkRows).map(Self.line).joined(separator: "\n")
        #expect { try registry.importExperiences(text, format: .ndjson) } throws: { error in
            guard case .invalidImport(let lines) = error as? RegistryError else { return false }
            return lines.map(\.line) == Array(1...Registry.importChunkRows) && lines.allSatisfy { $0.errors.first?.rule == "duplicate" }
        }
        #expect(try snapshot(path) == before)
    }
}
