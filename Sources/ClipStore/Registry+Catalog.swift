public import ClipCore
import SQLiteDB
import StrictJSON

/// Teams, apps, clips, domain associations and default experiences.
extension Registry {
    // MARK: Implied creation: a registration creates the team, app, clip and association it implies, and says so
    // (docs/rules.md#associated-hosts)

    /// Makes sure the team exists, recorded and noted when it is created (by whichever write implies it).
    func ensureTeam(_ team: TeamID) throws -> [WriteNote] {
        guard try db.query("SELECT 1 FROM team WHERE id = ?", [.text(team.rawValue)]).isEmpty else { return [] }
        try db.execute("INSERT INTO team(id, created_at) VALUES (?, ?)", [.text(team.rawValue), .text(timestamp())])
        try recordChange(entity: .team, id: team.rawValue, action: .create, before: nil, after: ["id": .string(team.rawValue)])
        return [.createdTeam(team)]
    }

    /// Makes sure the team, app and clip named by `clip` exist; returns a note for each created.
    func ensureClip(_ clip: AppID) throws -> [WriteNote] {
        guard let appBundle = clip.bundleID.parent else {
            throw ValidationFailure(
                field: "clip", rule: "clip.bundleId",
                message: "an App Clip's bundle ID is its app's bundle ID plus one component, such as \(clip.bundleID.rawValue).Clip")
        }
        var notes = try ensureTeam(clip.team)
        if let row = try db.query("SELECT team_id FROM app WHERE bundle_id = ?", [.text(appBundle.rawValue)]).first {
            let team = try row.string("team_id")
            guard team == clip.team.rawValue else {
                // Bundle IDs are unique across the registry, as in App Store Connect; the answer says
                // that it is taken, never by which team (a team token reads it too).
                throw RegistryError.conflict("app \(appBundle.rawValue) is registered to another team than \(clip.team.rawValue)")
            }
        } else {
            if try !db.query("SELECT 1 FROM clip WHERE bundle_id = ?", [.text(appBundle.rawValue)]).isEmpty {
                throw RegistryError.conflict("\(appBundle.rawValue) is an App Clip, not a full app")
            }
            let t = timestamp()
            try db.execute(
                "INSERT INTO app(bundle_id, team_id, created_at, updated_at) VALUES (?, ?, ?, ?)",
                [.text(appBundle.rawValue), .text(clip.team.rawValue), .text(t), .text(t)])
            try recordChange(
                entity: .app, id: appBundle.rawValue, action: .create, before: nil,
                after: AuditForm.app(App(bundleID: appBundle, team: clip.team)))
            notes.append(.createdApp(appBundle, team: clip.team))
            notes.append(.appWithoutName(appBundle, team: clip.team))
        }
        if try db.query("SELECT 1 FROM clip WHERE bundle_id = ?", [.text(clip.bundleID.rawValue)]).isEmpty {
            if !(try db.query("SELECT 1 FROM app WHERE bundle_id = ?", [.text(clip.bundleID.rawValue)]).isEmpty) {
                throw RegistryError.conflict("\(clip.bundleID.rawValue) is registered as a full app, not an App Clip")
            }
            try db.execute(
                "INSERT INTO clip(bundle_id, app_bundle_id, created_at) VALUES (?, ?, ?)",
                [.text(clip.bundleID.rawValue), .text(appBundle.rawValue), .text(timestamp())])
            try recordChange(entity: .clip, id: clip.rawValue, action: .create, before: nil, after: ["clip": .string(clip.rawValue)])
            notes.append(.createdClip(clip))
        }
        return notes
    }

