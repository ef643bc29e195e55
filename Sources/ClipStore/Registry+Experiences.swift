public import ClipCore
import SQLiteDB
public import StrictJSON

/// Advanced experiences: register, read, list, update, activate/deactivate, remove.
extension Registry {
    static let experienceColumns = """
        SELECT e.id, e.url, e.clip_bundle_id, a.team_id, \(ExperienceRow.fieldColumns.map { "e." + $0 }.joined(separator: ", ")),
               e.version, e.created_at, e.updated_at,
               (SELECT json_group_object(language, json_array(title, subtitle)) FROM advanced_experience_localization l
                WHERE l.experience_id = e.id) AS localizations,
               (SELECT json_group_object(key, value) FROM experience_label b WHERE b.experience_id = e.id) AS labels
        FROM advanced_experience e
        JOIN clip c ON c.bundle_id = e.clip_bundle_id
        JOIN app a ON a.bundle_id = c.app_bundle_id
        """

    func readExperience(_ row: Row) throws -> AdvancedExperience {
        var localizations: [Language: CardText] = [:]
        for (key, value) in try JSONParser.parse(try row.string("localizations")).objectMembers ?? [] {
            guard let language = Language(tag: key), let pair = value.arrayValue, pair.count == 2,
                let title = pair[0].stringValue, let subtitle = pair[1].stringValue
            else { continue }
            localizations[language] = CardText(title: title, subtitle: subtitle)
        }
        var labels: [String: String] = [:]
        for (key, value) in try JSONParser.parse(try row.string("labels")).objectMembers ?? [] { labels[key] = value.stringValue }
        var experience = AdvancedExperience(
            id: Int64(try row.int("id")),
            url: try NormalizedURL(canonical: try row.string("url")),
            clip: AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("clip_bundle_id"))),
            localizations: localizations,
            labels: labels,
            version: try row.int("version"),
            createdAt: try row.string("created_at"),
            updatedAt: try row.string("updated_at"))
        try ExperienceRow.read(row, into: &experience)
        return experience
    }

    func loadExperience(id: Int64, includingRemoved: Bool = false) throws -> AdvancedExperience? {
        try db.query(Self.experienceColumns + " WHERE e.id = ?" + (includingRemoved ? "" : " AND e.removed_at IS NULL"), [.integer(id)])
            .first.map(readExperience)
    }

    func loadExperience(url: NormalizedURL) throws -> AdvancedExperience? {
        try db.query(Self.experienceColumns + " WHERE e.url = ? AND e.removed_at IS NULL", [.text(url.canonical)]).first.map(readExperience)
    }

    /// An experience by id or by URL (any spelling that normalizes to the registered one).
    /// `includingRemoved`: an id may name a removed experience (as its removal left it); a URL names a live one.
    public func experience(_ reference: String, includingRemoved: Bool = false) throws(RegistryError) -> AdvancedExperience {
        let parsed: ExperienceReference
        do { parsed = try ExperienceReference(reference) } catch { throw RegistryError(error) }
        return try guarded {
            switch parsed {
            case .id(let id):
                guard let e = try loadExperience(id: id, includingRemoved: includingRemoved) else {
                    throw RegistryError.notFound("experience \(id)")
                }
                return e
            case .url(let url):
                guard let e = try loadExperience(url: url) else { throw RegistryError.notFound("experience with URL \(url.canonical)") }
                return e
            }
        }
    }

    public struct ListFilter: Sendable {
        public var clip: AppID?
        public var host: String?
        public var status: ExperienceStatus?
        public var team: TeamID?
        /// Cursor: only URLs after this one (docs/architecture.md#the-http-api: cursor pagination).
        public var afterURL: String?
        public var limit: Int?
        /// Every term must hold (docs/sheets.md#labels).
        public var labels: LabelSelector
        public init(
            clip: AppID? = nil, host: String? = nil, status: ExperienceStatus? = nil, team: TeamID? = nil, afterURL: String? = nil,
            limit: Int? = nil, labels: LabelSelector = LabelSelector()
        ) {
            self.labels = labels
            self.clip = clip
            self.host = host
            self.status = status
            self.team = team
            self.afterURL = afterURL
            self.limit = limit
        }
    }

    /// Experiences (not removed), ordered by URL, streamed to `body`.
    public func forEachExperience(_ filter: ListFilter = ListFilter(), _ body: (AdvancedExperience) throws -> Void) throws(RegistryError) {
        try guarded {
            try db.read {
                let (condition, values) = Self.condition(filter)
                try db.forEachRow(Self.experienceColumns + condition + " ORDER BY e.url LIMIT ?6", values) { row in
                    try body(try readExperience(row))
                }
            }
        }
    }

    /// The id, URL, host and clip (bundle ID) of every experience `filter` selects, ordered by URL: what a sync compares with its sheet
    /// without reading each experience whole.
    func forEachExperienceURL(
        _ filter: ListFilter, _ body: (_ id: Int64, _ url: String, _ host: String, _ clip: String) throws -> Void
    ) throws {
        let (condition, values) = Self.condition(filter)
        try db.forEachRow(
            """
            SELECT e.id, e.url, e.host, e.clip_bundle_id FROM advanced_experience e
            JOIN clip c ON c.bundle_id = e.clip_bundle_id
            JOIN app a ON a.bundle_id = c.app_bundle_id
            """ + condition + " ORDER BY e.url LIMIT ?6", values
        ) { row in
            try body(Int64(try row.int("id")), try row.string("url"), try row.string("host"), try row.string("clip_bundle_id"))
        }
    }

    /// The `WHERE` clause of `filter` over `experienceColumns`' tables, and its values (`?6` is the limit's).
    static func condition(_ filter: ListFilter) -> (sql: String, values: [SQLValue]) {
        let (labelClauses, labelValues) = labelClauses(filter.labels, firstParameter: 7)
        return (
            """
             WHERE e.removed_at IS NULL AND (?1 IS NULL OR e.clip_bundle_id = ?1) AND (?2 IS NULL OR e.host = ?2)
               AND (?3 IS NULL OR e.status = ?3) AND (?4 IS NULL OR a.team_id = ?4) AND (?5 IS NULL OR e.url > ?5)
            """ + labelClauses,
            [
                .text(filter.clip?.bundleID.rawValue), .text(filter.host), .text(filter.status?.rawValue), .text(filter.team?.rawValue),
                .text(filter.afterURL), .integer(Int64(filter.limit ?? -1)),
            ] + labelValues
        )
    }

    /// The label keys the experiences `filter` selects have, in order (an export's label columns).
    public func labelKeys(_ filter: ListFilter = ListFilter()) throws(RegistryError) -> [String] {
        try guarded {
            let (condition, values) = Self.condition(filter)
            return try db.query(
                """
                SELECT DISTINCT b.key AS key FROM experience_label b JOIN advanced_experience e ON e.id = b.experience_id
                JOIN clip c ON c.bundle_id = e.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
                """ + condition + " AND ?6 = ?6 ORDER BY b.key", values
            ).map { try $0.string("key") }
        }
    }

    /// One `AND e.id IN (…)` per term of `selector`, read from the selector index
    /// (Migrations/0013_experience_labels.sql), with its parameters numbered from `firstParameter`.
    static func labelClauses(_ selector: LabelSelector, firstParameter: Int) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for term in selector.terms {
            let n = firstParameter + values.count
            if let value = term.value {
                sql += " AND e.id IN (SELECT experience_id FROM experience_label WHERE key = ?\(n) AND value = ?\(n + 1))"
                values += [.text(term.key), .text(value)]
            } else {
                sql += " AND e.id IN (SELECT experience_id FROM experience_label WHERE key = ?\(n))"
                values.append(.text(term.key))
            }
        }
        return (sql, values)
    }

    public func experiences(_ filter: ListFilter = ListFilter()) throws(RegistryError) -> [AdvancedExperience] {
        var result: [AdvancedExperience] = []
        try forEachExperience(filter) { result.append($0) }
        return result
    }

    /// Registers an experience from its JSON form (docs/architecture.md#the-http-api), with an optional header image.
    /// Creates the team, app, clip and domain association it implies, and says so in `notes`.
    public func register(_ json: JSONValue, image: [UInt8]? = nil) throws(RegistryError) -> WriteOutcome<AdvancedExperience> {
        var (experience, warnings) = try decode(json, base: nil)
        var carried: HeaderImage?
        if let image {
            let header: HeaderImage
            do { header = try HeaderImage(bytes: image) } catch { throw RegistryError.from(error) }
            experience.headerImage = header.sha256
            warnings += Self.sizeWarnings(header)
            carried = header
        }
        let stored = experience
        let image = carried
        return try writeOutcome {
            // The image is stored in the same transaction: a refused registration leaves nothing. It becomes the
            // team's first, as an upload before the write would make it (`grantImage`).
            var notes: [WriteNote] = []
            if let image {
                notes = try ensureTeam(stored.clip.team)
                _ = try grantImage(image, team: stored.clip.team)
            }
            let (saved, inserted) = try insert(stored, imageCarried: image != nil)
            notes += inserted
            return WriteOutcome(saved, created: true, notes: notes, warnings: warnings)
        }
    }

    func decode(_ json: JSONValue, base: AdvancedExperience?) throws(RegistryError) -> (AdvancedExperience, [FieldError]) {
        do { return try ExperienceJSON.decode(json, base: base, zones: SystemTimeZones.lookup) } catch { throw RegistryError.from(error) }
    }

    /// Inserts inside the caller's write transaction. `ensured` names clips ("clip") and
    /// associations ("clip host") known to exist in this transaction already (an import's
    /// earlier lines), which skips their lookups.
    /// `imageCarried`: the write brought the header image's bytes (it is stored already).
    func insert(
        _ draft: AdvancedExperience, ensured: Set<String> = [],
        imageCarried: Bool = false
    ) throws -> (AdvancedExperience, [WriteNote]) {
        let (clip, notes) = try prepareInsert(draft, ensured: ensured, imageCarried: imageCarried)
        return (try insertPrepared(draft, clip: clip), notes)
    }

    /// What comes before an experience's row: its team, app, clip and association (created when
    /// missing, unless `ensured` names them) and its header image's check. Returns the clip as
    /// stored and the notes of what was created.
    func prepareInsert(_ draft: AdvancedExperience, ensured: Set<String>, imageCarried: Bool) throws -> (AppID, [WriteNote]) {
        let clipKnown = ensured.contains(draft.clip.rawValue)
        var notes = clipKnown ? [] : try ensureClip(draft.clip)
        if !ensured.contains(draft.clip.rawValue + " " + draft.url.host) {
            notes += try ensureDomain(clip: draft.clip, host: draft.url.host)
        }
        try checkImage(draft.headerImage, team: draft.clip.team, carried: imageCarried)
        return (clipKnown ? draft.clip : try storedClip(draft.clip.bundleID), notes)
    }

    static let experienceInsertColumns =
        "advanced_experience(clip_bundle_id, url, host, " + ExperienceRow.fieldColumns.joined(separator: ", ")
        + ", version, created_at, updated_at)"
    static let experienceInsertColumnCount = 3 + ExperienceRow.fieldColumns.count + 3
    static let experienceInsert =
        "INSERT INTO \(experienceInsertColumns) VALUES ("
        + Array(repeating: "?", count: experienceInsertColumnCount).joined(separator: ", ") + ")"
    static let experienceUpdate =
        "UPDATE advanced_experience SET clip_bundle_id = ?, url = ?, host = ?, "
        + ExperienceRow.fieldColumns.map { $0 + " = ?" }.joined(separator: ", ") + ", version = ?, updated_at = ? WHERE id = ?"

    /// The values of an experience's row, in `experienceInsertColumns` order.
    func experienceValues(_ draft: AdvancedExperience, at t: String) -> [SQLValue] {
        [.text(draft.clip.bundleID.rawValue), .text(draft.url.canonical), .text(draft.url.host)] + ExperienceRow.values(draft)
            + [.integer(1), .text(t), .text(t)]
    }

    /// The experience as stored: its id, version and times, and its clip as stored.
    static func saved(_ draft: AdvancedExperience, id: Int64, clip: AppID, at t: String) -> AdvancedExperience {
        var saved = draft
        saved.id = id
        saved.version = 1
        saved.createdAt = t
        saved.updatedAt = t
        saved.clip = clip
        return saved
    }

    /// Inserts the row of an experience `prepareInsert` passed, its localizations and its change record.
    func insertPrepared(_ draft: AdvancedExperience, clip: AppID) throws -> AdvancedExperience {
        let t = timestamp()
        do {
            try db.execute(
                Self.experienceInsert, experienceValues(draft, at: t)
            )
        } catch let error as SQLiteError where error.isUniqueViolation {
            // The partial unique index on url (not removed) refused it: say which experience has it.
            try checkUnique(draft.url, except: nil)
            throw error
        }
        let id = db.lastInsertRowID
        try insertLocalizations(id, draft.localizations)
        try insertLabels(id, draft.labels)
        let saved = Self.saved(draft, id: id, clip: clip, at: t)
        try recordChange(entity: .experience, id: String(id), action: .create, before: nil, after: AuditForm.experience(saved))
        return saved
    }

    static let localizationColumns = "advanced_experience_localization(experience_id, language, title, subtitle)"

    func insertLocalizations(_ id: Int64, _ localizations: [Language: CardText]) throws {
        for (language, card) in localizations.sorted(by: { $0.key < $1.key }) {
            try db.execute(
                "INSERT INTO \(Self.localizationColumns) VALUES (?, ?, ?, ?)",
                [.integer(id), .text(language.tag), .text(card.title), .text(card.subtitle)])
        }
    }

    static let labelColumns = "experience_label(experience_id, key, value)"

    func insertLabels(_ id: Int64, _ labels: [String: String]) throws {
        for key in labels.keys.sorted() {
            try db.execute("INSERT INTO \(Self.labelColumns) VALUES (?, ?, ?)", [.integer(id), .text(key), .text(labels[key]!)])
        }
    }

    func checkUnique(_ url: NormalizedURL, except id: Int64?) throws {
        if let row = try db.query("SELECT id FROM advanced_experience WHERE url = ? AND removed_at IS NULL", [.text(url.canonical)]).first {
            let existing = Int64(try row.int("id"))
            guard existing == id else {
                throw RegistryError.conflict(
                    "\(url.canonical) is already registered as experience \(existing)", existing: .experience(existing))
            }
        }
    }

    /// Images are stored once by content hash, but a hash is public (every resolve answer shows
    /// it): naming one proves nothing. So a team's experience may name a stored image only when
    /// the write brings its bytes (`carried`), or the team already uses it (an experience or a
    /// default experience of the team's); otherwise the answer is the same as for an image that
    /// is not stored at all, which tells nothing about other teams' images.
    func checkImage(_ sha256: String?, team: TeamID, carried: Bool) throws {
        guard let sha256, !carried else { return }
        let used = try db.query(
            """
            SELECT 1 FROM advanced_experience e JOIN clip c ON c.bundle_id = e.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
              WHERE e.header_image_sha256 = ?1 AND a.team_id = ?2
            UNION ALL
            SELECT 1 FROM default_experience_localization d JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
              WHERE d.header_image_sha256 = ?1 AND a.team_id = ?2
            UNION ALL
            SELECT 1 FROM team_header_image WHERE sha256 = ?1 AND team_id = ?2
            LIMIT 1
            """, [.text(sha256), .text(team.rawValue)])
        guard used.isEmpty else { return }
        throw ValidationFailure(
            field: "headerImage", rule: "headerImage.missing",
            message:
                "team \(team.rawValue) has no header image with hash \(sha256); give the image file (--image, headerImageData in an import, or POST /v1/images)"
        )
    }

    /// Applies a partial update (absent fields unchanged). With `expectedVersion`, refuses when
    /// the experience changed meanwhile (HTTP If-Match, docs/rules.md#updates-and-versions).
    public func update(
        _ reference: String, with json: JSONValue, image: [UInt8]? = nil,
        expectedVersion: Int? = nil
    ) throws(RegistryError) -> WriteOutcome<AdvancedExperience> {
        let current = try experience(reference)
        var (draft, warnings) = try decode(json, base: current)
        var header: HeaderImage?
        if let image {
            do { header = try HeaderImage(bytes: image) } catch { throw RegistryError.from(error) }
            draft.headerImage = header?.sha256
            warnings += header.map(Self.sizeWarnings) ?? []
        }
        let updated = draft
        return try writeOutcome {
            let before = try reread(current, expectedVersion: expectedVersion)
            var notes: [WriteNote] = []
            if updated.clip != before.clip { notes += try ensureClip(updated.clip) }
            // As an upload before the write would (`grantImage`), after the clip's team exists.
            if let header { _ = try grantImage(header, team: updated.clip.team) }
            let (saved, implied) = try applyUpdate(updated, over: before, imageCarried: header != nil)
            return WriteOutcome(saved ?? before, notes: notes + implied, warnings: warnings)
        }
    }

    /// The change record's action: a change of status alone is an activation or deactivation,
    /// whether it came from `activate`/`deactivate` or a PATCH of `status` (so local and remote
    /// clipctl record the same).
    static func changeAction(_ before: AdvancedExperience, _ after: AdvancedExperience) -> ChangeAction {
        var statusOnly = before
        statusOnly.status = after.status
        guard statusOnly == after, before.status != after.status else { return .update }
        return after.status == .active ? .activate : .deactivate
    }

    /// Writes `draft` over `before` with version + 1, and records the change.
    func save(_ draft: AdvancedExperience, before: AdvancedExperience, action: ChangeAction) throws -> AdvancedExperience {
        var saved = draft
        saved.version = before.version + 1
        saved.updatedAt = timestamp()
        try db.execute(
            Self.experienceUpdate,
            [.text(saved.clip.bundleID.rawValue), .text(saved.url.canonical), .text(saved.url.host)] + ExperienceRow.values(saved)
                + [.int(saved.version), .text(saved.updatedAt), .integer(saved.id)])
        if saved.localizations != before.localizations {
            try db.execute("DELETE FROM advanced_experience_localization WHERE experience_id = ?", [.integer(saved.id)])
            try insertLocalizations(saved.id, saved.localizations)
        }
        if saved.labels != before.labels {
            try db.execute("DELETE FROM experience_label WHERE experience_id = ?", [.integer(saved.id)])
            try insertLabels(saved.id, saved.labels)
        }
        saved.clip = try storedClip(saved.clip.bundleID)
        try recordChange(
            entity: .experience, id: String(saved.id), action: action, before: AuditForm.experience(before),
            after: AuditForm.experience(saved))
        return saved
    }

    /// The experience `current` names as the write's transaction reads it: refused when it is gone, or when it is no
    /// longer at `expectedVersion` (HTTP If-Match, docs/rules.md#updates-and-versions).
    func reread(_ current: AdvancedExperience, expectedVersion: Int?) throws -> AdvancedExperience {
        guard let before = try loadExperience(id: current.id) else { throw RegistryError.notFound("experience \(current.id)") }
        if let expectedVersion, before.version != expectedVersion {
            throw RegistryError.versionMismatch(expected: expectedVersion, actual: before.version)
        }
        return before
    }

    /// Activates or deactivates an experience. Returns it, unchanged when already in that state.
    public func setStatus(
        _ reference: String, _ status: ExperienceStatus,
        expectedVersion: Int? = nil
    ) throws(RegistryError) -> WriteOutcome<AdvancedExperience> {
        let current = try experience(reference)
        return try writeOutcome {
            let before = try reread(current, expectedVersion: expectedVersion)
            guard before.status != status else { return WriteOutcome(before) }
            var draft = before
            draft.status = status
            let saved = try save(draft, before: before, action: Self.changeAction(before, draft))
            return WriteOutcome(saved)
        }
    }

    /// Soft-deletes an experience (Apple models deletion as `removed: true`:
    /// docs/apple-formats.md#advanced-experiences).
    /// Its URL becomes free for a new registration; its history stays in the change records.
    /// The outcome's value is the experience as it was before.
    @discardableResult
    public func remove(_ reference: String, expectedVersion: Int? = nil) throws(RegistryError) -> WriteOutcome<AdvancedExperience> {
        let current = try experience(reference)
        return try writeOutcome {
            let before = try reread(current, expectedVersion: expectedVersion)
            let t = timestamp()
            try db.execute(
                "UPDATE advanced_experience SET removed_at = ?, version = version + 1, updated_at = ? WHERE id = ?",
                [.text(t), .text(t), .integer(before.id)])
            try recordChange(entity: .experience, id: String(before.id), action: .remove, before: AuditForm.experience(before), after: nil)
            return WriteOutcome(before)
        }
    }

    /// Counts of experiences by status (for metrics and `clipctl status`).
    public func experienceCounts() throws(RegistryError) -> [ExperienceStatus: Int] {
        try guarded {
            var counts: [ExperienceStatus: Int] = [.active: 0, .deactivated: 0]
            for row in try db.query("SELECT status, count(*) AS n FROM advanced_experience WHERE removed_at IS NULL GROUP BY status") {
                if let status = ExperienceStatus(rawValue: try row.string("status")) { counts[status] = try row.int("n") }
            }
            return counts
        }
    }
}
