import Foundation
import ArgParse
import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// app, clip, domain, default, applinks, token.
extension Context {
    func parse<T>(_ body: () throws(ValidationFailure) -> T) throws -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }

    func printClip(_ clip: Clip) {
        if json { printJSON(CatalogJSON.clip(clip)); return }
        let hosts = clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", ")
        print("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(hosts)")
    }

    func clipAdd() throws {
        let id = try parse { () throws(ValidationFailure) in try AppID(parsed.positional(0)!) }
        let added = try backend().addClip(id)
        if json { return printWritten(CatalogJSON.clip(added.value), notes: added.notes) }
        print(added.created ? "clip \(id.rawValue) added" : "clip \(id.rawValue) already exists")
        printNotes(added.notes)
    }

    func clipShow() throws { printClip(try backend().clip(parsed.positional(0)!)) }

    func clipRemove() throws {
        try backend().removeClip(parsed.positional(0)!)
        if !json { print("removed clip \(parsed.positional(0)!)") } else { printJSON(CommandJSON.removed(.string(parsed.positional(0)!))) }
    }

    func domainAdd() throws {
        let added = try backend().addDomain(clip: parsed.positional(0)!, host: parsed.positional(1)!)
        if json { printJSON(["notes": CatalogJSON.notes(added.notes)]); return }
        print(added.notes.isEmpty ? "already associated" : added.notes.map(\.text).joined(separator: "\n"))
    }

    func domainRemove() throws {
        try backend().removeDomain(clip: parsed.positional(0)!, host: parsed.positional(1)!)
        if !json {
            print("removed the association of \(parsed.positional(1)!) with \(parsed.positional(0)!)")
        } else {
            printJSON(CommandJSON.removed())
        }
    }

    func domainList() throws {
        let domains = try backend().domains(host: parsed.value("host"))
        if json { printJSON(.array(domains.map(CatalogJSON.listedAssociation))); return }
        for d in domains { print("\(d.host)  \(d.clip.rawValue)") }
    }

    /// `domain claim|share|unshare HOST --team T` (administrators: the API refuses team tokens).
    func domainAssign(_ change: HostAssignment) throws {
        let teamText = try requiredValue("team")
        let team = try parse { () throws(ValidationFailure) in try TeamID(teamText, field: "team") }
        let outcome = try backend().assignHost(change, host: parsed.positional(0)!, team: team)
        if json { printJSON(HostOwnershipJSON.assigned(outcome)); return }
        print(outcome.notes.isEmpty ? "nothing to change" : outcome.notes.map(\.text).joined(separator: "\n"))
        printOwnership(outcome.value)
    }

    func domainOwners() throws {
        let owners = try backend().hostOwnerships(host: parsed.value("host"))
        if json { printJSON(.array(owners.map { HostOwnershipJSON.ownership($0) })); return }
        owners.forEach(printOwnership)
    }

    func printOwnership(_ ownership: HostOwnership) {
        let teams = ownership.holders.map { h in "\(h.team.rawValue) (\(h.role.rawValue)\(h.origin == .migration ? ", unconfirmed" : ""))" }
        print("\(ownership.host)  \(teams.isEmpty ? "free" : teams.joined(separator: ", "))")
    }

    func defaultSet() throws {
        let reference = parsed.positional(0)!
        let clip = try parse { () throws(ValidationFailure) in try AppID(reference) }
        let action = try parse { () throws(ValidationFailure) in
            try Action.parse((parsed.value("action") ?? "OPEN").uppercased(), field: "action")
        }
        var localizations: [String: String] = [:]
        for spec in parsed.all("subtitle") {
            guard let eq = spec.firstIndex(of: "=") else {
                throw CommandFailure.usage("--subtitle takes LOCALE=TEXT, such as \"en-US=Rent a bike\"")
            }
            localizations[String(spec[..<eq])] = String(spec[spec.index(after: eq)...])
        }
        let saved = try backend().setDefault(clip: clip, action: action, localizations: localizations, image: try image())
        if json {
            printJSON(["defaultExperience": CatalogJSON.defaultExperience(saved.value), "notes": CatalogJSON.notes(saved.notes)])
            return
        }
        print("default experience of \(clip.rawValue): \(saved.value.action.rawValue), \(saved.value.localizations.count) locale(s)")
        printNotes(saved.notes)
    }

    func defaultShow() throws {
        let d = try backend().defaultExperience(clip: parsed.positional(0)!)
        if json { printJSON(CatalogJSON.defaultExperience(d)); return }
        print("default experience of \(d.clip.rawValue) (version \(d.version)): \(d.action.rawValue)")
        for locale in d.localizations.keys.sorted() {
            let l = d.localizations[locale]!
            print("  \(locale): \(l.subtitle)\(l.headerImage.map { "  image \($0)" } ?? "")")
        }
    }

    func defaultRemove() throws {
        try backend().removeDefault(clip: parsed.positional(0)!)
        if !json { print("removed the default experience of \(parsed.positional(0)!)") } else { printJSON(CommandJSON.removed()) }
    }

    func tokenCreate() throws {
        let admin = parsed.flag("admin")
        let teamText = parsed.value("team")
        guard admin != (teamText != nil) else { throw CommandFailure.usage("give exactly one of --admin or --team TEAMID") }
        let name = try requiredValue("name")
        let team = try teamText.map { t in try parse { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
        let created = try backend().createToken(name: name, team: team)
        let (token, secret) = created.value
        if json { return printWritten(TokenJSON.created(token, secret: secret), notes: created.notes) }
        // The secret alone on standard output (TOKEN=$(clipctl token create …)); the rest on standard error.
        print(secret)
        io.err("token \(token.id) (\(team.map { "team \($0.rawValue)" } ?? "admin")) created; the secret above is shown only once\n")
        for note in created.notes { io.err("  \(note.text)\n") }
    }

    func tokenRevoke() throws {
        guard let id = Int64(parsed.positional(0)!) else { throw CommandFailure.usage("a token id is a number") }
        let token = try backend().revokeToken(id: id)
        if json { printJSON(TokenJSON.token(token)) } else { print("revoked token \(id) (\(token.name))") }
    }
}
