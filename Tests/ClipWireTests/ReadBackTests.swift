import AppleFormats
import ClipCore
import ClipWire
import StrictJSON
import Testing

/// A remote clipctl reads the server's answers with ClipWire's readers: each must give back the
/// value its encoder wrote, through the bytes (so that local and remote print the same).
@Suite struct ReadBackTests {
    func throughBytes(_ value: JSONValue) throws -> JSONValue { try JSONParser.parse(JSONWriter.bytes(value)) }

    let team = try! TeamID("ABCDE12345")
    let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")

    @Test func appsClipsAssociationsAndDefaultExperiences() throws {
        let full = App(
            bundleID: try BundleID("com.example.bikes"), team: team, appStoreID: try AppStoreID("1234567890"),
            name: "Bikes", version: 3)
        for app in [
            full,
            App(bundleID: try BundleID("com.example.bare"), team: team),
        ] {
            #expect(try CatalogJSON.app(json: throughBytes(CatalogJSON.app(app))) == app)
        }
        let c = Clip(appID: clip, appBundleID: try BundleID("com.example.bikes"), hosts: ["a.example", "b.example"])
        #expect(try CatalogJSON.clip(json: throughBytes(CatalogJSON.clip(c, notes: [.createdClip(clip)]))) == c)
        let association = DomainAssociation(clip: clip, host: "a.example")
        #expect(try CatalogJSON.association(json: throughBytes(CatalogJSON.association(association))) == association)
        let d = DefaultExperience(
            clip: clip, action: .view,
            localizations: [
                "en-US": .init(subtitle: "Bikes", headerImage: String(repeating: "a", count: 64)), "fr-FR": .init(subtitle: "Vélos"),
            ], version: 2)
        #expect(try CatalogJSON.defaultExperience(json: throughBytes(CatalogJSON.defaultExperience(d))) == d)
    }

    @Test func experiencesAndWriteOutcomes() throws {
        let e = AdvancedExperience(
            id: 7, url: try NormalizedURL("https://bikes.example/rent?zone=4"), clip: clip, action: .play, defaultLanguage: .FR,
            isPoweredBy: true, businessCategory: .BIKES,
            localizations: [.FR: CardText(title: "Louer", subtitle: "Un vélo"), .EN: CardText(title: "Rent", subtitle: "A bike")],
            headerImage: String(repeating: "b", count: 64), place: nil, status: .deactivated, version: 4,
            createdAt: "2026-11-22T10:00:00.000Z", updatedAt: "2026-11-22T11:00:00.000Z")
        #expect(try CatalogJSON.experience(json: throughBytes(ExperienceJSON.full(e))) == e)
        let outcome = WriteOutcome(
            e, created: true, notes: [.createdTeam(team), .associated(host: "bikes.example", clip: clip)],
            warnings: [FieldError(field: "title", rule: "text.length", message: "is long")])
        let read = try CatalogJSON.written(json: throughBytes(CatalogJSON.written(outcome)), created: true)
        #expect(read.value == e && read.created && read.notes == outcome.notes && read.warnings == outcome.warnings)
    }

    @Test func hostsTokensChangesImportsBannersAndMisses() throws {
        let ownership = HostOwnership(
            host: "a.example",
            holders: [
                .init(team: team, role: .owner, origin: .firstUse),
                .init(team: try TeamID("FGHIJ67890"), role: .shared, origin: .migration),
            ])
        #expect(try HostOwnershipJSON.ownership(json: throughBytes(HostOwnershipJSON.ownership(ownership))) == ownership)
        let owned = WriteOutcome(ownership, notes: [.hostOwned(host: "a.example", team: team)])
        let assigned = try throughBytes(HostOwnershipJSON.assigned(owned))
        #expect(CatalogJSON.notes(json: assigned) == [.hostOwned(host: "a.example", team: team)])

        for token in [
            APIToken(id: 3, name: "ops", team: nil, createdAt: "t0"),
            APIToken(id: 4, name: "team", team: team, createdAt: "t0", lastUsedAt: "t1", revokedAt: "t2"),
        ] {
            #expect(try TokenJSON.token(json: throughBytes(TokenJSON.token(token))) == token)
            let created = try TokenJSON.created(json: throughBytes(TokenJSON.created(token, secret: "clip_4_x")))
            #expect(created.token == token && created.secret == "clip_4_x")
        }
        let record = ChangeRecord(
            id: 9, at: "t", actor: "tester", entity: .app, entityID: "com.example.bikes", action: .update,
            before: ["name": "A"], after: ["name": "B"])
        #expect(try ChangeRecordJSON.record(json: throughBytes(ChangeRecordJSON.record(record))) == record)
        let created = ChangeRecord(
            id: 10, at: "t", actor: "tester", entity: .team, entityID: "ABCDE12345", action: .create,
            before: .none, after: .none)  // JSONValue is nil-literal-expressible: not `nil`
        #expect(try ChangeRecordJSON.record(json: throughBytes(ChangeRecordJSON.record(created))) == created)

        let report = ImportReport(
            imported: 2, notes: [.createdClip(clip)],
            warnings: [
                .init(
                    line: 1,
                    errors: [
                        FieldError(field: "title", rule: "a", message: "m"),
                        FieldError(field: "subtitle", rule: "b", message: "n"),
                    ]),
                .init(line: 3, errors: [FieldError(field: "title", rule: "a", message: "m")]),
            ], warningLinesNotListed: 5)
        let readReport = try ImportReportJSON.report(json: throughBytes(ImportReportJSON.report(report)))
        #expect(readReport.imported == 2 && readReport.notes == report.notes && readReport.warningLinesNotListed == 5)
        #expect(readReport.warnings.flatMap(\.fieldErrors) == report.warnings.flatMap(\.fieldErrors))

        let banner = PageBanner(
            banner: .init(content: "app-clip-bundle-id=x", metaTag: "<meta>"), clip: clip,
            pageURL: "https://a.example/",
            experienceID: nil, notes: ["no App Store ID"])
        #expect(try CatalogJSON.banner(json: throughBytes(CatalogJSON.banner(banner))) == banner)
        let miss = ExperienceApplinks.Miss(
            app: clip, url: "https://a.example/x",
            result: .init(decision: .exclude, rule: "details[0].components[1]"))
        #expect(try CatalogJSON.miss(json: throughBytes(CatalogJSON.miss(miss))) == miss)
        for details in [
            ApplinksDetails(app: clip, components: [["/": "/rent/*"]], defaults: ["caseSensitive": false]),
            ApplinksDetails(app: clip, components: [["/": "*", "exclude": true]], defaults: .none),
        ] {
            #expect(try CatalogJSON.applinks(json: throughBytes(CatalogJSON.applinks(details)), host: "a.example") == details)
        }
    }

    /// An answer of another shape is refused, not read as something else.
    @Test func anAnswerOfAnotherShapeIsRefused() throws {
        #expect(throws: WireError.self) {
            try CatalogJSON.app(json: ["bundleId": "com.x", "team": "not a team", "appId": "x", "name": "", "version": 1])
        }
        #expect(throws: WireError.self) { try CatalogJSON.experience(json: ["id": 1, "url": "https://a.example/"]) }
        #expect(throws: WireError.self) { try TokenJSON.token(json: .array([])) }
        #expect(throws: WireError.self) {
            let king: JSONValue = ["team": "ABCDE12345", "role": "king", "origin": "claim"]
            return try HostOwnershipJSON.ownership(json: ["host": "a.example", "teams": [king]])
        }
    }
}
