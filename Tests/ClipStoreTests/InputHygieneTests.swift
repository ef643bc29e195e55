import ClipCore
import Foundation
import StrictJSON
import Testing
@testable import ClipStore

/// Findings of the hostile-input review, at the store: every refusal leaves the file byte-identical.
struct InputHygieneTests {
    func rules(_ body: () throws -> Void) -> [String] {
        do { try body(); return [] } catch RegistryError.invalid(let errors) { return errors.map(\.rule) } catch { return ["\(error)"] }
    }

    @Test func everyStoredFreeTextIsChecked() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        let before = try snapshot(path)
        let zalgo = "a" + String(repeating: "\u{0301}", count: 400_000)
        #expect(rules { _ = try registry.register(try experienceJSON("https://bikesrental.example/z", title: zalgo)) }.contains("title.length"))
        #expect(rules { _ = try registry.update("1", with: ["subtitle": .string("Go\u{202E}won")]) } == ["subtitle.control"])
        let app = try BundleID("com.example.bikes"), team = try TeamID("ABCDE12345")
        #expect(rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: "Bikes\u{200B}") } == ["name.control"])
        #expect(rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: " Bikes") } == ["name.spaces"])
        #expect(rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: String(repeating: "b", count: 31)) } == ["name.length"])
        #expect(rules { _ = try registry.createToken(name: "ops\u{2066}", team: nil) } == ["name.control"])
        #expect(rules { _ = try registry.createToken(name: "ops ", team: nil) } == ["name.spaces"])
        let clip = try AppID("ABCDE12345.com.example.bikes.Clip")
        #expect(rules { _ = try registry.setDefaultExperience(clip: clip, action: .open, localizations: ["en-US": "Ride\u{FEFF}"]) } == ["subtitle.control"])
        #expect(try snapshot(path) == before)
        // An empty app name stays allowed (it is the default).
        _ = try registry.saveApp(app, team: team, appStoreID: nil, name: "")
    }
}
