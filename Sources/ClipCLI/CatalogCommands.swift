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

    func appOption() throws -> BundleID {
        let raw = try requiredValue("app")
        return try parse { () throws(ValidationFailure) in try BundleID(raw, field: "app") }
    }

    func applinksSet() throws {
        let app = try appOption()
        guard let components = try jsonOption("components") else { throw CommandFailure.usage("missing --components") }
        let position = try parsed.value("position").map { v -> Int in
            guard let n = Int(v), n >= 0 else { throw CommandFailure.usage("--position takes a whole number") }
            return n
        }
        let saved = try backend().setApplinks(
            host: parsed.positional(0)!, app: app, components: components, defaults: try jsonOption("defaults"),
            position: position)
        if json { return printWritten(CatalogJSON.applinks(saved.value), notes: saved.notes) }
        let count = saved.value.components.arrayValue?.count ?? 0
        print("applinks of \(saved.value.app.rawValue) on \(parsed.positional(0)!): \(count) component(s)")
        printNotes(saved.notes)
    }

    func applinksRemove() throws {
        try backend().removeApplinks(host: parsed.positional(0)!, app: try appOption())
        if !json { print("removed") } else { printJSON(CommandJSON.removed()) }
    }

    func applinksSettings() throws {
        let saved = try backend().setApplinksSettings(
            host: parsed.positional(0)!, defaults: try jsonOption("defaults"),
            substitutionVariables: try jsonOption("substitution-variables"))
        if json { return printWritten(saved.value, notes: saved.notes) }
        print("applinks settings of \(parsed.positional(0)!) saved")
        printNotes(saved.notes)
    }

    /// `applinks generate HOST on|off`: prints the experience URLs the app would still not open.
    func applinksGenerate() throws {
        let host = parsed.positional(0)!
        let state = parsed.positional(1)!
        guard state == "on" || state == "off" else { throw CommandFailure.usage("applinks generate takes on or off") }
        let outcome = try backend().setApplinksFromExperiences(host: host, state == "on")
        let unmatched = outcome.value
        if json {
            printWritten(CatalogJSON.applinksGeneration(host: host, enabled: state == "on", unmatched: unmatched), notes: outcome.notes)
        } else {
            print("applinks of \(host) \(state == "on" ? "cover its experience URLs" : "no longer generated from experiences")")
            printNotes(outcome.notes)
            for miss in unmatched {
                print("  warning: \(miss.url) would not open \(miss.app.rawValue): \(miss.result.decision.rawValue) by \(miss.result.rule)")
            }
        }
        if !unmatched.isEmpty {
            throw CommandFailure(
                code: ExitCode.failure,
                message:
                    "\(unmatched.count) experience URL(s) are not given to their app: an earlier rule of the app decides first (see applinks set)"
            )
        }
    }

    func webcredentials() throws {
        let app = try appOption()
        let verb = parsed.positional(0)!
        guard verb == "add" || verb == "remove" else { throw CommandFailure.usage("applinks webcredentials takes add or remove") }
        let outcome = try backend().webcredentials(add: verb == "add", host: parsed.positional(1)!, app: app)
        if json && verb == "add" {
            let host = try Registry.normalizeHost(parsed.positional(1)!)
            return printWritten(CatalogJSON.webcredentials(host: host, app: app), notes: outcome.notes)
        }
        if json { return printWritten(CommandJSON.saved, notes: outcome.notes) }
        // Adding what is there already changes nothing, and says so.
        print(verb == "add" && outcome.isQuiet ? "nothing to change" : "webcredentials of \(parsed.positional(1)!) updated")
        printNotes(outcome.notes)
    }
}
