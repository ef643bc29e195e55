import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// What `clipctl`'s commands need, answered in the JSON forms of the HTTP API, so that the
/// local database and a remote server (`--server`) print the same output.
protocol Backend {
    func register(_ body: JSONValue, image: [UInt8]?) throws -> JSONValue
    func experiences(clip: String?, host: String?, status: String?) throws -> [JSONValue]
    func experience(_ reference: String) throws -> JSONValue
    func update(_ reference: String, _ body: JSONValue, image: [UInt8]?) throws -> JSONValue
    func setStatus(_ reference: String, _ status: ExperienceStatus) throws -> JSONValue
    func remove(_ reference: String) throws -> JSONValue
    func resolve(_ url: String, language: String?, explain: Bool) throws -> JSONValue
    func aasa(host: String) throws -> [UInt8]
    func banner(url: String, appArgument: String?, clip: String?) throws -> JSONValue
    /// Imports the bytes `chunks` gives (one chunk per call, nil at the end); `progress(lines)`.
    func importFile(format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?, progress: @escaping (Int) -> Void) throws -> JSONValue
    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws
    func saveApp(bundle: BundleID, team: TeamID, appStoreID: AppStoreID??, name: String?) throws -> (app: JSONValue, notes: [String])
    func apps(team: TeamID?) throws -> [JSONValue]
    func app(_ bundle: BundleID) throws -> JSONValue
    func addClip(_ clip: AppID) throws -> JSONValue
    func clips(app: BundleID?) throws -> [JSONValue]
    func clip(_ reference: String) throws -> JSONValue
    func removeClip(_ reference: String) throws
    func addDomain(clip: String, host: String) throws -> [String]
    func removeDomain(clip: String, host: String) throws
    func domains(host: String?) throws -> [(host: String, clip: String)]
    /// Who holds each host (HostOwnership's JSON), or one host.
    func hostOwnerships(host: String?) throws -> [JSONValue]
    /// claim, share or unshare `host` for `team`: the ownership afterwards, with notes.
    func assignHost(_ change: HostAssignment, host: String, team: TeamID) throws -> JSONValue
    func setDefault(clip: AppID, action: Action, localizations: [String: String], image: [UInt8]?) throws -> (experience: JSONValue, notes: [String])
    func defaultExperience(clip: String) throws -> JSONValue
    func removeDefault(clip: String) throws
    func setApplinks(host: String, app: BundleID, components: JSONValue, defaults: JSONValue?, position: Int?) throws -> JSONValue
    func removeApplinks(host: String, app: BundleID) throws
    func setApplinksSettings(host: String, defaults: JSONValue?, substitutionVariables: JSONValue?) throws
    /// Returns the experience URLs the generated applinks do not give to their app (url, app, decision, rule).
    func setApplinksFromExperiences(host: String, _ enabled: Bool) throws -> [JSONValue]
    func webcredentials(add: Bool, host: String, app: BundleID) throws
    func changes(since: Int64, limit: Int) throws -> [JSONValue]
    func createToken(name: String, team: TeamID?) throws -> JSONValue
    func tokens() throws -> [JSONValue]
    func revokeToken(id: Int64) throws -> JSONValue
}

enum HostAssignment: String { case claim, share, unshare }

/// The local SQLite database.
struct LocalBackend: Backend {
    let registry: Registry

    func register(_ body: JSONValue, image: [UInt8]?) throws -> JSONValue {
        let w = try registry.register(body, image: image)
        return CatalogJSON.written(w.value, notes: w.notes, warnings: w.warnings)
    }

    func experiences(clip: String?, host: String?, status: String?) throws -> [JSONValue] {
        var filter = Registry.ListFilter()
        if let clip { filter.clip = try registry.clipID(clip) }
        if let host { filter.host = try Registry.normalizeHost(host) }
        if let status {
            do { filter.status = try ExperienceStatus.parse(status.uppercased(), field: "status") } catch { throw RegistryError.invalid(error.errors) }
        }
        return try registry.experiences(filter).map(ExperienceJSON.full)
    }

    func experience(_ reference: String) throws -> JSONValue { ExperienceJSON.full(try registry.experience(reference)) }

    func update(_ reference: String, _ body: JSONValue, image: [UInt8]?) throws -> JSONValue {
        let w = try registry.update(reference, with: body, image: image)
        return CatalogJSON.written(w.value, notes: w.notes, warnings: w.warnings)
    }

    func setStatus(_ reference: String, _ status: ExperienceStatus) throws -> JSONValue {
        ExperienceJSON.full(try registry.setStatus(reference, status).value)
    }

    func remove(_ reference: String) throws -> JSONValue { ExperienceJSON.full(try registry.remove(reference).value) }

    func resolve(_ url: String, language: String?, explain: Bool) throws -> JSONValue {
        try registry.resolve(url, language: language).json(explain: explain)
    }

    func aasa(host: String) throws -> [UInt8] { try registry.aasa(host: host) }

