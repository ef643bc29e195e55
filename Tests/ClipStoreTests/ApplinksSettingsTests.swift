import AppleFormats
import ClipCore
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// Host-wide applinks settings change one at a time (docs/rules.md#applinks-input): setting the defaults keeps the
/// substitution variables, and the reverse; JSON null clears one.
struct ApplinksSettingsTests {
    @Test func eachSettingChangesOnItsOwn() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        let variables: JSONValue = ["city": ["paris", "rome"]]
        try registry.setApplinksSettings(host: "shop.example", defaults: nil, substitutionVariables: variables)
        _ = try registry.setApplinks(host: "shop.example", app: try BundleID("com.example.bikes"), components: [["/": "/$(city)/*"]])
        let withDefaults = try registry.setApplinksSettings(
            host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        #expect(withDefaults.value == ApplinksHostSettings(defaults: ["caseSensitive": false], substitutionVariables: variables))
        let aasa = try JSONParser.parse(try registry.aasa(host: "shop.example"))
        #expect(aasa["applinks"]?["substitutionVariables"] == variables && aasa["applinks"]?["defaults"] == ["caseSensitive": false])
        // The same again changes nothing: no change record.
        let records = try registry.changes().count
        try registry.setApplinksSettings(host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        #expect(try registry.changes().count == records)
        // Clearing the variables a stored rule uses is refused, and nothing changes.
        let before = try snapshot(registry.path)
        #expect(throws: RegistryError.self) {
            try registry.setApplinksSettings(host: "shop.example", defaults: nil, substitutionVariables: .null)
        }
        #expect(try snapshot(registry.path) == before)
        let cleared = try registry.setApplinksSettings(host: "shop.example", defaults: .null, substitutionVariables: nil)
        #expect(cleared.value == ApplinksHostSettings(defaults: nil, substitutionVariables: variables))
    }

    /// Applinks on a free host make it the app's team's: the outcome says so, once.
    @Test func applinksOnAFreeHostSayTheHostIsNowTheTeams() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        let app = try BundleID("com.example.bikes"), team = try TeamID("ABCDE12345")
        let first = try registry.setApplinks(host: "www.shop.example", app: app, components: [["/": "/help/*"]])
        #expect(first.created && first.notes == [.hostOwned(host: "www.shop.example", team: team)])
        #expect(first.touchedHosts == ["www.shop.example"])
        let again = try registry.setApplinks(host: "www.shop.example", app: app, components: [["/": "/help/*"]])
        #expect(!again.created && again.notes.isEmpty)
        // A team taking a free host by its settings is told too; an administrator takes nothing.
        let byAdministrator = try registry.setApplinksSettings(
            host: "free.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        #expect(byAdministrator.notes.isEmpty)
        #expect(try registry.hostOwnerships(host: "free.example").isEmpty)
        let credentials = try registry.addWebcredentials(host: "login.shop.example", app: app)
        #expect(credentials.created && credentials.notes == [.hostOwned(host: "login.shop.example", team: team)])
        #expect(try registry.addWebcredentials(host: "login.shop.example", app: app).isQuiet)
        let byTeam = try registry.setApplinksFromExperiences(host: "other.example", true, by: team)
        #expect(byTeam.notes == [.hostOwned(host: "other.example", team: team)])
    }
}

