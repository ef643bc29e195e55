import ClipCore
import ClipWire
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

/// An import writes each experience's change record on the preparing threads, for the id the
/// row is expected to get: the records must be those of the experiences as stored, whatever ids
/// the table has had before.
struct ImportChangeRecordTests {
    @Test func theChangeRecordsAreTheExperiencesAsStoredAfterEarlierAndRemovedRows() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        var earlier: [Int64] = []
        for n in 1...3 {
            let line = #"{"url":"https://old.example/\#(n)","clip":"ABCDE12345.com.example.old.Clip","title":"Old","subtitle":"Old"}"#
            earlier.append(try registry.register(try JSONParser.parse(line)).value.id)
        }
        _ = try registry.remove(String(earlier[2]))
        #expect(try registry.nextExperienceID() == earlier[2] + 1, "a removed experience keeps its id")
        let since = try registry.changes(limit: 10_000).last!.id

        let report = try registry.importExperiences(ImportChunkTests.text, format: .ndjson)
        #expect(report.imported == ImportChunkTests.lineCount)
        let created = try registry.changes(since: since, limit: 10_000).filter { $0.entity == .experience }
        #expect(created.count == ImportChunkTests.lineCount)
        #expect(created.first?.entityID == String(earlier[2] + 1))
        for record in created {
            let stored = try registry.experience(record.entityID)
            #expect(record.after.map { JSONWriter.string($0) } == JSONWriter.string(ExperienceJSON.full(stored)))
        }
    }

    /// The `n`th line read gets id `firstID + n`, lines that cannot be read counted.
    @Test func preparedLinesExpectConsecutiveIdsInLineOrder() throws {
        let count = 2_500
        var lines = (1...count).map(ImportChunkTests.line)
        lines[10] = "{not json"
        var reader = Interchange.Reader(format: .ndjson, defersParsing: true)
        var batch = reader.feed(ArraySlice(Array(lines.joined(separator: "\n").utf8)))
        let last = reader.finish()
        batch.unparsed += last.unparsed
        batch.errors += last.errors
        let prepared = Registry.PreparedBatch(batch, count: count, firstID: 100, at: "2026-01-01T00:00:00.000Z")
        #expect(prepared.errors.map(\.line) == [11])
        #expect(prepared.lines.map(\.line) == Array(1...10) + Array(12...count))
        #expect(prepared.lines.map { $0.changeRecord?.id } == prepared.lines.map { Int64(99 + $0.line) })
    }
}

/// An import whose lines keep failing (found by hostile QA: `yes | clipctl import -` kept every
/// line's error and never ended; a 4 MB body of bad lines took 1.4 GB on the server).
struct ImportErrorLimitTests {
    /// An endless stream of bad lines is refused once `refusedErrorLines` have errors: the chunks
    /// after that are never asked for, the first errors are listed and the last entry says why.
    @Test func anEndlessStreamOfBadLinesStops() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let before = try snapshot(path)
        let chunk = Array(String(repeating: "y\n", count: 4_096).utf8)
        var chunksRead = 0
        #expect {
            try registry.importExperiences(
                format: .ndjson,
                chunks: {
                    chunksRead += 1
                    return chunk[...]
                })
        } throws: { error in
            guard case .invalidImport(let lines) = error as? RegistryError else { return false }
            let last = lines.last?.errors.first
            return lines.count == Registry.refusedErrorLines + 1 && lines.first?.line == 1 && last?.rule == "import.stopped"
                && last?.message.contains("the rest of the file was not read") == true
        }
        #expect(chunksRead < 16, "\(chunksRead) chunks read")
        #expect(try snapshot(path) == before)
    }

    /// A file read to its end with more bad lines than are listed says how many more.
    @Test func aFileWithManyBadLinesListsTheFirstAndCountsTheRest() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let text = String(repeating: "y\n", count: Registry.refusedErrorLines + 5)
        #expect { try registry.importExperiences(text, format: .ndjson) } throws: { error in
            guard case .invalidImport(let lines) = error as? RegistryError else { return false }
            let last = lines.last?.errors.first
            return lines.count == Registry.refusedErrorLines + 1 && last?.rule == "import.moreErrors"
                && last?.message == "5 more lines have errors, not listed"
        }
    }
}
