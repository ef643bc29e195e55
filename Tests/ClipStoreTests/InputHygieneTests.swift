import ClipCore
import Foundation
import SQLiteDB
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
        #expect(
            rules { _ = try registry.register(try experienceJSON("https://bikesrental.example/z", title: zalgo)) }.contains("title.length"))
        #expect(rules { _ = try registry.update("1", with: ["subtitle": .string("Go\u{202E}won")]) } == ["subtitle.control"])
        let app = try BundleID("com.example.bikes"), team = try TeamID("ABCDE12345")
        #expect(rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: "Bikes\u{200B}") } == ["name.control"])
        #expect(rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: " Bikes") } == ["name.spaces"])
        #expect(
            rules { _ = try registry.saveApp(app, team: team, appStoreID: nil, name: String(repeating: "b", count: 31)) } == ["name.length"]
        )
        #expect(rules { _ = try registry.createToken(name: "ops\u{2066}", team: nil) } == ["name.control"])
        #expect(rules { _ = try registry.createToken(name: "ops ", team: nil) } == ["name.spaces"])
        let clip = try AppID("ABCDE12345.com.example.bikes.Clip")
        #expect(
            rules { _ = try registry.setDefaultExperience(clip: clip, action: .open, localizations: ["en-US": "Ride\u{FEFF}"]) } == [
                "subtitle.control"
            ])
        #expect(try snapshot(path) == before)
        // An empty app name stays allowed (it is the default).
        _ = try registry.saveApp(app, team: team, appStoreID: nil, name: "")
    }
}

struct StreamingImportTests {
    /// The import read in chunks of a few bytes: the same result, every bad line with its number,
    /// and nothing written unless every line is good.
    @Test func chunkedImportIsAllOrNothing() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        var lines = (1...20_000).map {
            #"{"url":"https://s.example/\#($0)","clip":"ABCDE12345.com.s.Clip","title":"T\#($0)","subtitle":"S"}"#
        }
        lines[9_999] = #"{"url":"https://s.example/1","clip":"ABCDE12345.com.s.Clip","title":"Dup","subtitle":"S"}"#
        lines[19_999] = "{oops"
        func chunks(_ text: String, size: Int) -> () -> ArraySlice<UInt8>? {
            let bytes = Array(text.utf8)
            var offset = 0
            return {
                guard offset < bytes.count else { return nil }
                defer { offset += size }
                return bytes[offset..<min(bytes.count, offset + size)]
            }
        }
        let before = try snapshot(path)
        #expect { try registry.importExperiences(format: .ndjson, chunks: chunks(lines.joined(separator: "\n"), size: 7)) } throws: {
            error in
            guard case .invalidImport(let bad) = error as? RegistryError else { return false }
            return bad.map(\.line) == [10_000, 20_000] && bad[0].errors.first?.message == "https://s.example/1 is already on line 1"
        }
        #expect(try snapshot(path) == before)
        lines[9_999] = #"{"url":"https://s.example/10000","clip":"ABCDE12345.com.s.Clip","title":"T","subtitle":"S"}"#
        lines[19_999] = #"{"url":"https://s.example/20000","clip":"ABCDE12345.com.s.Clip","title":"T","subtitle":"S"}"#
        var progress: [Int] = []
        let report = try registry.importExperiences(format: .ndjson, chunks: chunks(lines.joined(separator: "\n"), size: 4_099)) {
            progress.append($0)
        }
        #expect(report.imported == 20_000 && progress.last == 20_000 && progress.count > 1)
    }

    /// A line repeating a registered URL names the experience once.
    @Test func aLineRepeatingARegisteredURLNamesItsExperienceOnce() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        #expect {
            try registry.importExperiences(
                #"{"url":"https://bikesrental.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#,
                format: .ndjson)
        } throws: { error in
            guard case .invalidImport(let bad) = error as? RegistryError else { return false }
            return bad.flatMap(\.errors).map(\.message) == ["https://bikesrental.example/rent is already registered as experience 1"]
        }
    }

    /// A stop raised mid-import (a server's drain deadline) ends the whole import with the store's
    /// error, never as line errors: nothing is written and no line is blamed.
    @Test func aStopMidImportIsTheStoresErrorNotTheLines() throws {
        let path = temporaryDatabasePath()
        let stop = StopSignal()
        let registry = try Registry(path: path, stop: stop)
        _ = try registry.register(try experienceJSON("https://bikesrental.example/rent"))
        let before = try snapshot(path)
        let lines = (1...30_000).map {
            #"{"url":"https://s\#($0 % 50).example/\#($0)","clip":"ABCDE12345.com.s\#($0 % 50).Clip","title":"T","subtitle":"S"}"#
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        var offset = 0
        #expect(throws: RegistryError.interrupted) {
            try registry.importExperiences(
                format: .ndjson,
                chunks: {
                    guard offset < bytes.count else { return nil }
                    // The first batch is written, then the stop comes.
                    if offset > 0 { stop.raise() }
                    defer { offset += 1 << 20 }
                    return bytes[offset..<min(bytes.count, offset + (1 << 20))]
                })
        }
        #expect(try snapshot(path) == before)
    }
}

struct ClipParentTests {
    /// A clip's bundle ID may not make an app of another clip's bundle ID, on any path.
    @Test func aClipsParentIsNeverAClip() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addClip(try AppID("ABCDE12345.com.x.Clip"))
        let before = try snapshot(path)
        let sub = "ABCDE12345.com.x.Clip.Sub"
        #expect(throws: RegistryError.self) { try registry.register(try experienceJSON("https://x.example/", clip: sub)) }
        #expect(throws: RegistryError.self) { try registry.addClip(try AppID(sub)) }
        #expect(throws: RegistryError.self) {
            try registry.importExperiences(#"{"url":"https://x.example/","clip":"\#(sub)","title":"T","subtitle":"S"}"#, format: .ndjson)
        }
        #expect(throws: RegistryError.self) {
            try registry.saveApp(try BundleID("com.x.Clip"), team: try TeamID("ABCDE12345"), appStoreID: nil, name: nil)
        }
        #expect(throws: RegistryError.self) {
            try registry.setDefaultExperience(clip: try AppID(sub), action: .open, localizations: ["en-US": "S"])
        }
        #expect(try snapshot(path) == before)
        // The other order: once com.y.Clip is an app (a clip's parent), it cannot become a clip.
        _ = try registry.addClip(try AppID("ABCDE12345.com.y.Clip.Sub"))
        let after = try snapshot(path)
        #expect(throws: RegistryError.self) { try registry.addClip(try AppID("ABCDE12345.com.y.Clip")) }
        #expect(throws: RegistryError.self) {
            try registry.register(try experienceJSON("https://y.example/", clip: "ABCDE12345.com.y.Clip"))
        }
        #expect(try snapshot(path) == after)
    }
}