/// Every write that changes a host's AASA is held to the 128 KB limit and the lint, through one
/// check at the end of the write (associations and webcredentials once skipped it).
struct AASALimitOnEveryWriteTests {
    @Test func anAssociationOrWebcredentialsThatWouldPushTheFileOverTheLimitIsRefused() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        let app = try BundleID("com.example.bikes")
        // Fill the file to 20 bytes under the limit with one long component.
        func fill(_ padding: Int) throws -> Int {
            _ = try registry.setApplinks(
                host: "shop.example", app: app,
                components: .array([.object([(key: "/", value: .string("/" + String(repeating: "a", count: padding) + "/*"))])]))
            return try registry.aasa(host: "shop.example").count
        }
        let size = try fill(100_000)
        let target = AASAGenerator.maxBytes - 20
        #expect(try fill(100_000 + target - size) == target)
        _ = try registry.addClip(try AppID("ABCDE12345.com.example.bikes.Other"))
        let before = try snapshot(registry.path)
        #expect(
            throws: RegistryError.unprocessable(
                "the AASA file for shop.example would be \(target + 59) bytes, over Apple's limit of 131072 bytes (128 KB)")
        ) {
            try registry.addWebcredentials(host: "shop.example", app: app)
        }
        #expect { _ = try registry.addDomain(clip: "ABCDE12345.com.example.bikes.Other", host: "shop.example") } throws: { error in
            guard case RegistryError.unprocessable(let message) = error else { return false }
            return message.contains("131072")
        }
        #expect(try snapshot(registry.path) == before)
        // Adding webcredentials twice records one change.
        _ = try fill(100)
        try registry.addWebcredentials(host: "shop.example", app: app)
        let records = try registry.changes(limit: 1000).count
        try registry.addWebcredentials(host: "shop.example", app: app)
        #expect(try registry.changes(limit: 1000).count == records)
    }

    /// The check is structural: a write that changes an AASA row without a word about AASA (as a
    /// new write path would) is checked all the same, and rolled back whole.
    @Test func aWriteThatSaysNothingAboutTheAASAIsCheckedAllTheSame() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        let before = try snapshot(registry.path)
        let huge = JSONWriter.string(.array([.object([(key: "/", value: .string("/" + String(repeating: "a", count: 140_000)))])]))
        #expect(throws: RegistryError.self) {
            try registry.write {
                try registry.db.execute(
                    "INSERT INTO applinks_details(host, app_bundle_id, position, components, updated_at) VALUES (?, ?, 0, ?, 'now')",
                    [.text("shop.example"), .text("com.example.bikes"), .text(huge)])
            }
        }
        #expect(try snapshot(registry.path) == before)
        // The same through an upsert's UPDATE, and a cascade-free UPDATE of the host: checked too.
        _ = try registry.setApplinks(host: "shop.example", app: try BundleID("com.example.bikes"), components: [["/": "/a/*"]])
        let small = try snapshot(registry.path)
        #expect(throws: RegistryError.self) {
            try registry.write { try registry.db.execute("UPDATE applinks_details SET components = ?", [.text(huge)]) }
        }
        #expect(try snapshot(registry.path) == small)
        // A refused write leaves nothing noted for the next one, which passes.
        _ = try registry.write { try registry.db.execute("UPDATE applinks_details SET position = 1") }
    }

    /// Experiences are part of the AASA of a host that generates applinks from them: every way
    /// they change (register, import, update, activate) is held to the limit.
    @Test func generatedApplinksAreHeldToTheLimitOnEveryExperienceWrite() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        try registry.setApplinksFromExperiences(host: "shop.example", true)
        let app = try BundleID("com.example.bikes")
        _ = try registry.setApplinks(
            host: "shop.example", app: app,
            components: .array([.object([(key: "/", value: .string("/" + String(repeating: "a", count: 100_000) + "/*"))])]))
        let size = try registry.aasa(host: "shop.example").count
        _ = try registry.setApplinks(
            host: "shop.example", app: app,
            components: .array([
                .object([
                    (key: "/", value: .string("/" + String(repeating: "a", count: 100_000 + AASAGenerator.maxBytes - 10 - size) + "/*"))
                ])
            ]))
        #expect(try registry.aasa(host: "shop.example").count == AASAGenerator.maxBytes - 10)
        let before = try snapshot(registry.path)
        let long = "https://shop.example/" + String(repeating: "b", count: 40)
        #expect(throws: RegistryError.self) { _ = try registry.register(try experienceJSON(long)) }
        #expect(throws: RegistryError.self) {
            _ = try registry.importExperiences(
                #"{"url":"\#(long)","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#, format: .ndjson)
        }
        #expect(throws: RegistryError.self) { _ = try registry.update("1", with: try JSONParser.parse(#"{"url":"\#(long)"}"#)) }
        #expect(try snapshot(registry.path) == before)
    }
}
