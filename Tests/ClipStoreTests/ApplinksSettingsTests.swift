import ClipCore
import StrictJSON
import Testing
@testable import ClipStore

/// Host-wide applinks settings change one at a time (issue #10): setting the defaults keeps the
/// substitution variables, and the reverse; JSON null clears one.
struct ApplinksSettingsTests {
    @Test func eachSettingChangesOnItsOwn() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store"))
        let variables: JSONValue = ["city": ["paris", "rome"]]
        try registry.setApplinksSettings(host: "shop.example", defaults: nil, substitutionVariables: variables)
        _ = try registry.setApplinks(host: "shop.example", app: try BundleID("com.example.bikes"), components: [["/": "/$(city)/*"]])
        let withDefaults = try registry.setApplinksSettings(host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        #expect(withDefaults == ApplinksHostSettings(defaults: ["caseSensitive": false], substitutionVariables: variables))
        let aasa = try JSONParser.parse(try registry.aasa(host: "shop.example"))
        #expect(aasa["applinks"]?["substitutionVariables"] == variables && aasa["applinks"]?["defaults"] == ["caseSensitive": false])
        // The same again changes nothing: no change record.
        let records = try registry.changes().count
        try registry.setApplinksSettings(host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        #expect(try registry.changes().count == records)
        // Clearing the variables a stored rule uses is refused, and nothing changes.
        let before = try snapshot(registry.path)
        #expect(throws: RegistryError.self) { try registry.setApplinksSettings(host: "shop.example", defaults: nil, substitutionVariables: .null) }
        #expect(try snapshot(registry.path) == before)
        let cleared = try registry.setApplinksSettings(host: "shop.example", defaults: .null, substitutionVariables: nil)
        #expect(cleared == ApplinksHostSettings(defaults: nil, substitutionVariables: variables))
    }
}
