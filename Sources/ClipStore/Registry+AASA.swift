public import AppleFormats
public import ClipCore
import SQLiteDB
public import StrictJSON

/// AASA files: what each host's is made of, and the applinks and webcredentials they carry.
extension Registry {
    // MARK: AASA

    /// Every host that may have an AASA: those with a clip, an applinks rule or webcredentials,
    /// the three things `aasaContent` requires one of (a superset: a row whose app is gone counts).
    func hostsWithAASA() throws -> Set<String> { Set(try aasaHosts()) }

    /// What the AASA of `host` is made of, or notFound when nothing is configured for it.
    public func aasaContent(host rawHost: String) throws(RegistryError) -> AASAContent {
        let host = try Self.normalizeHost(rawHost)
        return try guarded {
            try db.read {
                let clips = try db.query(
                    """
                    SELECT d.clip_bundle_id, a.team_id FROM domain_association d
                    JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id WHERE d.host = ?
                    """, [.text(host)]
                ).map { AppID(team: try TeamID(try $0.string("team_id")), bundleID: try BundleID(try $0.string("clip_bundle_id"))) }
                let details = try db.query(
                    """
                    SELECT x.app_bundle_id, a.team_id, x.components, x.defaults FROM applinks_details x
                    JOIN app a ON a.bundle_id = x.app_bundle_id WHERE x.host = ? ORDER BY x.position, x.app_bundle_id
                    """, [.text(host)]
                ).map { row in
                    ApplinksDetails(
                        app: AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("app_bundle_id"))),
                        components: try JSONParser.parse(try row.string("components")),
                        defaults: try row.optionalString("defaults").map { try JSONParser.parse($0) })
                }
                let settings = try applinksSettings(host)
                let generated = settings.fromExperiences ? try experienceLinks(host: host) : []
                let webcredentials = try db.query(
                    """
                    SELECT w.app_bundle_id, a.team_id FROM webcredentials w JOIN app a ON a.bundle_id = w.app_bundle_id WHERE w.host = ?
                    """, [.text(host)]
                ).map { AppID(team: try TeamID(try $0.string("team_id")), bundleID: try BundleID(try $0.string("app_bundle_id"))) }
                guard !clips.isEmpty || !details.isEmpty || !webcredentials.isEmpty else {
                    throw Self.noAASA(host)
                }
                return AASAContent(
                    host: host, clips: clips, details: details, settings: settings, webcredentials: webcredentials, generated: generated)
            }
        }
    }

    /// The answer for a host with no AASA; a team token gets it for another team's host too (docs/rules.md#tenancy).
    public static func noAASA(_ host: String) -> RegistryError {
        .notFound("AASA for \(host): no clip, applinks rule or webcredentials is configured for this host")
    }

    /// The AASA bytes for `host` (compact, deterministic), or an error naming the size over 128 KB.
    public func aasa(host: String) throws(RegistryError) -> [UInt8] {
        let content = try aasaContent(host: host)
        do { return try AASAGenerator.bytes(content) } catch { throw RegistryError.unprocessable(error.description) }
    }

    /// Every host that has an AASA (an association, applinks rule or webcredentials).
    public func aasaHosts() throws(RegistryError) -> [String] {
        try guarded {
            try db.query(
                """
                SELECT host FROM domain_association UNION SELECT host FROM applinks_details UNION SELECT host FROM webcredentials ORDER BY host
                """
            ).map { try $0.string("host") }
        }
    }

    /// The change records of what `host`'s AASA is made of (its clips' associations, applinks rules and
    /// settings, webcredentials), newest first, at most `limit`.
    public func aasaChanges(host rawHost: String, limit: Int = 200) throws(RegistryError) -> [ChangeRecord] {
        let host = try Self.normalizeHost(rawHost)
        // Entity ids: domain "CLIP host", applinks and webcredentials "host BUNDLE", the settings "host" (Registry+AASA, +Catalog).
        let records = try changeRecords(
            where: """
                id IN (SELECT id FROM change_record WHERE (entity = 'domain' AND entity_id LIKE '% ' || ?1 ESCAPE '\\')
                  OR (entity IN ('applinks', 'webcredentials') AND entity_id LIKE ?1 || ' %' ESCAPE '\\')
                  OR (entity IN ('applinks-settings', 'applinks-generation') AND entity_id = ?2) ORDER BY id DESC LIMIT ?3)
                """,
            [.text(Self.likeEscaped(host)), .text(host), .integer(Int64(limit))], limit: limit)
        return records.reversed()
    }

    static func likeEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    // MARK: applinks and webcredentials

    func applinksSettings(_ host: String) throws -> ApplinksHostSettings {
        guard
            let row = try db.query(
                "SELECT defaults, substitution_variables, from_experiences FROM applinks_host WHERE host = ?", [.text(host)]
            ).first
        else { return .init() }
        return ApplinksHostSettings(
            defaults: try row.optionalString("defaults").map { try JSONParser.parse($0) },
            substitutionVariables: try row.optionalString("substitution_variables").map { try JSONParser.parse($0) },
            fromExperiences: try row.int("from_experiences") == 1)
    }

    /// The active experience URLs on `host`, grouped by the full app of their clip.
    func experienceLinks(host: String) throws -> [ExperienceApplinks.AppLinks] {
        var byApp: [AppID: [NormalizedURL]] = [:]
        for row in try db.query(
            """
            SELECT e.url, e.clip_bundle_id, a.team_id FROM advanced_experience e JOIN clip c ON c.bundle_id = e.clip_bundle_id
            JOIN app a ON a.bundle_id = c.app_bundle_id WHERE e.host = ? AND e.removed_at IS NULL AND e.status = 'ACTIVE'
            """, [.text(host)])
        {
            guard let parent = try BundleID(try row.string("clip_bundle_id")).parent else { continue }
            let app = AppID(team: try TeamID(try row.string("team_id")), bundleID: parent)
            byApp[app, default: []].append(try NormalizedURL(try row.string("url")))
        }
        return byApp.keys.sorted().map { ExperienceApplinks.AppLinks(app: $0, urls: byApp[$0]!) }
    }

    /// Sets the `applinks` details of `app` on `host` (components, optional defaults), validated
    /// against the host's substitution variables. `position` orders entries (first match wins).
    /// A free host becomes the app's team's, and the outcome says so.
    @discardableResult
    public func setApplinks(
        host rawHost: String, app bundleID: BundleID, components: JSONValue, defaults: JSONValue? = nil,
        position: Int? = nil
    ) throws(RegistryError) -> WriteOutcome<ApplinksDetails> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let app = try self.app(bundleID)
            let notes = try hold(host, for: app.team)
            let settings = try applinksSettings(host)
            var errors = ApplinksValidator.validateComponents(
                components, variables: ApplinksValidator.variableNames(settings.substitutionVariables))
            if let defaults { errors += ApplinksValidator.validateDefaults(defaults) }
            guard errors.isEmpty else { throw RegistryError.invalid(errors) }
            let existing = try db.query(
                "SELECT position, components, defaults FROM applinks_details WHERE host = ? AND app_bundle_id = ?",
                [.text(host), .text(bundleID.rawValue)]
            ).first
            let next = try db.query("SELECT coalesce(max(position), -1) + 1 AS p FROM applinks_details WHERE host = ?", [.text(host)])
                .first!.int("p")
            let chosen = try position ?? existing.map { try $0.int("position") } ?? next
            let details = ApplinksDetails(app: app.appID, components: components, defaults: defaults)
            // A write that changes nothing makes no change record.
            if let existing, try existing.int("position") == chosen, try existing.string("components") == JSONWriter.string(components),
                try existing.optionalString("defaults") == defaults.map({ JSONWriter.string($0) })
            {
                return WriteOutcome(details, notes: notes)
            }
            try db.execute(
                """
                INSERT INTO applinks_details(host, app_bundle_id, position, components, defaults, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT(host, app_bundle_id) DO UPDATE SET position = ?3, components = ?4, defaults = ?5, updated_at = ?6
                """,
                [
                    .text(host), .text(bundleID.rawValue), .int(chosen), .text(JSONWriter.string(components)),
                    .text(defaults.map { JSONWriter.string($0) }), .text(timestamp()),
                ])
            try recordChange(
                entity: .applinks, id: "\(host) \(bundleID.rawValue)", action: existing == nil ? .create : .update,
                before: try existing.map(Self.applinksRecord),
                after: ["components": components, "defaults": defaults ?? .null, "position": .integer(Int64(chosen))])
            return WriteOutcome(details, created: existing == nil, notes: notes)
        }
    }

    /// A stored applinks row (position, components, defaults) as its change records show it.
    static func applinksRecord(_ row: Row) throws -> JSONValue {
        [
            "components": try JSONParser.parse(try row.string("components")),
            "defaults": try row.optionalString("defaults").map { try JSONParser.parse($0) } ?? .null,
            "position": .integer(Int64(try row.int("position"))),
        ]
    }

    @discardableResult
    public func removeApplinks(host rawHost: String, app bundleID: BundleID) throws(RegistryError) -> WriteOutcome<Void> {
        try removeHostEntry(table: "applinks_details", entity: .applinks, host: rawHost, app: bundleID)
    }

    /// Deletes the (host, app) row of `table` and records it; notFound when there is none.
    func removeHostEntry(
        table: StaticString, entity: ChangeEntity, host rawHost: String,
        app bundleID: BundleID
    ) throws(RegistryError) -> WriteOutcome<Void> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let key: [SQLValue] = [.text(host), .text(bundleID.rawValue)]
            guard let row = try db.query("SELECT * FROM \(table) WHERE host = ? AND app_bundle_id = ?", key).first else {
                throw RegistryError.notFound("\(entity.rawValue) of \(bundleID.rawValue) on \(host)")
            }
            try db.execute("DELETE FROM \(table) WHERE host = ? AND app_bundle_id = ?", key)
            let before = entity == .applinks ? try Self.applinksRecord(row) : Self.webcredentialsRecord(host: host, app: bundleID)
            try recordChange(entity: entity, id: "\(host) \(bundleID.rawValue)", action: .remove, before: before, after: nil)
            return WriteOutcome(())
        }
    }

    /// Changes host-wide `defaults` and `substitutionVariables`, each on its own: nil keeps the
    /// stored value, JSON `null` clears it (a merge, like PATCH: changing one never clears the
    /// other). Refused when a stored rule would then name an undefined variable, or the file would
    /// break a rule of the lint. `team` is the team asking (nil: an administrator); only the
    /// host's owner may. Returns the settings as stored.
    @discardableResult
    public func setApplinksSettings(
        host rawHost: String, defaults: JSONValue?, substitutionVariables: JSONValue?,
        by team: TeamID? = nil
    ) throws(RegistryError) -> WriteOutcome<ApplinksHostSettings> {
        let host = try Self.normalizeHost(rawHost)
        var errors: [FieldError] = []
        if let defaults, !defaults.isNull { errors += ApplinksValidator.validateDefaults(defaults) }
        if let substitutionVariables, !substitutionVariables.isNull {
            errors += ApplinksValidator.validateSubstitutionVariables(substitutionVariables)
        }
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        return try writeOutcome {
            let notes = try govern(host, by: team)
            let before = try applinksSettings(host)
            var after = before
            // (JSONValue is nil-literal-expressible: spell out Optional.none, not `nil`.)
            if let defaults { after.defaults = defaults.isNull ? .none : .some(defaults) }
            if let substitutionVariables {
                after.substitutionVariables = substitutionVariables.isNull ? .none : .some(substitutionVariables)
            }
            guard after != before else {
                var unchanged = WriteOutcome(before, notes: notes)
                unchanged.changed = false
                return unchanged
            }
            let variables = ApplinksValidator.variableNames(after.substitutionVariables)
            for row in try db.query("SELECT app_bundle_id, components FROM applinks_details WHERE host = ?", [.text(host)]) {
                let app = try row.string("app_bundle_id")
                let problems = ApplinksValidator.validateComponents(
                    try JSONParser.parse(try row.string("components")), field: "applinks of \(app)", variables: variables)
                guard problems.isEmpty else { throw RegistryError.invalid(problems) }
            }
            try db.execute(
                """
                INSERT INTO applinks_host(host, defaults, substitution_variables, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(host) DO UPDATE SET defaults = ?2, substitution_variables = ?3, updated_at = ?4
                """,
                [
                    .text(host), .text(after.defaults.map { JSONWriter.string($0) }),
                    .text(after.substitutionVariables.map { JSONWriter.string($0) }), .text(timestamp()),
                ])
            try recordChange(
                entity: .applinksSettings, id: host, action: .update,
                before: ["defaults": before.defaults ?? .null, "substitutionVariables": before.substitutionVariables ?? .null],
                after: ["defaults": after.defaults ?? .null, "substitutionVariables": after.substitutionVariables ?? .null])
            return WriteOutcome(after, notes: notes)
        }
    }

    /// Turns on or off the applinks generated from `host`'s experiences (ExperienceApplinks).
    /// Returns the experience URLs the generated components fail to open (an earlier `exclude`
    /// rule of the same app, say), checked with the evaluator; empty when off.
    @discardableResult
    public func setApplinksFromExperiences(
        host rawHost: String, _ enabled: Bool,
        by team: TeamID? = nil
    ) throws(RegistryError) -> WriteOutcome<[ExperienceApplinks.Miss]> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let notes = try govern(host, by: team)
            // Turning it on (or off) again changes nothing and records nothing.
            guard try applinksSettings(host).fromExperiences != enabled else {
                return WriteOutcome(try generatedApplinksMisses(host), notes: notes)
            }
            try db.execute(
                """
                INSERT INTO applinks_host(host, from_experiences, updated_at) VALUES (?1, ?2, ?3)
                ON CONFLICT(host) DO UPDATE SET from_experiences = ?2, updated_at = ?3
                """, [.text(host), .int(enabled ? 1 : 0), .text(timestamp())])
            try recordChange(
                entity: .applinksGeneration, id: host, action: .update,
                before: ["fromExperiences": .bool(!enabled)], after: ["fromExperiences": .bool(enabled)])
            return WriteOutcome(try generatedApplinksMisses(host), notes: notes)
        }
    }

    /// Experience URLs of `host` that the generated applinks do not give to their app.
    func generatedApplinksMisses(_ host: String) throws -> [ExperienceApplinks.Miss] {
        guard let content = try configuredContent(host), !content.generated.isEmpty else { return [] }
        return ExperienceApplinks.verify(AASAGenerator.document(content), host: host, content.generated)
    }

    /// The host's AASA content, or nil when the host has no AASA at all.
    func configuredContent(_ host: String) throws -> AASAContent? {
        do { return try aasaContent(host: host) } catch RegistryError.notFound { return nil }
    }

    /// A free host becomes the app's team's, and the outcome says so.
    @discardableResult
    public func addWebcredentials(host rawHost: String, app bundleID: BundleID) throws(RegistryError) -> WriteOutcome<Void> {
        let host = try Self.normalizeHost(rawHost)
        return try writeOutcome {
            let notes = try hold(host, for: try self.app(bundleID).team)
            // Adding it again changes nothing and records nothing.
            guard
                try db.execute(
                    "INSERT OR IGNORE INTO webcredentials(host, app_bundle_id, created_at) VALUES (?, ?, ?)",
                    [.text(host), .text(bundleID.rawValue), .text(timestamp())]) > 0
            else {
                return WriteOutcome((), notes: notes)
            }
            try recordChange(
                entity: .webcredentials, id: "\(host) \(bundleID.rawValue)", action: .create, before: nil,
                after: Self.webcredentialsRecord(host: host, app: bundleID))
            return WriteOutcome((), created: true, notes: notes)
        }
    }

    /// A webcredentials entry as its change records show it.
    static func webcredentialsRecord(host: String, app: BundleID) -> JSONValue {
        ["host": .string(host), "app": .string(app.rawValue)]
    }

    @discardableResult
    public func removeWebcredentials(host rawHost: String, app bundleID: BundleID) throws(RegistryError) -> WriteOutcome<Void> {
        try removeHostEntry(table: "webcredentials", entity: .webcredentials, host: rawHost, app: bundleID)
    }
}
