import ClipCore
import ClipWire
import StrictJSON
import TestSupport
import Testing
@testable import ClipStore

/// Every field `ExperienceField.all` declares is carried by every form of an experience: the JSON
/// forms, CSV and NDJSON export and import, SQL (insert, update, the import's chunks, reads), the
/// read model (its loader, `upsert`, `materialize`, the saved image's check) and the resolve answer
/// (its bytes from the arena, from `Resolution`, read back by ClipWire). The values come from each
/// field's kind, so a field added to the table is carried here without a line of this test changing,
/// and a form that forgets it fails.
struct ExperienceFieldsTests {
    static let clip = "ABCDE12345.com.shop.app.Clip"

    /// A value of `field` other than its default: another case, true, a stored image, a place.
    static func otherValue(_ field: ExperienceField, image: String) -> FieldValue {
        switch field.kind {
        case .enumeration: field.defaultValue == .code(field.cases.count - 1) ? .code(0) : .code(field.cases.count - 1)
        case .flag: .code(1)
        case .text: .text(image)
        case .json: .json(["mainAddress": ["fullAddress": "1 Main Street, Springfield"]])
        // A window around now: the experience stays live.
        case .instant: .text(field.name == ExperienceField.liveFrom.name ? "2020-01-01T00:00:00Z" : "2099-01-01T00:00:00Z")
        }
    }

    /// An experience at `url` with every field set to `otherValue` (the status as given: a
    /// deactivated experience resolves to nothing) and a card in its default language.
    static func experience(_ url: String, image: String, active: Bool) throws -> AdvancedExperience {
        var e = AdvancedExperience(url: try NormalizedURL(url), clip: try AppID(clip), localizations: [:])
        for field in ExperienceField.all { field.set(otherValue(field, image: image), in: &e) }
        if active { e.status = .active }
        e.localizations = [e.defaultLanguage: CardText(title: "Table \"7\"", subtitle: "Pay at the table")]
        return e
    }

    /// Each field of `back` equals `e`'s, naming the form that dropped one.
    static func expectCarried(
        _ e: AdvancedExperience, _ back: AdvancedExperience?, by form: String, fields: [ExperienceField] = ExperienceField.all,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let back else {
            Issue.record("\(form): no experience", sourceLocation: sourceLocation)
            return
        }
        for field in fields {
            #expect(
                field.value(of: back) == field.value(of: e), "\(form) does not carry \(field.name)", sourceLocation: sourceLocation)
        }
    }

    /// A registry holding a header image of the team, and its digest.
    static func registryWithImage() throws -> (Registry, String, String) {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let holder = try registry.register(
            try experienceJSON("https://shop.example/holder", clip: clip), image: TestImages.png(width: 1800, height: 1200)
        ).value
        return (registry, path, try #require(holder.headerImage))
    }

    @Test func everyFieldIsNotItsDefaultHere() throws {
        let e = try Self.experience("https://shop.example/a", image: String(repeating: "a", count: 64), active: false)
        for field in ExperienceField.all {
            #expect(field.value(of: e) != field.defaultValue, "\(field.name): the test needs a value other than the default")
        }
        #expect(Set(ExperienceField.portableMembers).isSuperset(of: ExperienceField.all.map(\.name)), "the portable form lists every field")
        #expect(Set(ExperienceField.all.map(\.column)).count == ExperienceField.all.count, "one column per field")
    }

    @Test func jsonAndSQLCarryEveryField() throws {
        let (registry, _, image) = try Self.registryWithImage()
        let e = try Self.experience("https://shop.example/a", image: image, active: false)
        Self.expectCarried(e, try ExperienceJSON.decode(ExperienceJSON.portable(e)).experience, by: "the portable JSON form")
        // Insert, then read back by id (the row codec) and in a list.
        let registered = try registry.register(ExperienceJSON.portable(e)).value
        Self.expectCarried(e, try registry.experience(String(registered.id)), by: "an insert read back")
        Self.expectCarried(e, try registry.experiences().first { $0.id == registered.id }, by: "a list")
        // An update from every default to every field set.
        let plain = try registry.register(try experienceJSON("https://shop.example/b", clip: Self.clip)).value
        var target = e
        target.url = plain.url
        let updated = try registry.update(String(plain.id), with: ExperienceJSON.portable(target)).value
        Self.expectCarried(target, updated, by: "an update")
        Self.expectCarried(target, try registry.experience(String(plain.id)), by: "an update read back")
    }

    @Test(arguments: Interchange.Format.allCases)
    func exportAndImportCarryEveryField(_ format: Interchange.Format) throws {
        let (registry, _, image) = try Self.registryWithImage()
        let e = try Self.experience("https://shop.example/a", image: image, active: false)
        _ = try registry.register(ExperienceJSON.portable(e))
        var lines: [String] = []
        try registry.export(format: format) { lines.append($0) }
        let other = try Registry(path: temporaryDatabasePath())
        _ = try other.importExperiences(lines.joined(separator: "\n") + "\n", format: format)
        Self.expectCarried(e, try other.experiences().first { $0.url == e.url }, by: "\(format) export and import")
    }

    @Test func theReadModelCarriesEveryField() throws {
        let (registry, path, image) = try Self.registryWithImage()
        let e = try Self.experience("https://shop.example/a", image: image, active: false)
        let id = try registry.register(ExperienceJSON.portable(e)).value.id
        // The loader (SQLite's columns into the arena), then `materialize`.
        let loaded = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        Self.expectCarried(e, loaded.snapshot().experience(id: id), by: "the read model's loader")
        // `upsert` (a write followed), then `materialize`.
        var index = ExperienceIndex()
        var stored = e
        stored.id = 7
        index.upsert(stored)
        Self.expectCarried(e, index.experience(id: 7), by: "the read model's upsert")
        // The saved image, read back whole.
        let saved = temporaryDatabasePath() + "-read-model"
        #expect(try loaded.save(to: saved))
        let reread = try LiveIndex(path: path, checkIntervalNanoseconds: 0, savedReadModel: saved)
        Self.expectCarried(e, reread.snapshot().experience(id: id), by: "the saved read model")
    }

    @Test func theResolveAnswerCarriesEveryFieldItShows() throws {
        let (registry, path, image) = try Self.registryWithImage()
        let e = try Self.experience("https://shop.example/a", image: image, active: true)
        _ = try registry.register(ExperienceJSON.portable(e))
        let index = try LiveIndex(path: path, checkIntervalNanoseconds: 0)
        let resolution = try index.resolve("https://shop.example/a", preferences: [], at: Instant(seconds: 1_800_000_000))
        let fast = try #require(index.answerBytes(resolution), "the arena writes the answer")
        #expect(fast == JSONWriter.bytes(resolution.json(explain: false)), "the arena's bytes are Resolution's")
        let read = try ResolutionJSON.answer(json: try JSONParser.parse(fast))
        guard case .advanced(let card)? = read.match else {
            Issue.record("not an advanced match: \(read)")
            return
        }
        Self.expectCarried(e, card.experience, by: "the resolve answer", fields: ExperienceField.all.filter(\.inAnswer))
        #expect(JSONWriter.bytes(ResolutionJSON.json(read)) == fast, "read back and written again: the same bytes")
    }
}
