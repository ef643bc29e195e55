import ClipCore
import ClipWire
import Foundation
import SQLiteDB
import StrictJSON
import TestSupport
import Testing
@testable import ClipStore

/// A chain's operations sheet, as a spreadsheet exports it, imported and kept in step
/// (docs/sheets.md#import-a-sheet, docs/sheets.md#keep-the-registry-in-step-with-a-sheet).
struct SheetSyncTests {
    static let clip = "ABCDE12345.com.example.ride.Clip"

    /// The sheet: a byte-order mark, CRLF, a quoted newline in an address, `active` in lower case, a
    /// French title beside the English one, the place as latitude and longitude, columns of its own.
    static func sheet(stations: Int = 3, subtitle: (Int) -> String = { _ in "Tap to unlock a bike" }) -> String {
        var rows = [
            "City,Station ID,Station name,Address,Latitude,Longitude,URL,Category,Title (EN),Subtitle (EN),Title (FR),Subtitle (FR),Status"
        ]
        for n in 1...stations {
            let city = n % 2 == 0 ? "Lyon" : "Paris"
            rows.append(
                "\(city),ST\(n),Station \(n),\"\(n) rue de la Gare\nBât. B\",48.85\(n),2.35\(n),https://ride.example/s/st\(n),bikes,Ride now,\(subtitle(n)),Roulez,Touchez pour louer,active"
            )
        }
        return "\u{FEFF}" + rows.joined(separator: "\r\n") + "\r\n"
    }

    static let options = SheetOptions(
        map: [(sheet: "Station name", column: "label.name")], labelsFrom: ["City", "Station ID"], defaultClip: clip)

    func chunks(_ text: String) -> () -> ArraySlice<UInt8>? {
        var bytes: [UInt8]? = Array(text.utf8)
        return {
            defer { bytes = nil }
            return bytes?[...]
        }
    }

    func sync(_ registry: Registry, _ text: String, dryRun: Bool = false, removeMissing: Bool = false) throws -> SyncReport {
        try registry.importExperiences(
            mode: .sync, dryRun: dryRun, format: .csv, sheet: Self.options, scope: Registry.SyncScope(removeMissing: removeMissing),
            chunks: chunks(text))
    }

    func count(_ registry: Registry, _ table: String) throws -> Int {
        try registry.db.query("SELECT count(*) AS n FROM \(table)").first!.int("n")
    }