    /// Makes sure `host` is associated with `clip`, which its team must hold (HostOwnership);
    /// returns a note for each thing that was not so.
    func ensureDomain(clip: AppID, host: String) throws -> [WriteNote] {
        var notes = try hold(host, for: clip.team)
        guard
            try db.query(
                "SELECT 1 FROM domain_association WHERE clip_bundle_id = ? AND host = ?", [.text(clip.bundleID.rawValue), .text(host)]
            ).isEmpty
        else { return notes }
        try db.execute(
            "INSERT INTO domain_association(clip_bundle_id, host, created_at) VALUES (?, ?, ?)",
            [.text(clip.bundleID.rawValue), .text(host), .text(timestamp())])
        try recordChange(
            entity: .domain, id: "\(clip.rawValue) \(host)", action: .create, before: nil,
            after: ["clip": .string(clip.rawValue), "host": .string(host)])
        notes.append(.associated(host: host, clip: clip))
        return notes
    }

    /// The clip's App ID as stored (its team comes from its app), or notFound.
    func storedClip(_ bundleID: BundleID) throws -> AppID {
        guard
            let row = try db.query(
                "SELECT a.team_id FROM clip c JOIN app a ON a.bundle_id = c.app_bundle_id WHERE c.bundle_id = ?", [.text(bundleID.rawValue)]
            ).first
        else {
            throw RegistryError.notFound("clip \(bundleID.rawValue)")
        }
        return AppID(team: try TeamID(try row.string("team_id")), bundleID: bundleID)
    }

    /// Accepts `TEAMID.bundle` or a bare clip bundle ID.
    public func clipID(_ reference: String, field: String = "clip") throws(RegistryError) -> AppID {
        try guarded {
            if let appID = try? AppID(reference, field: field) {
                let stored = try storedClip(appID.bundleID)
                guard stored == appID else {
                    throw RegistryError.notFound("clip \(appID.rawValue) (the clip \(appID.bundleID.rawValue) belongs to another team)")
                }
                return stored
            }
            return try storedClip(try BundleID(reference, field: field))
        }
    }

    // MARK: Apps

    func readApp(_ row: Row) throws -> App {
        App(
            bundleID: try BundleID(try row.string("bundle_id")), team: try TeamID(try row.string("team_id")),
            appStoreID: try row.optionalString("app_store_id").map { try AppStoreID($0) }, name: try row.string("name"),
            version: try row.int("version"))
    }

    public func apps(team: TeamID? = nil) throws(RegistryError) -> [App] {
        try guarded {
            try db.query("SELECT * FROM app WHERE ?1 IS NULL OR team_id = ?1 ORDER BY bundle_id", [.text(team?.rawValue)]).map(readApp)
        }
    }

    public func app(_ bundleID: BundleID) throws(RegistryError) -> App {
        try guarded {
            guard let row = try db.query("SELECT * FROM app WHERE bundle_id = ?", [.text(bundleID.rawValue)]).first else {
                throw RegistryError.notFound("app \(bundleID.rawValue)")
            }
            return try readApp(row)
        }
    }