    func banner(url: String, appArgument: String?, clip: String?) throws -> JSONValue {
        CatalogJSON.banner(try registry.banner(pageURL: url, appArgument: appArgument, clip: clip))
    }

    func importFile(format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?, progress: @escaping (Int) -> Void) throws -> JSONValue {
        ImportReportJSON.report(try registry.importExperiences(format: format, chunks: chunks, progress: progress))
    }

    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws {
        try registry.export(format: format, spreadsheetSafe: spreadsheetSafe, emit: emit)
    }

    func saveApp(bundle: BundleID, team: TeamID, appStoreID: AppStoreID??, name: String?) throws -> (app: JSONValue, notes: [String]) {
        let saved = try registry.saveApp(bundle, team: team, appStoreID: appStoreID, name: name)
        return (CatalogJSON.app(saved.value), saved.notes.map(\.text))
    }

    func apps(team: TeamID?) throws -> [JSONValue] { try registry.apps(team: team).map(CatalogJSON.app) }
    func app(_ bundle: BundleID) throws -> JSONValue { CatalogJSON.app(try registry.app(bundle)) }

    func addClip(_ clip: AppID) throws -> JSONValue {
        let added = try registry.addClip(clip)
        return CatalogJSON.clip(added.value, notes: added.notes)
    }

    func clips(app: BundleID?) throws -> [JSONValue] { try registry.clips(app: app).map { CatalogJSON.clip($0) } }
    func clip(_ reference: String) throws -> JSONValue { CatalogJSON.clip(try registry.clip(reference)) }
    func removeClip(_ reference: String) throws { try registry.removeClip(reference) }
    func addDomain(clip: String, host: String) throws -> [String] { try registry.addDomain(clip: clip, host: host).notes.map(\.text) }
    func removeDomain(clip: String, host: String) throws { try registry.removeDomain(clip: clip, host: host) }
    func domains(host: String?) throws -> [(host: String, clip: String)] { try registry.domains(host: host).map { ($0.host, $0.clip.rawValue) } }
    func hostOwnerships(host: String?) throws -> [JSONValue] { try registry.hostOwnerships(host: host).map { HostOwnershipJSON.ownership($0) } }

    func assignHost(_ change: HostAssignment, host: String, team: TeamID) throws -> JSONValue {
        let outcome: WriteOutcome<HostOwnership>
        switch change {
        case .claim: outcome = try registry.claimHost(host, team: team)
        case .share: outcome = try registry.shareHost(host, team: team)
        case .unshare: outcome = try registry.unshareHost(host, team: team)
        }
        return HostOwnershipJSON.assigned(outcome)
    }

    func setDefault(clip: AppID, action: Action, localizations: [String: String], image: [UInt8]?) throws -> (experience: JSONValue, notes: [String]) {
        let saved = try registry.setDefaultExperience(clip: clip, action: action, localizations: localizations, image: image)
        return (CatalogJSON.defaultExperience(saved.value), saved.notes.map(\.text))
    }

    func defaultExperience(clip: String) throws -> JSONValue { CatalogJSON.defaultExperience(try registry.defaultExperience(clip: clip)) }
    func removeDefault(clip: String) throws { try registry.removeDefaultExperience(clip: clip) }

    func setApplinks(host: String, app: BundleID, components: JSONValue, defaults: JSONValue?, position: Int?) throws -> JSONValue {
        let d = try registry.setApplinks(host: host, app: app, components: components, defaults: defaults, position: position)
        return .object(["appIDs": .array([.string(d.app.rawValue)]), "components": d.components, "defaults": d.defaults])
    }

    func removeApplinks(host: String, app: BundleID) throws { try registry.removeApplinks(host: host, app: app) }

    func setApplinksSettings(host: String, defaults: JSONValue?, substitutionVariables: JSONValue?) throws {
        try registry.setApplinksSettings(host: host, defaults: defaults, substitutionVariables: substitutionVariables)
    }

    func setApplinksFromExperiences(host: String, _ enabled: Bool) throws -> [JSONValue] {
        try registry.setApplinksFromExperiences(host: host, enabled).map(CatalogJSON.miss)
    }

    func webcredentials(add: Bool, host: String, app: BundleID) throws {
        if add { try registry.addWebcredentials(host: host, app: app) } else { try registry.removeWebcredentials(host: host, app: app) }
    }

    func changes(since: Int64, limit: Int) throws -> [JSONValue] { try registry.changes(since: since, limit: limit).map(ChangeRecordJSON.record) }

    func createToken(name: String, team: TeamID?) throws -> JSONValue {
        let (token, secret) = try registry.createToken(name: name, team: team)
        return TokenJSON.created(token, secret: secret)
    }

    func tokens() throws -> [JSONValue] { try registry.tokens().map(TokenJSON.token) }
    func revokeToken(id: Int64) throws -> JSONValue { TokenJSON.token(try registry.revokeToken(id: id)) }
}
