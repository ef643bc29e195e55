import ArgParse
import ClipCore
import ClipStore
import StrictJSON

/// app, clip, domain, default, applinks.
extension Context {
    func parse<T>(_ body: () throws(ValidationFailure) -> T) throws -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }

    func appJSON(_ app: App) -> JSONValue {
        .object([
            "bundleId": .string(app.bundleID.rawValue), "team": .string(app.team.rawValue),
            "appStoreId": app.appStoreID.map { .string($0.rawValue) }, "name": .string(app.name), "version": .integer(Int64(app.version)),
        ])
    }

    func printApp(_ app: App) {
        if json { printJSON(appJSON(app)); return }
        print("\(app.bundleID.rawValue)  team \(app.team.rawValue)  App Store ID \(app.appStoreID?.rawValue ?? "-")\(app.name.isEmpty ? "" : "  \"\(app.name)\"")")
    }

    func appSet() throws {
        let bundle = try parse { () throws(ValidationFailure) in try BundleID(parsed.positional(0)!, field: "bundleId") }
        let team = try parse { () throws(ValidationFailure) in try TeamID(try requiredValueForValidation("team"), field: "team") }
        if parsed.flag("no-app-store-id") && parsed.value("app-store-id") != nil { throw CommandFailure.usage("--app-store-id and --no-app-store-id contradict each other") }
        var appStoreID: AppStoreID??
        if let id = parsed.value("app-store-id") { appStoreID = .some(try parse { () throws(ValidationFailure) in try AppStoreID(id) }) }
        if parsed.flag("no-app-store-id") { appStoreID = .some(nil) }
        let (app, notes) = try registry().saveApp(bundle, team: team, appStoreID: appStoreID, name: parsed.value("name"))
        printApp(app)
        if !json { printNotes(notes) }
    }

    /// A required option whose absence is a usage error (exit 64).
    func requiredValueForValidation(_ name: String) throws(ValidationFailure) -> String {
        guard let v = parsed.value(name) else { throw ValidationFailure(field: name, rule: "required", message: "--\(name) is required") }
        return v
    }

    func appList() throws {
        let team = try parsed.value("team").map { v in try parse { () throws(ValidationFailure) in try TeamID(v) } }
        let apps = try registry().apps(team: team)
        if json { printJSON(.array(apps.map(appJSON))); return }
        apps.forEach(printApp)
    }

    func appShow() throws {
        printApp(try registry().app(try parse { () throws(ValidationFailure) in try BundleID(parsed.positional(0)!) }))
    }

    func clipJSON(_ clip: Clip) -> JSONValue {
        .object(["clip": .string(clip.appID.rawValue), "app": .string(clip.appBundleID.rawValue), "hosts": .array(clip.hosts.map(JSONValue.string))])
    }

    func printClip(_ clip: Clip) {
        if json { printJSON(clipJSON(clip)); return }
        print("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", "))")
    }

    func clipAdd() throws {
        let id = try parse { () throws(ValidationFailure) in try AppID(parsed.positional(0)!) }
        let notes = try registry().addClip(id)
        if json { printJSON(.object(["clip": .string(id.rawValue), "notes": .array(notes.map(JSONValue.string))])); return }
        print(notes.isEmpty ? "clip \(id.rawValue) already exists" : "clip \(id.rawValue) added")
        printNotes(notes)
    }

    func clipList() throws {
        let app = try parsed.value("app").map { v in try parse { () throws(ValidationFailure) in try BundleID(v) } }
        let clips = try registry().clips(app: app)
        if json { printJSON(.array(clips.map(clipJSON))); return }
        clips.forEach(printClip)
    }

    func clipShow() throws { printClip(try registry().clip(parsed.positional(0)!)) }

    func clipRemove() throws {
        try registry().removeClip(parsed.positional(0)!)
        if !json { print("removed clip \(parsed.positional(0)!)") } else { printJSON(.object(["removed": .string(parsed.positional(0)!)])) }
    }

    func domainAdd() throws {
        let notes = try registry().addDomain(clip: parsed.positional(0)!, host: parsed.positional(1)!)
        if json { printJSON(.object(["notes": .array(notes.map(JSONValue.string))])); return }
        print(notes.isEmpty ? "already associated" : notes.joined(separator: "\n"))
    }

    func domainRemove() throws {
        try registry().removeDomain(clip: parsed.positional(0)!, host: parsed.positional(1)!)
        if !json { print("removed the association of \(parsed.positional(1)!) with \(parsed.positional(0)!)") } else { printJSON(.object(["removed": true])) }
    }

    func domainList() throws {
        let domains = try registry().domains(host: parsed.value("host"))
        if json { printJSON(.array(domains.map { .object(["host": .string($0.host), "clip": .string($0.clip.rawValue)]) })); return }
        for d in domains { print("\(d.host)  \(d.clip.rawValue)") }
    }

    func defaultSet() throws {
        let reference = parsed.positional(0)!
        let clip = try parse { () throws(ValidationFailure) in try AppID(reference) }
        let action = try parse { () throws(ValidationFailure) in try Action.parse((parsed.value("action") ?? "OPEN").uppercased(), field: "action") }
        var localizations: [String: String] = [:]
        for spec in parsed.all("subtitle") {
            guard let eq = spec.firstIndex(of: "=") else { throw CommandFailure.usage("--subtitle takes LOCALE=TEXT, such as \"en-US=Rent a bike\"") }
            localizations[String(spec[..<eq])] = String(spec[spec.index(after: eq)...])
        }
        let (experience, notes) = try registry().setDefaultExperience(clip: clip, action: action, localizations: localizations, image: try image())
        if json { printJSON(.object(["defaultExperience": try registry().defaultExperienceJSON(experience), "notes": .array(notes.map(JSONValue.string))])); return }
        print("default experience of \(clip.rawValue): \(experience.action.rawValue), \(experience.localizations.count) locale(s)")
        printNotes(notes)
    }

    func defaultShow() throws {
        let d = try registry().defaultExperience(clip: parsed.positional(0)!)
        if json { printJSON(try registry().defaultExperienceJSON(d)); return }
        print("default experience of \(d.clip.rawValue) (version \(d.version)): \(d.action.rawValue)")
        for (locale, l) in d.localizations.sorted(by: { $0.key < $1.key }) { print("  \(locale): \(l.subtitle)\(l.headerImage.map { "  image \($0)" } ?? "")") }
    }

    func defaultRemove() throws {
        try registry().removeDefaultExperience(clip: parsed.positional(0)!)
        if !json { print("removed the default experience of \(parsed.positional(0)!)") } else { printJSON(.object(["removed": true])) }
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
        let details = try registry().setApplinks(host: parsed.positional(0)!, app: app, components: components, defaults: try jsonOption("defaults"), position: position)
        if json { printJSON(.object(["appIDs": .array([.string(details.app.rawValue)]), "components": details.components, "defaults": details.defaults])); return }
        print("applinks of \(details.app.rawValue) on \(parsed.positional(0)!): \(details.components.arrayValue?.count ?? 0) component(s)")
    }

    func applinksRemove() throws {
        try registry().removeApplinks(host: parsed.positional(0)!, app: try appOption())
        if !json { print("removed") } else { printJSON(.object(["removed": true])) }
    }

    func applinksSettings() throws {
        try registry().setApplinksSettings(host: parsed.positional(0)!, defaults: try jsonOption("defaults"), substitutionVariables: try jsonOption("substitution-variables"))
        if !json { print("applinks settings of \(parsed.positional(0)!) saved") } else { printJSON(.object(["saved": true])) }
    }

    func webcredentials() throws {
        let app = try appOption()
        switch parsed.positional(0)! {
        case "add": try registry().addWebcredentials(host: parsed.positional(1)!, app: app)
        case "remove": try registry().removeWebcredentials(host: parsed.positional(1)!, app: app)
        default: throw CommandFailure.usage("applinks webcredentials takes add or remove")
        }
        if !json { print("webcredentials of \(parsed.positional(1)!) updated") } else { printJSON(.object(["saved": true])) }
    }
}