    @Test func theChainsSheetImportsWithItsOwnColumnsKeptAsLabels() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let report = try sync(registry, Self.sheet())
        #expect(report.count(.create) == 3 && report.unchanged == 0)
        let e = try registry.experience("https://ride.example/s/st1")
        #expect(e.labels == ["city": "Paris", "station-id": "ST1", "name": "Station 1"])
        #expect(e.status == .active && e.businessCategory == .BIKES)
        #expect(e.localizations[.FR] == CardText(title: "Roulez", subtitle: "Touchez pour louer"))
        #expect(e.defaultCard == CardText(title: "Ride now", subtitle: "Tap to unlock a bike"))
        #expect(e.place?["mainAddress"]?["fullAddress"]?.stringValue == "1 rue de la Gare, Bât. B")
        #expect(e.place?["displayPoint"]?["coordinates"]?["latitude"] == .double(48.851))
        #expect(e.clip.rawValue == Self.clip)
    }

    @Test func exportEditTwoCellsThenSyncChangesExactlyThoseTwo() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addWebhook(
            url: "https://hooks.example/in", events: try WebhookEventPatterns("*"), team: nil, allowPrivateTargets: false)
        _ = try sync(registry, Self.sheet(stations: 6))
        var exported: [String] = []
        try registry.export(format: .csv) { exported.append($0) }
        // Two cells edited in the exported file: a subtitle and a label.
        var lines = exported
        lines[2] = lines[2].replacingOccurrences(of: "Tap to unlock a bike", with: "Tap to ride")
        let st5 = try #require(lines.firstIndex { $0.contains("/s/st5,") && $0.hasSuffix(",ST5") })
        lines[st5] = String(lines[st5].dropLast(3)) + "ST5-north"
        #expect(lines != exported)
        let edited = lines.joined(separator: "\n")
        let records = try count(registry, "change_record"), events = try count(registry, "webhook_event")
        let before = try snapshot(path)

        let dry = try registry.importExperiences(mode: .sync, dryRun: true, format: .csv, chunks: chunks(edited))
        #expect(dry.dryRun && dry.unchanged == 4)
        #expect(dry.outcomes.map(\.action) == [.update, .update])
        #expect(dry.outcomes.map(\.details) == [["subtitle"], ["labels.station-id"]])
        #expect(try snapshot(path) == before, "a dry run writes nothing")

        let real = try registry.importExperiences(mode: .sync, dryRun: false, format: .csv, chunks: chunks(edited))
        #expect(
            real.outcomes
                == dry.outcomes.map { SyncReport.Outcome(line: $0.line, url: $0.url, id: $0.id, action: $0.action, details: $0.details) })
        #expect(try count(registry, "change_record") == records + 2)
        #expect(try count(registry, "webhook_event") == events + 2)

        // The same sheet again: nothing to do, nothing written.
        let settled = try snapshot(path)
        let third = try registry.importExperiences(mode: .sync, dryRun: false, format: .csv, chunks: chunks(edited))
        #expect(third.outcomes.isEmpty && third.unchanged == 6)
        #expect(try snapshot(path) == settled)
    }

    @Test func syncListsWhatTheSheetNoLongerHasAndRemovesItWhenAsked() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try sync(registry, Self.sheet(stations: 4))
        // Another host is outside the scope of a sheet that names none of its URLs.
        _ = try registry.register(try experienceJSON("https://other.example/x", clip: Self.clip))
        let shorter = Self.sheet(stations: 2)
        let listed = try sync(registry, shorter)
        #expect(listed.outcomes.map(\.action) == [.missing, .missing])
        #expect(listed.outcomes.map(\.url) == ["https://ride.example/s/st3", "https://ride.example/s/st4"])
        #expect(try registry.experiences().count == 5)
        let removed = try sync(registry, shorter, removeMissing: true)
        #expect(removed.outcomes.map(\.action) == [.remove, .remove])
        #expect(
            try registry.experiences().map(\.url.canonical) == [
                "https://other.example/x", "https://ride.example/s/st1", "https://ride.example/s/st2",
            ])
    }

    @Test func anUpdateRefusesUnknownURLsAndABadRowRefusesTheWholeRunUntouched() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try sync(registry, Self.sheet(stations: 2))
        let before = try snapshot(path)
        #expect(throws: RegistryError.self) {
            try registry.importExperiences(
                mode: .update, dryRun: false, format: .csv, sheet: Self.options, chunks: chunks(Self.sheet(stations: 3)))
        }
        #expect(try snapshot(path) == before)
        // BIKE is a near miss: refused with the suggestion, every bad row named, nothing written.
        let typo = Self.sheet(stations: 3).replacingOccurrences(of: ",bikes,", with: ",BIKE,")
        do {
            _ = try sync(registry, typo)
            Issue.record("a sheet with a bad category was accepted")
        } catch RegistryError.invalidImport(let lines) {
            // The lines where each record begins: the quoted address holds a line break.
            #expect(lines.map(\.line) == [2, 4, 6])
            #expect(lines.first?.errors.first?.message.contains("did you mean BIKES?") == true)
        }
        #expect(try snapshot(path) == before)
        // The dry run of the same sheet lists the errors as outcomes instead.
        let dry = try registry.importExperiences(mode: .sync, dryRun: true, format: .csv, sheet: Self.options, chunks: chunks(typo))
        #expect(dry.count(.error) == 3)
        #expect(try snapshot(path) == before)
    }

    @Test func aTeamsSyncCannotReachAnotherTeamsClipsOrExperiences() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://ride.example/s/st1", clip: "ZZZZZ99999.com.other.Clip"))
        let before = try snapshot(path)
        var scope = Registry.SyncScope()
        scope.filter.team = try TeamID("ABCDE12345")
        #expect(throws: RegistryError.self) {
            try registry.importExperiences(
                mode: .sync, dryRun: false, format: .csv, sheet: Self.options, scope: scope, chunks: chunks(Self.sheet(stations: 1)))
        }
        #expect(try snapshot(path) == before)
    }

    /// One member given by two columns of a row is refused, not half dropped; an empty cell beside a full one is no conflict.
    @Test func aMemberGivenByTwoColumnsOfARowIsRefused() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let sheets = [
            "url,title,subtitle,Title (EN)\nhttps://ride.example/d,T,S,T2\n",
            "url,title,subtitle,localizations,title.fr,subtitle.fr\nhttps://ride.example/d,T,S,\"{\"\"fr\"\":{\"\"title\"\":\"\"A\"\",\"\"subtitle\"\":\"\"B\"\"}}\",C,D\n",
        ]
        for sheet in sheets {
            let refusal = #expect(throws: RegistryError.self, "\(sheet)") {
                try registry.importExperiences(
                    mode: .sync, dryRun: false, format: .csv, sheet: SheetOptions(defaultClip: Self.clip), chunks: chunks(sheet))
            }
            let rules = refusal.map { error -> [String] in
                guard case .invalidImport(let lines) = error else { return [] }
                return lines.flatMap(\.errors).map(\.rule)
            }
            #expect(rules == ["duplicate"], "\(sheet)")
        }
        let fine = "url,title,subtitle,localizations,title.fr,subtitle.fr\nhttps://ride.example/d,T,S,,C,D\n"
        _ = try registry.importExperiences(
            mode: .sync, dryRun: false, format: .csv, sheet: SheetOptions(defaultClip: Self.clip), chunks: chunks(fine))
        #expect(try registry.experience("https://ride.example/d").localizations[.FR] == CardText(title: "C", subtitle: "D"))
    }

    @Test func headerProblemsAreNamedWithASuggestion() throws {
        let refused = SheetColumns.resolve(["URL", "Titel", "Colour"], SheetOptions())
        guard case .failure(let failure) = refused else {
            Issue.record("an unknown column was accepted")
            return
        }
        #expect(failure.errors.map(\.field) == ["Titel", "Colour"])
        #expect(failure.errors[0].message.contains("did you mean title?"))
        #expect(try SheetColumns.resolve(["Colour"], SheetOptions(unknownColumnsAsLabels: true)).get() == ["label.colour"])
        guard case .failure(let twice) = SheetColumns.resolve(["url", "Link"], SheetOptions()) else {
            Issue.record("two columns for the URL were accepted")
            return
        }
        #expect(twice.errors.map(\.rule) == ["duplicate"])
        guard case .failure(let label) = SheetColumns.resolve(["url", "label.city", "label.City"], SheetOptions()) else {
            Issue.record("two spellings of one label's column were accepted")
            return
        }
        #expect(label.errors.map(\.rule) == ["duplicate"])
        // What --map and --labels-from name must be in the sheet, and a column mapped once.
        let misspelt = SheetOptions(
            map: [(sheet: "Absent", column: "title"), (sheet: "Nom", column: "label.a"), (sheet: "nom", column: "label.b")],
            labelsFrom: ["Gone"])
        guard case .failure(let named) = SheetColumns.resolve(["url", "Nom"], misspelt) else {
            Issue.record("a --map of a missing column was accepted")
            return
        }
        #expect(named.errors.map { "\($0.field) \($0.rule)" } == ["map absent", "map duplicate", "labels-from absent"], "\(named.errors)")
    }
}