    /// Creates the app, or updates its App Store ID and name (nil: unchanged). The same save twice
    /// changes nothing the second time: no version, no change record, no note.
    public func saveApp(
        _ bundleID: BundleID, team: TeamID, appStoreID: AppStoreID??,
        name: String?
    ) throws(RegistryError) -> WriteOutcome<App> {
        if let name {
            let problems = TextLimits.checkAppName(name)
            guard problems.isEmpty else { throw RegistryError.invalid(problems) }
        }
        return try writeOutcome {
            var notes = try ensureTeam(team)
            let t = timestamp()
            if let row = try db.query("SELECT * FROM app WHERE bundle_id = ?", [.text(bundleID.rawValue)]).first {
                let before = try readApp(row)
                guard before.team == team else {
                    throw RegistryError.conflict("app \(bundleID.rawValue) is registered to another team than \(team.rawValue)")
                }
                var after = before
                if let appStoreID { after.appStoreID = appStoreID }
                if let name { after.name = name }
                if after != before {
                    after.version += 1
                    try db.execute(
                        "UPDATE app SET app_store_id = ?, name = ?, version = ?, updated_at = ? WHERE bundle_id = ?",
                        [.text(after.appStoreID?.rawValue), .text(after.name), .int(after.version), .text(t), .text(bundleID.rawValue)])
                    try recordChange(
                        entity: .app, id: bundleID.rawValue, action: .update, before: AuditForm.app(before),
                        after: AuditForm.app(after))
                    notes.append(.updatedApp(bundleID))
                }
                return WriteOutcome(after, notes: notes)
            }
            if try !db.query("SELECT 1 FROM clip WHERE bundle_id = ?", [.text(bundleID.rawValue)]).isEmpty {
                throw RegistryError.conflict("\(bundleID.rawValue) is an App Clip, not a full app")
            }
            let app = App(bundleID: bundleID, team: team, appStoreID: appStoreID ?? nil, name: name ?? "")
            try db.execute(
                "INSERT INTO app(bundle_id, team_id, app_store_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(bundleID.rawValue), .text(team.rawValue), .text(app.appStoreID?.rawValue), .text(app.name), .text(t), .text(t)])
            try recordChange(entity: .app, id: bundleID.rawValue, action: .create, before: nil, after: AuditForm.app(app))
            notes.append(.createdApp(bundleID, team: team))
            return WriteOutcome(app, created: true, notes: notes)
        }
    }

    // MARK: Clips and domains

    public func clips(app: BundleID? = nil, team: TeamID? = nil) throws(RegistryError) -> [Clip] {
        try guarded {
            let rows = try db.query(
                """
                SELECT c.bundle_id, c.app_bundle_id, a.team_id,
                       (SELECT json_group_array(host) FROM (SELECT host FROM domain_association d WHERE d.clip_bundle_id = c.bundle_id ORDER BY host)) AS hosts
                FROM clip c JOIN app a ON a.bundle_id = c.app_bundle_id
                WHERE (?1 IS NULL OR c.app_bundle_id = ?1) AND (?2 IS NULL OR a.team_id = ?2)
                ORDER BY c.bundle_id
                """, [.text(app?.rawValue), .text(team?.rawValue)])
            return try rows.map { row in
                let hosts = try JSONParser.parse(try row.string("hosts")).arrayValue?.compactMap(\.stringValue) ?? []
                return Clip(
                    appID: AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("bundle_id"))),
                    appBundleID: try BundleID(try row.string("app_bundle_id")), hosts: hosts)
            }
        }
    }

    public func clip(_ reference: String) throws(RegistryError) -> Clip {
        let id = try clipID(reference)
        guard let clip = try clips().first(where: { $0.appID == id }) else { throw RegistryError.notFound("clip \(reference)") }
        return clip
    }

    /// Creates the clip (and its team and app) if needed; `created` is false when it existed.
    public func addClip(_ clip: AppID) throws(RegistryError) -> WriteOutcome<Clip> {
        try writeOutcome {
            let notes = try ensureClip(clip)
            return WriteOutcome(try self.clip(clip.rawValue), created: notes.contains(.createdClip(clip)), notes: notes)
        }
    }

    /// Removes a clip with its domain associations and default experience; refused while it has experiences.
    /// The outcome's value is the clip as it was.
    @discardableResult
    public func removeClip(_ reference: String) throws(RegistryError) -> WriteOutcome<Clip> {
        let removed = try clip(reference)
        let id = removed.appID
        return try writeOutcome {
            let count = try db.query(
                "SELECT count(*) AS n FROM advanced_experience WHERE clip_bundle_id = ? AND removed_at IS NULL",
                [.text(id.bundleID.rawValue)]
            ).first!.int("n")
            guard count == 0 else {
                throw RegistryError.conflict("clip \(id.rawValue) still has \(count) experience(s); remove them first")
            }
            // Removed experiences keep their history in change records; drop their rows to free the clip.
            try db.execute("DELETE FROM advanced_experience WHERE clip_bundle_id = ?", [.text(id.bundleID.rawValue)])
            try db.execute("DELETE FROM clip WHERE bundle_id = ?", [.text(id.bundleID.rawValue)])
            try recordChange(entity: .clip, id: id.rawValue, action: .remove, before: ["clip": .string(id.rawValue)], after: nil)
            return WriteOutcome(removed)
        }
    }

    /// Associates `host` with the clip; `created` is false when it already was.
    public func addDomain(clip reference: String, host rawHost: String) throws(RegistryError) -> WriteOutcome<DomainAssociation> {
        let id = try clipID(reference)
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let notes = try ensureDomain(clip: id, host: host)
            let created = notes.contains(.associated(host: host, clip: id))
            return WriteOutcome(DomainAssociation(clip: id, host: host), created: created, notes: notes)
        }
    }

    @discardableResult
    public func removeDomain(clip reference: String, host rawHost: String) throws(RegistryError) -> WriteOutcome<DomainAssociation> {
        let id = try clipID(reference)
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let count = try db.query(
                "SELECT count(*) AS n FROM advanced_experience WHERE clip_bundle_id = ? AND host = ? AND removed_at IS NULL",
                [.text(id.bundleID.rawValue), .text(host)]
            ).first!.int("n")
            guard count == 0 else {
                throw RegistryError.conflict(
                    "clip \(id.rawValue) has \(count) experience(s) on \(host); remove them before the association")
            }
            guard
                try db.execute(
                    "DELETE FROM domain_association WHERE clip_bundle_id = ? AND host = ?", [.text(id.bundleID.rawValue), .text(host)]) > 0
            else {
                throw RegistryError.notFound("association of \(host) with clip \(id.rawValue)")
            }
            try recordChange(
                entity: .domain, id: "\(id.rawValue) \(host)", action: .remove,
                before: ["clip": .string(id.rawValue), "host": .string(host)], after: nil)
            return WriteOutcome(DomainAssociation(clip: id, host: host))
        }
    }

    /// All associations, as (clip, host), sorted by host.
    public func domains(host: String? = nil) throws(RegistryError) -> [(clip: AppID, host: String)] {
        let normalized = try host.map { (h) throws(RegistryError) in try Self.normalizeHost(h) }
        return try guarded {
            try db.query(
                """
                SELECT d.host, d.clip_bundle_id, a.team_id FROM domain_association d
                JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
                WHERE ?1 IS NULL OR d.host = ?1 ORDER BY d.host, d.clip_bundle_id
                """, [.text(normalized)]
            ).map { row in
                (
                    AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("clip_bundle_id"))),
                    try row.string("host")
                )
            }
        }
    }

    /// A host as an association names it (`AssociationHost`).
    public static func normalizeHost(_ host: String, field: String = "host") throws(RegistryError) -> String {
        do { return try AssociationHost.normalize(host, field: field) } catch { throw RegistryError.from(error) }
    }

    // MARK: Default experiences

    func loadDefaultExperience(_ clip: AppID) throws -> DefaultExperience? {
        guard
            let row = try db.query(
                "SELECT action, version FROM default_experience WHERE clip_bundle_id = ?", [.text(clip.bundleID.rawValue)]
            ).first
        else { return nil }
        var localizations: [String: DefaultExperience.Localization] = [:]
        for l in try db.query(
            "SELECT locale, subtitle, header_image_sha256 FROM default_experience_localization WHERE clip_bundle_id = ?",
            [.text(clip.bundleID.rawValue)])
        {
            // An older version stored a locale as it was given (`fr`, `en-us`): it is read as the App Store
            // locale it names, and stored so at the next write (docs/rules.md#languages).
            let stored = try l.string("locale")
            let locale = AppStoreLocale.canonical(stored) ?? stored
            localizations[localizations[locale] == nil ? locale : stored] = .init(
                subtitle: try l.string("subtitle"), headerImage: try l.optionalString("header_image_sha256"))
        }
        return DefaultExperience(
            clip: clip, action: try Action.parse(try row.string("action"), field: "action"), localizations: localizations,
            version: try row.int("version"))
    }

    public func defaultExperience(clip reference: String) throws(RegistryError) -> DefaultExperience {
        let id = try clipID(reference)
        return try guarded {
            guard let d = try loadDefaultExperience(id) else { throw RegistryError.notFound("default experience of clip \(id.rawValue)") }
            return d
        }
    }

    /// Creates or replaces the default experience of a clip (creating the clip if implied).
    /// `localizations` maps locale → subtitle; `image` (bytes) becomes the header image of every
    /// localization given.
    public func setDefaultExperience(
        clip: AppID, action: Action, localizations: [String: String], image: [UInt8]? = nil, headerImages: [String: String] = [:],
        expectedVersion: Int? = nil
    ) throws(RegistryError) -> WriteOutcome<DefaultExperience> {
        var errors = ErrorCollector()
        let checked = DefaultExperience.check(localizations: localizations)
        errors.add(contentsOf: checked.errors)
        // Kept under the App Store locales their keys name, as the images named for them.
        let localizations = checked.localizations
        let headerImages = Dictionary(
            headerImages.map { (AppStoreLocale.canonical($0.key) ?? $0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let headerImage = image.flatMap { bytes in errors.collect { () throws(ValidationFailure) in try HeaderImage(bytes: bytes) } }
        do { try errors.throwIfAny() } catch { throw RegistryError.from(error) }
        return try writeOutcome {
            var notes = try ensureClip(clip)
            let before = try loadDefaultExperience(clip)
            if let expectedVersion, let before, before.version != expectedVersion {
                throw RegistryError.versionMismatch(expected: expectedVersion, actual: before.version)
            }
            // An image named by hash must be one the clip's team has (uploaded or used), as for experiences.
            for (locale, sha256) in headerImages.sorted(by: { $0.key < $1.key }) where localizations[locale] != nil {
                do { try checkImage(sha256, team: clip.team, carried: sha256 == before?.localizations[locale]?.headerImage) } catch let
                    error as ValidationFailure
                {
                    throw RegistryError.invalid(
                        error.errors.map { FieldError(field: "localizations.\(locale).headerImage", rule: $0.rule, message: $0.message) })
                }
            }
            // A write that changes nothing makes no version and no change record.
            let stored = Dictionary(
                uniqueKeysWithValues: localizations.map { locale, subtitle in
                    let image = headerImage?.sha256 ?? headerImages[locale] ?? before?.localizations[locale]?.headerImage
                    return (locale, DefaultExperience.Localization(subtitle: subtitle, headerImage: image))
                })
            if let before, before.action == action, before.localizations == stored { return WriteOutcome(before, notes: notes) }
            if let headerImage { _ = try grantImage(headerImage, team: clip.team) }
            let t = timestamp()
            let version = (before?.version ?? 0) + 1
            try db.execute(
                """
                INSERT INTO default_experience(clip_bundle_id, action, version, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
                ON CONFLICT(clip_bundle_id) DO UPDATE SET action = ?2, version = ?3, updated_at = ?4
                """, [.text(clip.bundleID.rawValue), .text(action.rawValue), .int(version), .text(t)])
            try db.execute("DELETE FROM default_experience_localization WHERE clip_bundle_id = ?", [.text(clip.bundleID.rawValue)])
            for (locale, localization) in stored {
                try db.execute(
                    """
                    INSERT INTO default_experience_localization(clip_bundle_id, locale, subtitle, header_image_sha256) VALUES (?, ?, ?, ?)
                    """, [.text(clip.bundleID.rawValue), .text(locale), .text(localization.subtitle), .text(localization.headerImage)])
            }
            let after = try loadDefaultExperience(clip)!
            try recordChange(
                entity: .defaultExperience, id: clip.rawValue, action: before == nil ? .create : .update,
                before: before.map(AuditForm.defaultExperience), after: AuditForm.defaultExperience(after))
            notes.append(before == nil ? .createdDefaultExperience(clip) : .updatedDefaultExperience(clip))
            return WriteOutcome(after, created: before == nil, notes: notes)
        }
    }

    /// The outcome's value is the default experience as it was.
    @discardableResult
    public func removeDefaultExperience(clip reference: String, expectedVersion: Int? = nil) throws(RegistryError) -> WriteOutcome<
        DefaultExperience
    > {
        let id = try clipID(reference)
        return try writeOutcome {
            guard let before = try loadDefaultExperience(id) else {
                throw RegistryError.notFound("default experience of clip \(id.rawValue)")
            }
            if let expectedVersion, expectedVersion != before.version {
                throw RegistryError.versionMismatch(expected: expectedVersion, actual: before.version)
            }
            try db.execute("DELETE FROM default_experience WHERE clip_bundle_id = ?", [.text(id.bundleID.rawValue)])
            try recordChange(
                entity: .defaultExperience, id: id.rawValue, action: .remove, before: AuditForm.defaultExperience(before),
                after: nil)
            return WriteOutcome(before)
        }
    }

    // MARK: Header images

    func storeImage(_ image: HeaderImage) throws {
        try db.execute(
            "INSERT OR IGNORE INTO header_image(sha256, media_type, width, height, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(image.sha256), .text(image.mediaType.rawValue), .int(image.width), .int(image.height), .blob(image.bytes),
                .text(timestamp()),
            ])
    }

    /// Stores an uploaded header image for `team`, checked as `--image` is (`HeaderImage(bytes:)`):
    /// `created` when the team did not have it yet (stored by another team or not at all). The team
    /// may then name it by hash; other teams still may not (`checkImage`).
    public func uploadImage(_ image: HeaderImage, team: TeamID) throws(RegistryError) -> WriteOutcome<HeaderImage> {
        try write {
            // The team an upload is for exists, as for any write that implies it (a row of no team would be held by a
            // team made later with that id).
            let notes = try ensureTeam(team)
            let created = try grantImage(image, team: team)
            return WriteOutcome(image, created: created, notes: notes, warnings: Self.sizeWarnings(image))
        }
    }

    /// Stores `image` as `team`'s, with its change record when the team did not have it: an upload, or a
    /// write that carries the image itself (`register`, `update`, a default experience on a database), so
    /// that the change records are the same with or without a server between (found by hostile QA).
    /// The team exists already. Returns whether the team did not have it.
    func grantImage(_ image: HeaderImage, team: TeamID) throws -> Bool {
        try storeImage(image)
        let had = try !db.query(
            "SELECT 1 FROM team_header_image WHERE team_id = ? AND sha256 = ?", [.text(team.rawValue), .text(image.sha256)]
        ).isEmpty
        guard !had else { return false }
        try db.execute(
            "INSERT INTO team_header_image(team_id, sha256, created_at) VALUES (?, ?, ?)",
            [.text(team.rawValue), .text(image.sha256), .text(timestamp())])
        try recordChange(
            entity: .headerImage, id: "\(team.rawValue) \(image.sha256)", action: .create, before: nil,
            after: [
                "team": .string(team.rawValue), "sha256": .string(image.sha256), "mediaType": .string(image.mediaType.rawValue),
                "width": .integer(Int64(image.width)), "height": .integer(Int64(image.height)),
            ])
        return true
    }

    /// A header image of another size than Apple's 1800×1200 is kept, with this warning (docs/rules.md).
    static func sizeWarnings(_ image: HeaderImage) -> [FieldError] {
        image.isAppleSize
            ? [] : [FieldError(field: "image", rule: "image.size", message: "is \(image.width)×\(image.height); Apple asks for 1800×1200")]
    }

    /// A stored header image's media type and bytes.
    public func headerImage(_ sha256: String) throws(RegistryError) -> (mediaType: String, bytes: [UInt8]) {
        try guarded {
            guard let row = try db.query("SELECT media_type, bytes FROM header_image WHERE sha256 = ?", [.text(sha256)]).first else {
                throw RegistryError.notFound("header image \(sha256)")
            }
            return (try row.string("media_type"), try row.blob("bytes"))
        }
    }
}
