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
