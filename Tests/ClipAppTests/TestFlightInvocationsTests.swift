import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON
import Testing

/// Choosing a clip's TestFlight invocations through the layer, as both edges call it (issue 28).
struct TestFlightInvocationsTests {
    let registry: Registry
    let path: String
    static let bikes = "ABCDE12345.com.example.bikes.Clip"
    static let cafe = "FGHIJ67890.com.example.cafe.Clip"

    init() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipapp-tf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.appendingPathComponent("clips.db").path
        registry = try Registry(path: path, actor: "test")
        for (url, clip, title) in [
            ("https://bikes.example/rent", Self.bikes, "Rent a bike"),
            ("https://bikes.example/return", Self.bikes, "Return a bike"),
            ("https://bikes.example/old", Self.bikes, "Old"),
            ("https://cafe.example/menu", Self.cafe, "Menu"),
        ] {
            _ = try registry.register(
                try JSONParser.parse(
                    #"{"url":"\#(url)","clip":"\#(clip)","title":"\#(title)","subtitle":"Tap","localizations":{"FR":{"title":"\#(title) (fr)","subtitle":"Touchez"}}}"#
                ))
        }
        _ = try registry.setStatus("3", .deactivated)
        _ = try registry.addDomain(clip: Self.bikes, host: "bikes.example")
        // The default experience's TestFlight title is the app's name.
        _ = try registry.saveApp(try BundleID("com.example.bikes"), team: try TeamID("ABCDE12345"), appStoreID: nil, name: "Bikes")
        _ = try registry.setDefaultExperience(
            clip: try AppID(Self.bikes), action: .open, localizations: ["en-US": "Bikes", "fr-FR": "Vélos"])
    }

    /// The database and its write-ahead log, as they lie on disk.
    func databaseBytes() throws -> [Data] {
        try [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.map {
            try Data(contentsOf: URL(fileURLWithPath: $0))
        }
    }

    func perform(_ binding: Binding, _ arguments: [(String, String)], as caller: Caller = .local) throws -> TestFlightInvocationList {
        try TestFlightInvocationList(json: try binding.perform(Arguments(arguments), Session(registry: registry, caller: caller)).json)
    }

    func set(_ urls: [String], clip: String = bikes, as caller: Caller = .local) throws -> TestFlightInvocationList {
        try perform(TestFlightInvocationsSet.binding, [("clip", clip)] + urls.map { ("url", $0) }, as: caller)
    }

    @Test func choosesThreeInOrderWithTitlesPerLocale() throws {
        let list = try set(["https://bikes.example/return", "https://bikes.example/rent", "https://bikes.example/anything-else"])
        #expect(
            list.invocations.map(\.url) == [
                "https://bikes.example/return", "https://bikes.example/rent", "https://bikes.example/anything-else",
            ])
        #expect(list.invocations.map(\.target) == [.experience(2), .experience(1), .defaultExperience])
        #expect(
            list.invocations[0].titles == [
                .init(locale: "en-US", title: "Return a bike"), .init(locale: "fr-FR", title: "Return a bike (fr)"),
            ])
        // The default experience's card shows the app's name, once per locale it has.
        #expect(list.invocations[2].titles == [.init(locale: "en-US", title: "Bikes"), .init(locale: "fr-FR", title: "Bikes")])
        // Read back the same, by bundle ID as by App ID.
        let shown = try perform(TestFlightInvocationsShow.binding, [("clip", "com.example.bikes.Clip")])
        #expect(shown.invocations == list.invocations)
        #expect(shown.clip.rawValue == Self.bikes)
    }

    /// Issue 32: an app without a name would give App Store Connect an empty title for a URL that falls to the default
    /// experience: refused with the command that names the app, nothing written.
    @Test func aURLFallingToTheDefaultExperienceOfAnUnnamedAppIsRefusedWithTheFix() throws {
        _ = try registry.saveApp(try BundleID("com.example.bikes"), team: try TeamID("ABCDE12345"), appStoreID: nil, name: "")
        let before = try databaseBytes()
        #expect {
            _ = try set(["https://bikes.example/rent", "https://bikes.example/anything-else"])
        } throws: { error in
            guard case RegistryError.invalid(let errors) = error else { return false }
            return errors.map(\.field) == ["url[1]"] && errors.map(\.rule) == ["testflight.appName"]
                && errors[0].message.hasSuffix("clipctl app set com.example.bikes --team ABCDE12345 --name NAME")
        }
        #expect(try databaseBytes() == before)
    }

    /// Found by hostile QA: URLs were checked normalized but stored as typed, spaces and invisible characters included.
    @Test func storesEachURLNormalizedNotAsTyped() throws {
        let list = try set([
            " https://bikes.example/rent\n", "https://BIKES\u{200B}.example:443/return\t", "https://bikes.example\u{3002}/x#top",
        ])
        #expect(list.invocations.map(\.url) == ["https://bikes.example/rent", "https://bikes.example/return", "https://bikes.example/x"])
        // The same list in another spelling changes nothing.
        let before = try databaseBytes()
        _ = try set(["https://bikes.example/rent", "https://bikes.example/return", "https://bikes.example/x"])
        #expect(try databaseBytes() == before)
    }

    @Test func refusesEveryBadURLAtOnceAndWritesNothing() throws {
        _ = try set(["https://bikes.example/rent"])
        let before = try databaseBytes()
        do {
            _ = try set([
                "https://cafe.example/menu",  // another clip's experience
                "https://bikes.example/rent",
                "HTTPS://Bikes.Example:443/rent",  // the same URL, spelled otherwise
                "not a url",
            ])
            Issue.record("a refused list was accepted")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["url", "url[0]", "url[2]", "url[3]"])
            #expect(errors.map(\.rule).contains("testflight.limit"))
            #expect(errors[1].rule == "testflight.resolve" && errors[1].message.contains("another clip"))
            #expect(errors[2].rule == "testflight.duplicate")
        }
        #expect(try databaseBytes() == before)
        #expect(try set([], clip: Self.bikes).invocations.isEmpty)
    }

    @Test func aDeactivatedExperiencesURLIsTheDefaultExperiencesAndAURLOfNoClipIsRefused() throws {
        // Deactivated: the URL now opens the clip's default experience (the resolver's answer).
        #expect(try set(["https://bikes.example/old"]).invocations.map(\.target) == [.defaultExperience])
        #expect(throws: RegistryError.self) { try set(["https://nowhere.example/"]) }
    }

    @Test func aURLThatStopsResolvingIsShownWithItsProblem() throws {
        _ = try set(["https://bikes.example/rent"])
        _ = try registry.removeDefaultExperience(clip: Self.bikes)
        _ = try registry.remove("1")
        let shown = try perform(TestFlightInvocationsShow.binding, [("clip", Self.bikes)])
        guard case .unresolved(let why) = shown.invocations.first?.target else {
            Issue.record("still resolves: \(shown.invocations)")
            return
        }
        #expect(why.contains("no active experience"))
        #expect(shown.invocations[0].titles.isEmpty)
    }

    @Test func anotherTeamsClipIsNotFoundAndItsListUntouched() throws {
        _ = try set(["https://cafe.example/menu"], clip: Self.cafe)
        let before = try databaseBytes()
        let bikesTeam = Caller.team(try TeamID("ABCDE12345"), tokenID: 1)
        #expect(throws: RegistryError.notFound("clip \(Self.cafe)")) { try set([], clip: Self.cafe, as: bikesTeam) }
        #expect(throws: RegistryError.notFound("clip com.example.cafe.Clip")) {
            try perform(TestFlightInvocationsShow.binding, [("clip", "com.example.cafe.Clip")], as: bikesTeam)
        }
        #expect(try databaseBytes() == before)
        // Its own clip, it may.
        #expect(try set(["https://bikes.example/rent"], as: bikesTeam).invocations.count == 1)
        #expect(throws: CallerRefusal.self) { try set([], as: .anyone) }
    }
}
