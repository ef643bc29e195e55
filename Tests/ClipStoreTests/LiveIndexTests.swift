import ClipCore
import ClipWire
import Foundation
import StrictJSON
import Testing
@testable import ClipStore

/// The server's read model follows every committed write, from any connection.
/// The index checks on every read here; the server checks at most once a millisecond.
struct LiveIndexTests {
    func winner(_ index: LiveIndex, _ url: String) throws -> String? {
        if case .advanced(let e, _) = try index.resolve(url, preferences: [], at: .earliest).match { return e.url.canonical }
        return nil
    }

    @Test func followsCreatesUpdatesRemovalsAndStatusFromAnotherConnection() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        #expect(try winner(index, "https://shop.example/store/1/menu") == nil)
        let store = try writer.register(try experienceJSON("https://shop.example/store", clip: "ABCDE12345.com.shop.app.Clip")).value
        #expect(try winner(index, "https://shop.example/store/1/menu") == "https://shop.example/store")
        _ = try writer.register(try experienceJSON("https://shop.example/store/1", clip: "ABCDE12345.com.shop.app.Clip"))
        #expect(try winner(index, "https://shop.example/store/1/menu") == "https://shop.example/store/1")
        _ = try writer.setStatus("https://shop.example/store/1", .deactivated)
        #expect(try winner(index, "https://shop.example/store/1/menu") == "https://shop.example/store")
        _ = try writer.update(String(store.id), with: try JSONParser.parse(#"{"url":"https://shop.example/shops"}"#))
        #expect(try winner(index, "https://shop.example/store/1/menu") == nil)
        #expect(try winner(index, "https://shop.example/shops/2") == "https://shop.example/shops")
        _ = try writer.remove("https://shop.example/shops")
        #expect(try winner(index, "https://shop.example/shops/2") == nil)
        #expect(index.count == 1)
    }

    /// The change feed is typed, its stored texts unchanged: every record a tour of the write
    /// paths leaves reads back as a known entity and action (the read model replays by them).
    @Test func everyChangeRecordIsAKnownEntityAndAction() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let e = try registry.register(try experienceJSON("https://shop.example/store", clip: "ABCDE12345.com.shop.app.Clip")).value
        _ = try registry.setStatus(String(e.id), .deactivated)
        _ = try registry.setStatus(String(e.id), .active)
        _ = try registry.setDefaultExperience(
            clip: try AppID("ABCDE12345.com.shop.app.Clip"), action: .view, localizations: ["en-US": "Hi"])
        _ = try registry.setApplinks(host: "shop.example", app: try BundleID("com.shop.app"), components: [["/": "/a/*"]])
        try registry.setApplinksSettings(host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil)
        try registry.setApplinksFromExperiences(host: "shop.example", true)
        try registry.addWebcredentials(host: "shop.example", app: try BundleID("com.shop.app"))
        _ = try registry.createToken(name: "ops", team: try TeamID("FGHIJ67890"))
        _ = try registry.shareHost("shop.example", team: try TeamID("FGHIJ67890"))
        _ = try registry.remove(String(e.id))
        let records = try registry.changes(limit: 1000)
        let pairs = records.map { ($0.entity.rawValue, $0.action.rawValue) }
        #expect(pairs.allSatisfy { ChangeEntity(rawValue: $0.0) != nil && ChangeAction(rawValue: $0.1) != nil }, "\(pairs)")
        #expect(
            Set(pairs.map(\.0)) == [
                "team", "app", "clip", "host", "domain", "experience", "default-experience", "applinks",
                "applinks-settings", "applinks-generation", "webcredentials", "token",
            ])
        #expect(pairs.filter { $0.0 == "experience" }.map(\.1) == ["create", "deactivate", "activate", "remove"])
    }

    @Test func defaultFallbacksAndCachedAASAFollowCatalogChanges() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        _ = try writer.register(try experienceJSON("https://shop.example/order", clip: "ABCDE12345.com.shop.app.Clip"))
        let before = try #require(try index.aasa(host: "shop.example"))
        #expect(try index.aasa(host: "other.example") == nil)
        _ = try writer.addDomain(clip: "ABCDE12345.com.shop.app.Clip", host: "other.example")
        #expect(try index.aasa(host: "other.example") != nil)
        _ = try writer.addWebcredentials(host: "shop.example", app: try BundleID("com.shop.app"))
        let after = try #require(try index.aasa(host: "shop.example"))
        let expected = try writer.aasa(host: "shop.example")
        #expect(after.etag != before.etag && after.bytes == expected)
        _ = try writer.setDefaultExperience(
            clip: try AppID("ABCDE12345.com.shop.app.Clip"), action: .view, localizations: ["en-US": "Welcome"])
        guard case .defaultExperience? = try index.resolve("https://shop.example/elsewhere", preferences: [], at: .earliest).match else {
            Issue.record("the default experience added by another connection is not offered")
            return
        }
    }

    @Test func renderedAnswersAreTheAnswersBytesAndFollowUpdates() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        let e = try writer.register(
            try experienceJSON(
                "https://shop.example/a", clip: "ABCDE12345.com.shop.app.Clip",
                extra: #","localizations":{"FR":{"title":"Boutique \"A\"","subtitle":"Sous-titre"}}"#)
        ).value
        for (url, preferences) in [
            ("https://shop.example/a/b?x=1", [Language]()), ("https://shop.example/a", [.FR]), ("https://shop.example/a/\u{2028}", [.FR]),
        ] {
            let resolution = try index.resolve(url, preferences: preferences, at: .earliest)
            #expect(index.answerBytes(resolution) == JSONWriter.bytes(resolution.json(explain: false)), "\(url)")
        }
        _ = try writer.update(String(e.id), with: try JSONParser.parse(#"{"title":"Changed"}"#))
        let after = try index.resolve("https://shop.example/a", preferences: [], at: .earliest)
        #expect(String(decoding: index.answerBytes(after) ?? [], as: UTF8.self).contains(#""title":"Changed""#))
        #expect(index.answerBytes(try index.resolve("https://elsewhere.example/", preferences: [], at: .earliest)) == nil)
    }

    /// clipctl reads the resolve answer with ResolutionJSON: the fast path's bytes and the
    /// encoder's (with and without an explanation) read to the same answer, and writing that
    /// answer back gives the encoder's bytes again (what `clipctl resolve --json` prints).
    @Test func theResolveReaderReadsTheFastPathAndTheEncoderAlike() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        _ = try writer.register(
            try experienceJSON(
                "https://shop.example/a", clip: "ABCDE12345.com.shop.app.Clip",
                extra: #","localizations":{"FR":{"title":"Boutique \"A\"","subtitle":"Sous-titre"}}"#))
        _ = try writer.setDefaultExperience(
            clip: try AppID("ABCDE12345.com.shop.app.Clip"), action: .view,
            localizations: ["en-US": "Welcome"])
        let resolution = try index.resolve("https://shop.example/a/b?x=1", preferences: [.FR], at: .earliest)
        let fast = try #require(index.answerBytes(resolution))
        let read = try ResolutionJSON.answer(json: try JSONParser.parse(fast))
        #expect(try ResolutionJSON.answer(json: try JSONParser.parse(JSONWriter.bytes(resolution.json(explain: false)))) == read)
        guard case .advanced(let card)? = read.match else { Issue.record("not an advanced match: \(read)"); return }
        #expect(card.title == "Boutique \"A\"" && card.language == .FR && read.invocationURL == "https://shop.example/a/b?x=1")
        let explained = try writer.resolve("https://shop.example/a/b?x=1", language: "FR")
        let readExplained = try ResolutionJSON.answer(json: try JSONParser.parse(JSONWriter.bytes(explained.json(explain: true))))
        #expect(readExplained.match == read.match && readExplained.explanation?.map(\.outcome) == [.chosen])
        for url in ["https://shop.example/a/b?x=1", "https://shop.example/elsewhere", "https://nowhere.example/", "http://shop.example/a"] {
            for explain in [false, true] {
                let r = try writer.resolve(url, language: "FR")
                let bytes = JSONWriter.bytes(r.json(explain: explain))
                let answer = try ResolutionJSON.answer(json: try JSONParser.parse(bytes))
                #expect(JSONWriter.bytes(ResolutionJSON.json(answer)) == bytes, "\(url) explain: \(explain)")
                #expect((answer.match == nil) == (r.match == nil) && (answer.explanation != nil) == explain)
            }
        }
        #expect(throws: WireError.self) { try ResolutionJSON.answer(json: ["matched": "maybe", "invocationURL": "x"]) }
        // Text that is not a URL is invalid input, from the database and from memory alike.
        #expect(throws: RegistryError.self) { try writer.resolve("not a url") }
        #expect(throws: RegistryError.self) { try index.resolve("not a url", preferences: [], at: .earliest) }
    }

    /// A write through a registry the index observes (the server's pool) is seen by the next read;
    /// one through a registry it does not (clipctl, another process) at the next periodic check.
    @Test func anObservedWriteIsSeenAtOnceAndOthersWithinTheInterval() throws {
        let path = temporaryDatabasePath()
        let other = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 3_600_000_000_000)
        _ = try other.register(try experienceJSON("https://shop.example/a", clip: "ABCDE12345.com.shop.app.Clip"))
        #expect(try winner(index, "https://shop.example/a") == nil, "an hour-long interval: not asked yet")
        let observed = try Registry(path: path)
        observed.observers = WriteObservers()
        observed.observers?.add(index)
        _ = try observed.register(try experienceJSON("https://shop.example/b", clip: "ABCDE12345.com.shop.app.Clip"))
        #expect(try winner(index, "https://shop.example/a") == "https://shop.example/a")
        #expect(try winner(index, "https://shop.example/b") == "https://shop.example/b")
        // A refused write announces nothing: the index is not asked again.
        _ = try other.register(try experienceJSON("https://shop.example/c", clip: "ABCDE12345.com.shop.app.Clip"))
        #expect(throws: RegistryError.self) {
            try observed.register(try experienceJSON("https://shop.example/b", clip: "ABCDE12345.com.shop.app.Clip"))
        }
        #expect(try winner(index, "https://shop.example/c") == nil)
    }

    @Test func aLargeImportAndARestoreRebuildIt() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        _ = try writer.register(try experienceJSON("https://shop.example/only", clip: "ABCDE12345.com.shop.app.Clip"))
        let backup = path + ".backup"
        try writer.backup(to: backup)
        let lines = (0..<(LiveIndex.replayLimit + 10)).map {
            #"{"url":"https://shop.example/s/\#($0)","clip":"ABCDE12345.com.shop.app.Clip","title":"T","subtitle":"S"}"#
        }
        _ = try writer.importExperiences(lines.joined(separator: "\n"), format: .ndjson)
        #expect(try winner(index, "https://shop.example/s/7/x") == "https://shop.example/s/7")
        #expect(index.count == LiveIndex.replayLimit + 11)
        _ = try writer.restore(from: backup)
        #expect(try winner(index, "https://shop.example/s/7/x") == nil)
        #expect(index.count == 1)
    }

    @Test func unknownHostsAreNotCached() throws {
        let path = temporaryDatabasePath()
        let writer = try Registry(path: path)
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        _ = try writer.register(try experienceJSON("https://shop.example/order", clip: "ABCDE12345.com.shop.app.Clip"))
        #expect(try index.aasa(host: "shop.example") != nil)
        for i in 0..<3_000 { #expect(try index.aasa(host: "h\(i).example") == nil) }
        #expect(index.cachedAASACount == 1)
        // A host configured later is served at once.
        _ = try writer.addDomain(clip: "ABCDE12345.com.shop.app.Clip", host: "h7.example")
        #expect(try index.aasa(host: "h7.example") != nil)
    }
}
