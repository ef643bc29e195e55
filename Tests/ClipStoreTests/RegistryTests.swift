import AppleFormats
import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import TestSupport
import Testing
@testable import ClipStore

func temporaryDatabasePath() -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipstore-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent("clips.db").path
}

func experienceJSON(
    _ url: String, clip: String = "ABCDE12345.com.example.bikes.Clip", title: String = "Rent a bike", subtitle: String = "Tap to unlock",
    extra: String = ""
) throws -> JSONValue {
    try JSONParser.parse(#"{"url":"\#(url)","clip":"\#(clip)","title":"\#(title)","subtitle":"\#(subtitle)"\#(extra)}"#)
}

/// A dump of every table, to prove a failed operation changed nothing.
func snapshot(_ path: String) throws -> [String] {
    let db = try Connection(path: path)
    var lines: [String] = []
    for table in try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map({ try $0.string("name") }) {
        for row in try db.query("SELECT * FROM \(table)") { lines.append("\(table): \(row.values)") }
    }
    return lines
}

struct RegistryTests {
    @Test func embeddedMigrationsMatchTheMigrationsFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(
            EmbeddedMigrations.all.map(\.name) == files.map { String($0.dropLast(4)) },
            "Migrations/ changed: run `touch Package.swift` (or a clean build) so the plugin embeds it again")
        for (embedded, file) in zip(EmbeddedMigrations.all, files) {
            #expect(embedded.sql == (try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)))
        }
    }

    @Test func registerCreatesWhatItImpliesAndSaysSo() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let first = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        #expect(first.value.id == 1 && first.value.version == 1 && first.created)
        #expect(first.touchedHosts == ["bikesrental.example"], "its AASA now lists the clip")
        #expect(
            first.notes.map(\.text) == [
                "created team ABCDE12345", "created app com.example.bikes (team ABCDE12345)",
                "app com.example.bikes has no name, which its default card shows: clipctl app set com.example.bikes --team ABCDE12345 --name NAME",
                "created clip ABCDE12345.com.example.bikes.Clip",
                "host bikesrental.example now belongs to team ABCDE12345",
                "associated bikesrental.example with clip ABCDE12345.com.example.bikes.Clip (its AASA now lists the clip)",
            ])
        let second = try registry.register(try experienceJSON("https://bikesrental.example/return"))
        #expect(second.notes.isEmpty)
        #expect(try registry.clips().map(\.hosts) == [["bikesrental.example"]])
        #expect(try registry.experience("https://BIKESRENTAL.example:443/rent/").id == 1)
    }

    /// Every write's outcome names the hosts whose AASA it changed, a removal too (a webhook or a
    /// CDN purge follows them); a write that leaves every AASA alone names none.
    @Test func outcomesNameTheHostsWhoseAASAChanged() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let clip = "ABCDE12345.com.example.bikes.Clip"
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        #expect(
            try registry.register(try experienceJSON("https://bikesrental.example/return")).touchedHosts == [],
            "the host's AASA already lists the clip")
        #expect(try registry.addDomain(clip: clip, host: "www.bikesrental.example").touchedHosts == ["www.bikesrental.example"])
        #expect(try registry.addDomain(clip: clip, host: "www.bikesrental.example").touchedHosts == [], "already associated")
        #expect(try registry.removeDomain(clip: clip, host: "www.bikesrental.example").touchedHosts == ["www.bikesrental.example"])
        let app = try BundleID("com.example.bikes")
        #expect(try registry.addWebcredentials(host: "bikesrental.example", app: app).touchedHosts == ["bikesrental.example"])
        #expect(try registry.removeWebcredentials(host: "bikesrental.example", app: app).touchedHosts == ["bikesrental.example"])
        #expect(throws: RegistryError.notFound("webcredentials of com.example.bikes on bikesrental.example")) {
            try registry.removeWebcredentials(host: "bikesrental.example", app: app)  // again: nothing left to remove
        }
        _ = try registry.setApplinks(host: "bikesrental.example", app: app, components: [["/": "/rent/*"]], defaults: nil, position: nil)
        #expect(try registry.removeApplinks(host: "BikesRental.example", app: app).touchedHosts == ["bikesrental.example"])
        #expect(throws: RegistryError.notFound("applinks of com.example.bikes on bikesrental.example")) {
            try registry.removeApplinks(host: "bikesrental.example", app: app)
        }
        // Tokens are no part of any AASA.
        let created = try registry.createToken(name: "ops", team: try TeamID("ABCDE12345"))
        #expect(created.created && created.touchedHosts == [] && created.value.secret.hasPrefix("clip_\(created.value.token.id)_"))
        let revoked = try registry.revokeToken(id: created.value.token.id)
        #expect(revoked.value.revokedAt != nil && revoked.touchedHosts == [] && !revoked.created)
        let id = created.value.token.id
        #expect(throws: RegistryError.notFound("active token \(id)")) { try registry.revokeToken(id: id) }
        #expect(throws: RegistryError.notFound("token 999")) { try registry.revokeToken(id: 999) }  // as the API says it
    }

    /// "A write that changes nothing makes no version and no change record": the same default
    /// experience (image included), applinks, settings or generation twice leaves the database as
    /// the first left it, and the second outcome is quiet.
    @Test func theSameWriteTwiceChangesNothingTheSecondTime() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        let clip = try AppID("ABCDE12345.com.example.bikes.Clip")
        let app = try BundleID("com.example.bikes")
        let image = TestImages.png(width: 1800, height: 1200)
        func setDefault(_ localizations: [String: String], _ image: [UInt8]?) throws -> Bool {
            try registry.setDefaultExperience(clip: clip, action: .open, localizations: localizations, image: image).isQuiet
        }
        let writes: [(String, () throws -> Bool)] = [
            ("default", { try setDefault(["en-US": "Hi", "fr-FR": "Salut"], nil) }),
            ("default with image", { try setDefault(["en-US": "Hi"], image) }),
            ("default, image kept", { try setDefault(["en-US": "Hi"], nil) }),
            (
                "applinks",
                {
                    try registry.setApplinks(
                        host: "bikesrental.example", app: app, components: [["/": "/rent/*"]],
                        defaults: ["caseSensitive": false]
                    ).isQuiet
                }
            ),
            (
                "settings",
                {
                    try registry.setApplinksSettings(
                        host: "bikesrental.example", defaults: ["percentEncoded": true],
                        substitutionVariables: nil
                    ).isQuiet
                }
            ),
            ("generation on", { try registry.setApplinksFromExperiences(host: "bikesrental.example", true).isQuiet }),
            ("generation off", { try registry.setApplinksFromExperiences(host: "bikesrental.example", false).isQuiet }),
        ]
        for (name, write) in writes {
            _ = try write()
            let before = try snapshot(path)
            #expect(try write(), "\(name): the second outcome says nothing")
            #expect(try snapshot(path) == before, "\(name)")
        }
        // Set without an image, the stored image stays: the third write was the second's content.
        #expect(try registry.defaultExperience(clip: clip.rawValue).version == 2)
    }

    @Test func duplicatesAndTeamClashesAreRefusedWithoutChanges() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        let before = try snapshot(path)
        #expect(
            throws: RegistryError.conflict(
                "https://bikesrental.example/rent is already registered as experience 1", existing: .experience(1))
        ) {
            try registry.register(try experienceJSON("https://bikesrental.example/rent/?", title: "Other"))
        }
        #expect(throws: RegistryError.conflict("app com.example.bikes is registered to another team than ZZZZZ99999")) {
            try registry.register(try experienceJSON("https://other.example/", clip: "ZZZZZ99999.com.example.bikes.Clip"))
        }
        #expect { try registry.register(try experienceJSON("https://x.example/", title: String(repeating: "t", count: 31))) } throws: {
            guard case .invalid(let errors) = $0 as? RegistryError else { return false }
            return errors.map(\.rule) == ["title.length"]
        }
        #expect(try snapshot(path) == before)
    }

    @Test func updateBumpsVersionAndHonoursExpectedVersion() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        let updated = try registry.update("1", with: ["title": "City bikes"], expectedVersion: 1)
        #expect(updated.value.version == 2 && updated.value.defaultCard.title == "City bikes")
        #expect(throws: RegistryError.versionMismatch(expected: 1, actual: 2)) {
            try registry.update("1", with: ["title": "Stale"], expectedVersion: 1)
        }
        #expect(try registry.experience("1").defaultCard.title == "City bikes")
        // Moving to a new host associates it.
        let moved = try registry.update("1", with: ["url": "https://bikes.example/rent"])
        #expect(
            moved.notes.map(\.text) == [
                "host bikes.example now belongs to team ABCDE12345",
                "associated bikes.example with clip ABCDE12345.com.example.bikes.Clip (its AASA now lists the clip)",
            ])
    }

    @Test func deactivationRemovalAndResolution() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(
            try experienceJSON("https://brighteggcafe.example/store/", clip: "FGHIJ67890.com.brightegg.app.Clip", title: "All stores"))
        _ = try registry.register(
            try experienceJSON(
                "https://brighteggcafe.example/store/cupertino", clip: "FGHIJ67890.com.brightegg.app.Clip", title: "Flagship"))
        func winner(_ url: String) throws -> Int64? {
            if case .advanced(let e, _) = try registry.resolve(url).match { return e.id }
            return nil
        }
        #expect(try winner("https://brighteggcafe.example/store/cupertino?x=1") == 2)
        _ = try registry.setStatus("2", .deactivated)
        #expect(try winner("https://brighteggcafe.example/store/cupertino?x=1") == 1)
        _ = try registry.setStatus("2", .active)
        _ = try registry.remove("2")
        #expect(throws: RegistryError.notFound("experience 2")) { try registry.experience("2") }
        #expect(try winner("https://brighteggcafe.example/store/cupertino") == 1)
        // The URL of a removed experience can be registered again.
        #expect(
            try registry.register(
                try experienceJSON("https://brighteggcafe.example/store/cupertino", clip: "FGHIJ67890.com.brightegg.app.Clip")
            ).value.id == 3)
        #expect(try registry.resolve("http://brighteggcafe.example/store").match == nil)
    }

    @Test func defaultExperienceFallback() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        #expect(try registry.resolve("https://bikesrental.example/about").match == nil)
        _ = try registry.setDefaultExperience(
            clip: try AppID("ABCDE12345.com.example.bikes.Clip"), action: .view, localizations: ["en-US": "Rent a bike"])
        guard case .defaultExperience(let fallback, let locale)? = try registry.resolve("https://bikesrental.example/about").match else {
            Issue.record("expected the default experience")
            return
        }
        #expect(fallback.experience.action == .view && locale == "en-US")
        #expect(throws: RegistryError.self) {
            try registry.setDefaultExperience(
                clip: try AppID("ABCDE12345.com.example.bikes.Clip"), action: .open,
                localizations: ["english": String(repeating: "s", count: 57)])
        }
    }

    @Test func aasaAndBanner() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://melamela.example/order", clip: "KLMNO13579.com.melamela.app.Clip"))
        _ = try registry.saveApp(
            try BundleID("com.melamela.app"), team: try TeamID("KLMNO13579"), appStoreID: .some(try AppStoreID("1234567890")),
            name: "Mela Mela")
        _ = try registry.setApplinks(host: "melamela.example", app: try BundleID("com.melamela.app"), components: [["/": "/order/*"]])
        #expect(
            String(decoding: try registry.aasa(host: "MelaMela.example."), as: UTF8.self)
                == #"{"appclips":{"apps":["KLMNO13579.com.melamela.app.Clip"]},"applinks":{"apps":[],"details":[{"appIDs":["KLMNO13579.com.melamela.app"],"components":[{"/":"/order/*"}]}]}}"#
        )
        #expect(
            throws: RegistryError.notFound("AASA for nothing.example: no clip, applinks rule or webcredentials is configured for this host")
        ) { try registry.aasa(host: "nothing.example") }
        let banner = try registry.banner(pageURL: "https://melamela.example/order/12")
        #expect(
            banner.banner.metaTag
                == #"<meta name="apple-itunes-app" content="app-id=1234567890, app-clip-bundle-id=com.melamela.app.Clip, app-clip-display=card">"#
        )
        #expect(banner.experienceID == 1)
        #expect(throws: RegistryError.self) { try registry.banner(pageURL: "https://elsewhere.example/") }
        #expect(throws: RegistryError.self) {
            try registry.setApplinks(host: "melamela.example", app: try BundleID("com.melamela.app"), components: [["/": "/$(nope)"]])
        }
    }

    @Test func importIsAllOrNothingAndReportsEveryBadLine() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://existing.example/"))
        let before = try snapshot(path)
        let text = """
            {"url":"https://a.example/1","clip":"ABCDE12345.com.example.bikes.Clip","title":"One","subtitle":"S"}
            {"url":"https://a.example/2","clip":"ABCDE12345.com.example.bikes.Clip","title":"Two"}
            {"url":"https://existing.example","clip":"ABCDE12345.com.example.bikes.Clip","title":"Dup","subtitle":"S"}

            {"url":"https://a.example/1/","clip":"ABCDE12345.com.example.bikes.Clip","title":"Again","subtitle":"S"}
            [1]
            """
        #expect { try registry.importExperiences(text, format: .ndjson) } throws: { error in
            guard case .invalidImport(let lines) = error as? RegistryError else { return false }
            return lines.map(\.line) == [2, 3, 5, 6]
        }
        #expect(try snapshot(path) == before)
    }

    @Test func exportReimportsToIdenticalBytes() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(
            try experienceJSON(
                "https://b.example/x?q=1",
                extra: #","localizations":{"FR":{"title":"Vélo, \"rapide\"","subtitle":"Louer, maintenant"}},"category":"BIKES""#))
        _ = try registry.register(
            try experienceJSON(
                "https://a.example/",
                extra:
                    #","poweredBy":true,"status":"DEACTIVATED","place":{"names":["P"],"displayPoint":{"coordinates":{"latitude":1.5,"longitude":2}}}"#
            ))
        for format in Interchange.Format.allCases {
            var first = ""
            try registry.export(format: format) { first += $0 + "\n" }
            let fresh = try Registry(path: temporaryDatabasePath())
            #expect(try fresh.importExperiences(first, format: format).imported == 2)
            var second = ""
            try fresh.export(format: format) { second += $0 + "\n" }
            #expect(first == second, "\(format)")
        }
    }

    @Test func refusesForeignAndCorruptFilesUntouched() throws {
        let foreign = temporaryDatabasePath()
        let db = try Connection(path: foreign)
        try db.execute("CREATE TABLE invoices (n INTEGER)")
        db.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign))
        #expect { try Registry(path: foreign) } throws: { "\($0)".contains("not a Clip Registry database") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == before)

        let corrupt = temporaryDatabasePath()
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: corrupt))
        #expect { try Registry(path: corrupt) } throws: { "\($0)".contains("is not a Clip Registry database") }
    }

    @Test func aWriteByAnotherConnectionIsVisibleAtOnce() throws {
        let path = temporaryDatabasePath()
        let server = try Registry(path: path)
        let cli = try Registry(path: path)
        #expect(try server.resolve("https://bikesrental.example/rent").match == nil)
        _ = try cli.register(try experienceJSON("https://bikesrental.example/rent"))
        #expect(try server.resolve("https://bikesrental.example/rent").match != nil)
    }

    /// A removal's outcome is what was removed; the same removal twice is notFound and writes nothing.
    @Test func removalsAnswerWhatTheyRemoved() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let clip = try AppID("ABCDE12345.com.example.bikes.Second")
        let added = try registry.addClip(clip)
        #expect(
            added.created
                && added.notes.map(\.text) == [
                    "created team ABCDE12345", "created app com.example.bikes (team ABCDE12345)",
                    "app com.example.bikes has no name, which its default card shows: clipctl app set com.example.bikes --team ABCDE12345 --name NAME",
                    "created clip ABCDE12345.com.example.bikes.Second",
                ])
        #expect(try registry.addClip(clip).isQuiet)
        let association = try registry.addDomain(clip: clip.rawValue, host: "Bikes.example")
        #expect(association.created && association.value == DomainAssociation(clip: clip, host: "bikes.example"))
        #expect(association.notes == [.hostOwned(host: "bikes.example", team: clip.team), .associated(host: "bikes.example", clip: clip)])
        #expect(try registry.addDomain(clip: clip.rawValue, host: "bikes.example").isQuiet)
        let set = try registry.setDefaultExperience(clip: clip, action: .open, localizations: ["en-US": "Bikes"])
        #expect(set.created && set.notes == [.createdDefaultExperience(clip)])
        #expect(try registry.setDefaultExperience(clip: clip, action: .open, localizations: ["en-US": "Bikes"]).isQuiet, "the same again")
        let changed = try registry.setDefaultExperience(clip: clip, action: .open, localizations: ["en-US": "Bicycles"])
        #expect(!changed.created && changed.notes == [.updatedDefaultExperience(clip)] && changed.value.version == 2)

        #expect(try registry.removeDefaultExperience(clip: clip.rawValue).value.localizations["en-US"]?.subtitle == "Bicycles")
        #expect(try registry.removeDomain(clip: clip.rawValue, host: "bikes.example").value.host == "bikes.example")
        let removed = try registry.removeClip(clip.rawValue)
        #expect(removed.value.appID == clip && removed.value.hosts.isEmpty)
        let before = try snapshot(registry.path)
        #expect(throws: RegistryError.self) { try registry.removeClip(clip.rawValue) }
        #expect(throws: RegistryError.self) { try registry.removeDefaultExperience(clip: clip.rawValue) }
        #expect(try snapshot(registry.path) == before)
    }

    @Test func changeRecordsTellWhoDidWhat() throws {
        let registry = try Registry(path: temporaryDatabasePath(), actor: "tester")
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        _ = try registry.setStatus("1", .deactivated)
        let changes = try registry.changes()
        #expect(
            changes.map { "\($0.action) \($0.entity)" } == [
                "create team", "create app", "create clip", "claim host", "create domain", "create experience", "deactivate experience",
            ])
        #expect(changes.last?.before?["status"] == "ACTIVE" && changes.last?.after?["status"] == "DEACTIVATED")
        #expect(changes.allSatisfy { $0.actor == "tester" })
    }
}
