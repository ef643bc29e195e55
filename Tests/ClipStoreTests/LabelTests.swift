import ClipCore
import ClipWire
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// Labels (docs/sheets.md#labels): stored with the experience, merged as a JSON Merge Patch, selected by
/// the selector index, carried by change records, exports and imports.
struct LabelTests {
    func station(_ registry: Registry, _ path: String, _ labels: String) throws -> AdvancedExperience {
        try registry.register(try experienceJSON("https://ride.example/s/\(path)", extra: #","labels":\#(labels)"#)).value
    }

    @Test func labelsAreStoredAsGivenWithKeysLowerCasedAndReadBackInKeyOrder() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let e = try station(registry, "par007", #"{"Station":"PAR007","city":"Paris","region":"Île-de-France"}"#)
        #expect(e.labels == ["station": "PAR007", "city": "Paris", "region": "Île-de-France"])
        let read = try registry.experience("1")
        #expect(read.labels == e.labels)
        #expect(
            JSONWriter.string(ExperienceJSON.full(read).objectMembers!.first { $0.key == "labels" }!.value)
                == #"{"city":"Paris","region":"Île-de-France","station":"PAR007"}"#)
        // An experience without labels has no member: the answer of every unlabelled experience is as it was.
        let plain = try registry.register(try experienceJSON("https://ride.example/plain")).value
        #expect(ExperienceJSON.full(plain).objectMembers!.contains { $0.key == "labels" } == false)
    }

    @Test func anUpdateMergesLabelsAStringSetsNullRemovesAndNullForAllClears() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try station(registry, "par007", #"{"city":"paris","station":"par007"}"#)
        var e = try registry.update("1", with: try JSONParser.parse(#"{"labels":{"city":"lyon","zone":"b"}}"#)).value
        #expect(e.labels == ["city": "lyon", "station": "par007", "zone": "b"])
        #expect(e.version == 2)
        e = try registry.update("1", with: try JSONParser.parse(#"{"labels":{"zone":null,"nothere":null}}"#)).value
        #expect(e.labels == ["city": "lyon", "station": "par007"])
        e = try registry.update("1", with: try JSONParser.parse(#"{"labels":null}"#)).value
        #expect(e.labels.isEmpty)
        #expect(try registry.db.query("SELECT count(*) AS n FROM experience_label").first!.int("n") == 0)
        // The same labels again change nothing: no version, no change record.
        let before = try registry.changes(limit: 100).count
        e = try registry.update("1", with: try JSONParser.parse(#"{"labels":{}}"#)).value
        let after = try registry.changes(limit: 100).count
        #expect(e.version == 4 && after == before)
    }

    @Test func badLabelsAreRefusedEachNamedAndTheDatabaseIsUnchanged() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try station(registry, "par007", #"{"city":"paris"}"#)
        let before = try snapshot(path)
        let tooMany = (0...Labels.maxCount).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let cases: [(String, String)] = [
            (#"{"-city":"paris"}"#, "labels.key"),
            (#"{"ci ty":"paris"}"#, "labels.key"),
            (#"{"\#(String(repeating: "k", count: 64))":"v"}"#, "labels.key"),
            (#"{"city":""}"#, "labels.empty"),
            (#"{"city":" paris"}"#, "labels.spaces"),
            (#"{"city":"pa\u200Bris"}"#, "labels.control"),
            (#"{"city":"\#(String(repeating: "é", count: 201))"}"#, "labels.length"),
            (#"{"city":3}"#, "type"),
            (#"{"City":"a","city":"b"}"#, "labels.duplicate"),
            (#"["city"]"#, "type"),
            ("{\(tooMany)}", "labels.count"),
        ]
        for (labels, rule) in cases {
            #expect(throws: RegistryError.self, "\(labels)") {
                try registry.update("1", with: try JSONParser.parse(#"{"labels":\#(labels)}"#))
            }
            do { _ = try registry.update("1", with: try JSONParser.parse(#"{"labels":\#(labels)}"#)) } catch let error as RegistryError {
                guard case .invalid(let errors) = error else { Issue.record("\(labels): \(error)"); continue }
                #expect(errors.contains { $0.rule == rule }, "\(labels): \(errors)")
            }
        }
        #expect(try snapshot(path) == before)
    }

    @Test func aSelectorListsTheExperiencesEveryTermHolds() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try station(registry, "par007", #"{"city":"paris","zone":"a"}"#)
        _ = try station(registry, "par008", #"{"city":"paris","zone":"b"}"#)
        _ = try station(registry, "lyo001", #"{"city":"lyon","zone":"a"}"#)
        _ = try registry.register(try experienceJSON("https://ride.example/s/none"))
        func urls(_ terms: [String]) throws -> [String] {
            try registry.experiences(Registry.ListFilter(labels: try LabelSelector(terms))).map(\.url.path)
        }
        #expect(try urls(["city=paris"]) == ["/s/par007", "/s/par008"])
        #expect(try urls(["city=paris", "zone=a"]) == ["/s/par007"])
        #expect(try urls(["zone"]) == ["/s/lyo001", "/s/par007", "/s/par008"])
        #expect(try urls(["City=paris"]) == ["/s/par007", "/s/par008"], "keys are read lower-cased")
        #expect(try urls(["city=Paris"]).isEmpty, "values are matched as stored")
        #expect(try urls(["city=paris", "city=lyon"]).isEmpty)
        #expect(try urls([]).count == 4)
        #expect(throws: ValidationFailure.self) { try LabelSelector(["city="]) }
        #expect(throws: ValidationFailure.self) { try LabelSelector(["=paris"]) }
        #expect(try registry.labelKeys() == ["city", "zone"])
        #expect(try registry.labelKeys(Registry.ListFilter(labels: try LabelSelector(["city=lyon"]))) == ["city", "zone"])
    }

    @Test func changeRecordsCarryLabelsAsTheirLastMember() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try station(registry, "par007", #"{"city":"paris"}"#)
        _ = try registry.update("1", with: try JSONParser.parse(#"{"labels":{"city":"lyon"}}"#))
        let records = try registry.changes(limit: 10)
        #expect(records.last?.changedMembers == ["labels"])
        #expect(records.last?.after?.objectMembers?.last(where: { $0.key == "labels" })?.value == .object([("city", .string("lyon"))]))
        let stored = try registry.db.query("SELECT form FROM change_record").map { try $0.int("form") }
        #expect(stored.allSatisfy { $0 == 3 })
    }

    @Test func aCSVExportHasAColumnPerLabelKeyAndImportsBackToTheSameBytes() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try station(registry, "par007", #"{"city":"paris","station":"par007"}"#)
        _ = try station(registry, "lyo001", #"{"city":"lyon","zone":"=a"}"#)
        _ = try registry.register(try experienceJSON("https://ride.example/s/none"))
        func export(_ r: Registry, _ format: Interchange.Format, safe: Bool = false) throws -> String {
            var out: [String] = []
            try r.export(format: format, spreadsheetSafe: safe) { out.append($0) }
            return out.joined(separator: "\n")
        }
        let csv = try export(registry, .csv)
        let header = csv.split(separator: "\n").first.map(String.init)
        #expect(header?.hasSuffix(",headerImageData,label.city,label.station,label.zone") == true)
        #expect(csv.contains("Tap to unlock,,,,,,,,lyon,,=a") || csv.contains(",lyon,,=a"))
        for format in Interchange.Format.allCases {
            let copy = try Registry(path: temporaryDatabasePath())
            let text = try export(registry, format)
            _ = try copy.importExperiences(text, format: format)
            #expect(try export(copy, format) == text, "\(format)")
            #expect(try copy.experience("https://ride.example/s/lyo001").labels == ["city": "lyon", "zone": "=a"])
        }
        // Defused for a spreadsheet like every other cell.
        #expect(try export(registry, .csv, safe: true).contains(",'=a"))
    }

    @Test func anImportReadsLabelColumnsAndALabelsColumnAndRefusesABadKeyColumn() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let csv = """
            url,clip,title,subtitle,label.City,labels
            https://ride.example/s/a,ABCDE12345.com.example.bikes.Clip,Rent,Tap,paris,"{""zone"":""a""}"
            https://ride.example/s/b,ABCDE12345.com.example.bikes.Clip,Rent,Tap,,
            """
        _ = try registry.importExperiences(csv, format: .csv)
        #expect(try registry.experience("https://ride.example/s/a").labels == ["city": "paris", "zone": "a"])
        #expect(try registry.experience("https://ride.example/s/b").labels.isEmpty)
        let path = temporaryDatabasePath()
        let other = try Registry(path: path)
        let before = try snapshot(path)
        #expect(throws: RegistryError.self) {
            try other.importExperiences(
                "url,clip,title,subtitle,label.-x\nhttps://ride.example/s/a,ABCDE12345.com.example.bikes.Clip,R,T,v\n", format: .csv)
        }
        #expect(try snapshot(path) == before)
    }

    @Test func aChunkedImportStoresEveryLinesLabels() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let n = 2 * Registry.importChunkRows + 3
        let text = (0..<n).map {
            #"{"url":"https://ride.example/s/\#($0)","clip":"ABCDE12345.com.example.bikes.Clip","title":"Rent","subtitle":"Tap","labels":{"n":"\#($0)","city":"paris"}}"#
        }.joined(separator: "\n")
        _ = try registry.importExperiences(text, format: .ndjson)
        #expect(try registry.db.query("SELECT count(*) AS n FROM experience_label").first!.int("n") == 2 * n)
        #expect(try registry.experiences(Registry.ListFilter(labels: try LabelSelector(["n=\(n - 1)"]))).map(\.url.path) == ["/s/\(n - 1)"])
        // A removed experience's labels go with it from every selection.
        _ = try registry.remove("https://ride.example/s/0")
        #expect(try registry.experiences(Registry.ListFilter(labels: try LabelSelector(["city=paris"]))).count == n - 1)
    }

    @Test func keysFromColumnNames() {
        #expect(Labels.key(fromColumn: "Station ID") == "station-id")
        #expect(Labels.key(fromColumn: "  City ") == "city")
        #expect(Labels.key(fromColumn: "Région (FR)") == "r-gion-fr")
        #expect(Labels.key(fromColumn: "***") == nil)
        #expect(Labels.key(fromColumn: String(repeating: "a", count: 64)) == nil)
    }

    /// A value typed decomposed (`e` and U+0301) and one typed composed are one value: stored in NFC, selected in NFC.
    @Test func aValueIsOneValueHoweverItsAccentsWereTyped() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let decomposed = "Orle\u{301}ans", composed = "Orl\u{E9}ans"
        let e = try station(registry, "orl001", #"{"city":"\#(decomposed)"}"#)
        #expect(Array(e.labels["city"]!.unicodeScalars) == Array(composed.unicodeScalars))
        for typed in [composed, decomposed] {
            let selected = try registry.experiences(Registry.ListFilter(labels: try LabelSelector(["city=\(typed)"])))
            #expect(selected.map(\.id) == [e.id], "\(Array(typed.unicodeScalars))")
        }
    }
}