/// `update --where` (docs/sheets.md#selectors): one patch over what a selector matches, in one transaction.
struct BulkChangeTests {
    func chain(_ registry: Registry, stations: Int) throws {
        let lines = (1...stations).map { n in
            #"{"url":"https://ride.example/s/\#(n)","clip":"ABCDE12345.com.example.ride.Clip","title":"Ride","subtitle":"Tap","labels":{"city":"\#(n % 3 == 0 ? "lyon" : "paris")"}}"#
        }
        _ = try registry.importExperiences(lines.joined(separator: "\n"), format: .ndjson)
    }

    @Test func aSelectorsPatchChangesEveryMatchInOneTransactionWithOneImageStoredOnce() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        try chain(registry, stations: 300)
        let selector = try ExperienceSelector("host=ride.example,label.city=paris")
        let filter = try registry.filter(selector, team: nil)
        let image = TestImages.png(width: 1800, height: 1200)
        let records = try registry.changes(limit: 10_000).count
        let report = try registry.update(
            matching: filter, with: try JSONParser.parse(#"{"subtitle":"Tap to ride"}"#), image: image, expect: 200)
        #expect(report.outcomes.count == 200 && report.unchanged == 0)
        #expect(report.outcomes.allSatisfy { $0.details == ["subtitle", "headerImage"] })
        #expect(try registry.db.query("SELECT count(*) AS n FROM header_image").first!.int("n") == 1)
        // 200 experiences, and the image granted to the team once.
        #expect(try registry.changes(limit: 10_000).count == records + 201)
        #expect(try registry.experiences(filter).allSatisfy { $0.defaultCard.subtitle == "Tap to ride" && $0.headerImage != nil })
        // Again: nothing to change, nothing written.
        let settled = try snapshot(path)
        let again = try registry.update(
            matching: filter, with: try JSONParser.parse(#"{"subtitle":"Tap to ride"}"#), image: image, expect: 200)
        #expect(again.outcomes.isEmpty && again.unchanged == 200)
        #expect(try snapshot(path) == settled)
    }

    @Test func aRefusedOrDryRunBulkChangeLeavesTheDatabaseByteIdentical() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        try chain(registry, stations: 30)
        let filter = try registry.filter(try ExperienceSelector("label.city=paris"), team: nil)
        let patch = try JSONParser.parse(#"{"category":"BIKES"}"#)
        let before = try snapshot(path)
        #expect(throws: RegistryError.selectionMismatch(expected: 21, actual: 20)) {
            try registry.update(matching: filter, with: patch, expect: 21)
        }
        // A change refused for the experiences says which one, the first the selector names.
        do {
            _ = try registry.update(matching: filter, with: try JSONParser.parse(#"{"category":"BIKE"}"#))
            Issue.record("a category Apple does not have was accepted")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.first?.message.contains("(experience ") == true && errors.first?.message.contains("nothing was changed") == true)
        }
        #expect(throws: RegistryError.self) {
            try registry.update(matching: filter, with: try JSONParser.parse(#"{"url":"https://ride.example/x"}"#))
        }
        let dry = try registry.update(matching: filter, with: patch, expect: 20, dryRun: true)
        #expect(dry.dryRun && dry.outcomes.count == 20)
        #expect(try snapshot(path) == before)
    }

    @Test func aTeamsSelectorNeverReachesAnotherTeamsExperiences() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        try chain(registry, stations: 3)
        _ = try registry.register(
            try experienceJSON("https://other.example/s/1", clip: "ZZZZZ99999.com.other.Clip", extra: #","labels":{"city":"paris"}"#))
        let filter = try registry.filter(try ExperienceSelector("label.city=paris"), team: try TeamID("ZZZZZ99999"))
        let report = try registry.update(matching: filter, with: try JSONParser.parse(#"{"subtitle":"Other"}"#))
        #expect(report.outcomes.map(\.url) == ["https://other.example/s/1"])
        #expect(throws: RegistryError.self) {
            try registry.filter(try ExperienceSelector("clip=ABCDE12345.com.example.ride.Clip"), team: try TeamID("ZZZZZ99999"))
        }
    }

    @Test func selectorTerms() throws {
        let s = try ExperienceSelector(#"host=ride.example, label.city=Paris\, 7e,label.zone,status=active"#)
        #expect(s.host == "ride.example" && s.status == .active)
        #expect(s.labels.texts == ["city=Paris, 7e", "zone"])
        for bad in [
            "", "colour=red", "host=", "label.-x=1", "label.city=", "host=a.example,host=b.example", "status=active,status=deactivated",
        ] {
            #expect(throws: ValidationFailure.self, "\(bad)") { try ExperienceSelector(bad) }
        }
        // A backslash before anything but a comma or a backslash is itself.
        #expect(try ExperienceSelector(#"label.path=a\b"#).labels.texts == [#"path=a\b"#])
        #expect(try ExperienceSelector(#"label.path=a\\b,label.end=z\"#).labels.texts == [#"path=a\b"#, #"end=z\"#])
    }

    /// A sheet's coordinates are decimal degrees, a decimal comma read as a point; nothing else a number parser takes.
    @Test func coordinatesAreDecimalDegreesOnly() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        func chunks(_ text: String) -> () -> ArraySlice<UInt8>? {
            var bytes: [UInt8]? = Array(text.utf8)
            return {
                defer { bytes = nil }
                return bytes?[...]
            }
        }
        for bad in ["0x10", "inf", "1e3", "nan", "48.8.1"] {
            let sheet = "url,title,subtitle,latitude,longitude\nhttps://ride.example/s/1,R,T,\(bad),2.35\n"
            #expect(throws: RegistryError.self, "\(bad)") {
                try registry.importExperiences(
                    mode: .sync, dryRun: false, format: .csv, sheet: SheetOptions(defaultClip: SheetSyncTests.clip), chunks: chunks(sheet))
            }
        }
        let sheet = "url,title,subtitle,latitude,longitude\nhttps://ride.example/s/1,R,T,\"48,85\",-2.35\n"
        _ = try registry.importExperiences(
            mode: .sync, dryRun: false, format: .csv, sheet: SheetOptions(defaultClip: SheetSyncTests.clip), chunks: chunks(sheet))
        #expect(try registry.experience("1").place?["displayPoint"]?["coordinates"]?["latitude"] == .double(48.85))
        // In an update or a sync, the place cells all empty clear the place.
        let cleared = "url,title,subtitle,latitude,longitude,address\nhttps://ride.example/s/1,R,T,,,\n"
        let report = try registry.importExperiences(
            mode: .update, dryRun: false, format: .csv, sheet: SheetOptions(defaultClip: SheetSyncTests.clip), chunks: chunks(cleared))
        #expect(report.outcomes.map(\.details) == [["place"]])
        #expect(try registry.experience("1").place == nil)
    }
}
