import ClipCore
import DoctorAndPublish
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// Hosts belong to teams (docs/rules.md#host-ownership): every path that puts a team's object on a host is held to
/// HostOwnership, and a refused write changes nothing.
struct HostOwnershipTests {
    let teamA = "ABCDE12345.com.a.app.Clip"
    let teamB = "FGHIJ67890.com.b.app.Clip"

    /// Team A uses shop.example first; team B exists with its own host.
    func registryWithTwoTeams() throws -> Registry {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://shop.example/store", clip: teamA))
        _ = try registry.register(try experienceJSON("https://b.example/", clip: teamB))
        return registry
    }

    func isHostRefusal(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let error as RegistryError { return error.isHostRefusal } catch { return false }
        return false
    }

    @Test func theFirstTeamToUseAHostOwnsIt() throws {
        let registry = try registryWithTwoTeams()
        let owners = try registry.hostOwnerships()
        #expect(owners.map(\.host) == ["b.example", "shop.example"])
        #expect(owners.map(\.owner?.rawValue) == ["FGHIJ67890", "ABCDE12345"])
        #expect(owners.allSatisfy { $0.holders.count == 1 && $0.holders[0].origin == .firstUse })
    }

    @Test func anotherTeamIsRefusedOnEveryWritePathAndNothingIsWritten() throws {
        let registry = try registryWithTwoTeams()
        let before = try snapshot(registry.path)
        let appB = try BundleID("com.b.app")
        let attacks: [(String, () throws -> Void)] = [
            ("register", { _ = try registry.register(try experienceJSON("https://shop.example/", clip: self.teamB)) }),
            (
                "register, another spelling of the host",
                { _ = try registry.register(try experienceJSON("https://SHOP.example.:443/x", clip: self.teamB)) }
            ),
            ("association", { _ = try registry.addDomain(clip: self.teamB, host: "shop.example") }),
            ("move an experience there", { _ = try registry.update("2", with: ["url": "https://shop.example/b"]) }),
            (
                "applinks",
                { _ = try registry.setApplinks(host: "shop.example", app: appB, components: try JSONParser.parse(#"[{"/":"*"}]"#)) }
            ),
            ("webcredentials", { try registry.addWebcredentials(host: "shop.example", app: appB) }),
            (
                "settings",
                {
                    try registry.setApplinksSettings(
                        host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil, by: try TeamID("FGHIJ67890"))
                }
            ),
            ("generation", { _ = try registry.setApplinksFromExperiences(host: "shop.example", true, by: try TeamID("FGHIJ67890")) }),
            (
                "import",
                {
                    _ = try registry.importExperiences(
                        #"{"url":"https://shop.example/z","clip":"\#(self.teamB)","title":"T","subtitle":"S"}"#, format: .ndjson)
                }
            ),
        ]
        for (name, attack) in attacks {
            #expect(isHostRefusal(attack), "\(name) was not refused for host ownership")
            #expect(try snapshot(registry.path) == before, "\(name) changed the database")
        }
        // The owner and an administrator may change host-wide settings.
        try registry.setApplinksSettings(
            host: "shop.example", defaults: ["caseSensitive": false], substitutionVariables: nil, by: try TeamID("ABCDE12345"))
        _ = try registry.setApplinksFromExperiences(host: "shop.example", true, by: nil)
    }

    @Test func anImportCannotTakeAHostFromAnEarlierLineOfAnotherTeam() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        let before = try snapshot(registry.path)
        let text = """
            {"url":"https://new.example/a","clip":"\(teamA)","title":"T","subtitle":"S"}
            {"url":"https://new.example/b","clip":"\(teamB)","title":"T","subtitle":"S"}
            """
        #expect(throws: RegistryError.self) { try registry.importExperiences(text, format: .ndjson) }
        do { _ = try registry.importExperiences(text, format: .ndjson) } catch {
            guard case .invalidImport(let lines) = error else { Issue.record("\(error)"); return }
            #expect(lines.map(\.line) == [2] && lines[0].errors.map(\.rule) == [HostOwnership.Refusal.rule])
            // A team learns the host is taken, not by whom.
            #expect(!lines[0].errors[0].message.contains("ABCDE12345"))
        }
        #expect(try snapshot(registry.path) == before)
    }

    @Test func anAdministratorSharesClaimsAndUnsharesAHost() throws {
        let registry = try registryWithTwoTeams()
        let b = try TeamID("FGHIJ67890"), a = try TeamID("ABCDE12345")
        // Share: team B may now use shop.example beside its owner.
        let share = try registry.shareHost("shop.example", team: b)
        #expect(share.notes == [.hostShared(host: "shop.example", team: b)] && share.created)
        #expect(share.notes.map(\.text) == ["team FGHIJ67890 now shares shop.example"])
        #expect(share.value.owner == a && share.value.teams == [a, b])
        #expect(try registry.shareHost("shop.example", team: b).isQuiet)  // the same request twice
        _ = try registry.register(try experienceJSON("https://shop.example/b", clip: teamB))
        // Unsharing is refused while team B has objects there; the owner cannot be unshared.
        var before = try snapshot(registry.path)
        #expect(throws: RegistryError.self) { try registry.unshareHost("shop.example", team: b) }
        #expect(throws: RegistryError.self) { try registry.unshareHost("shop.example", team: a) }
        #expect(try snapshot(registry.path) == before)
        // Claiming for B is refused while A, the owner, still has objects there.
        #expect(throws: RegistryError.self) { try registry.claimHost("shop.example", team: b) }
        #expect(throws: RegistryError.notFound("team ZZZZZ99999")) {
            try registry.claimHost("shop.example", team: try TeamID("ZZZZZ99999"))
        }
        #expect(try snapshot(registry.path) == before)
        _ = try registry.remove("https://shop.example/store")
        try registry.removeDomain(clip: teamA, host: "shop.example")
        let claim = try registry.claimHost("shop.example", team: b)
        #expect(claim.value.owner == b && claim.value.teams == [b])
        #expect(claim.notes == [.hostReleased(host: "shop.example", team: a), .hostOwned(host: "shop.example", team: b)])
        #expect(
            claim.notes.map(\.text) == ["team ABCDE12345 no longer holds shop.example", "host shop.example now belongs to team FGHIJ67890"])
        // Team A is now the outsider.
        before = try snapshot(registry.path)
        #expect(isHostRefusal { _ = try registry.register(try experienceJSON("https://shop.example/again", clip: self.teamA)) })
        #expect(try snapshot(registry.path) == before)
        let claims = try registry.changes().filter { $0.entity == .host }.map(\.action)
        #expect(claims == [.claim, .claim, .share, .release, .claim])
    }

    /// Migration 0004 must not change who may write where: a host several teams used stays
    /// shared by all of them, without an owner chosen for them, and doctor reports it.
    @Test func theMigrationKeepsExistingSharedHostsSharedAndDoctorReportsThem() throws {
        let path = temporaryDatabasePath()
        let db = try Connection(path: path)
        try Migrator(migrations: Array(Schema.migrations.prefix(3))).migrate(db)
        let t = "2026-01-01T00:00:00.000Z"
        try db.executeScript(
            """
            INSERT INTO team(id, created_at) VALUES ('ABCDE12345', '\(t)'), ('FGHIJ67890', '\(t)');
            INSERT INTO app(bundle_id, team_id, created_at, updated_at) VALUES ('com.a.app', 'ABCDE12345', '\(t)', '\(t)'), ('com.b.app', 'FGHIJ67890', '\(t)', '\(t)');
            INSERT INTO clip(bundle_id, app_bundle_id, created_at) VALUES ('com.a.app.Clip', 'com.a.app', '\(t)'), ('com.b.app.Clip', 'com.b.app', '\(t)');
            INSERT INTO domain_association(clip_bundle_id, host, created_at) VALUES
                ('com.a.app.Clip', 'shared.example', '\(t)'), ('com.a.app.Clip', 'a.example', '\(t)');
            INSERT INTO webcredentials(host, app_bundle_id, created_at) VALUES ('shared.example', 'com.b.app', '\(t)');
            """)
        db.close()
        let registry = try Registry(path: path)
        let owners = try registry.hostOwnerships()
        #expect(owners.map(\.host) == ["a.example", "shared.example"])
        #expect(owners[0].owner?.rawValue == "ABCDE12345")
        #expect(
            owners[1].owner == nil && owners[1].holders.map(\.role) == [.shared, .shared]
                && owners[1].holders.allSatisfy { $0.origin == .migration })
        // Both teams keep writing there; a third team does not.
        _ = try registry.register(try experienceJSON("https://shared.example/b", clip: teamB))
        #expect(
            isHostRefusal { _ = try registry.register(try experienceJSON("https://shared.example/c", clip: "KLMNO13579.com.c.app.Clip")) })
        let findings = Doctor.examine(try registry.doctorSnapshot()).filter { $0.code == "cross-team-host" }
        #expect(findings.map(\.severity) == [.warning] && findings[0].subject == "shared.example")
        #expect(
            findings[0].fix?.hasPrefix(
                "clipctl domain share shared.example --team ABCDE12345; clipctl domain share shared.example --team FGHIJ67890") == true)
        // Confirming each share turns the warning into information.
        for team in ["ABCDE12345", "FGHIJ67890"] { _ = try registry.shareHost("shared.example", team: try TeamID(team)) }
        #expect(Doctor.examine(try registry.doctorSnapshot()).filter { $0.code == "cross-team-host" }.map(\.severity) == [.info])
    }
}
