import Foundation
import ArgParse
import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// app, clip, domain, default, applinks, token.
extension Context {
    /// `--image FILE`'s bytes (a regular file, or `-` for standard input).
    func image() throws -> [UInt8]? {
        try parsed.value("image").map { try readFile($0, option: "--image") }
    }

    func parse<T>(_ body: () throws(ValidationFailure) -> T) throws -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
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
