public import ClipCore
import SQLiteDB
public import StrictJSON

/// What the registry remembers of App Store Connect (Migrations/0005_asc_sync.sql). Never a key or token.
extension Registry {
    /// Links a clip to its App Store Connect app and App Clip. Linking again to the same ids changes
    /// nothing (`created` false, no write); other ids replace the link (the App Clip was re-created there),
    /// and the sync records of the old App Clip go with it.
    public func link(_ link: AppStoreConnectLink) throws(RegistryError) -> WriteOutcome<AppStoreConnectLink> {
        try write {
            let clip = try clipID(link.clip.rawValue)
            if let current = try storedLink(clip), current.ascAppID == link.ascAppID, current.ascAppClipID == link.ascAppClipID,
                current.appBundleID == link.appBundleID, current.primaryLocale == link.primaryLocale
            {
                return WriteOutcome(current, created: false, notes: [])
            }
            let before = try storedLink(clip)
            if let before, before.ascAppClipID == link.ascAppClipID {
                // The same App Clip with other facts (the app's primary locale, say): its sync records stay.
                _ = try db.execute(
                    "UPDATE asc_clip_link SET asc_app_id = ?, app_bundle_id = ?, primary_locale = ? WHERE clip_bundle_id = ?",
                    [.text(link.ascAppID), .text(link.appBundleID), .text(link.primaryLocale), .text(clip.bundleID.rawValue)])
                let stored = try storedLink(clip)!
                try recordChange(entity: .ascLink, id: clip.rawValue, action: .update, before: Self.json(before), after: Self.json(stored))
                return WriteOutcome(stored, created: true, notes: [])
            }
            try db.execute("DELETE FROM asc_clip_link WHERE clip_bundle_id = ?", [.text(clip.bundleID.rawValue)])
            try db.execute(
                """
                INSERT INTO asc_clip_link(clip_bundle_id, asc_app_id, asc_app_clip_id, app_bundle_id, primary_locale, linked_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(clip.bundleID.rawValue), .text(link.ascAppID), .text(link.ascAppClipID), .text(link.appBundleID),
                    .text(link.primaryLocale), .text(timestamp()),
                ])
            let stored = try storedLink(clip)!
            try recordChange(
                entity: .ascLink, id: clip.rawValue, action: before == nil ? .create : .update, before: before.map(Self.json),
                after: Self.json(stored))
            return WriteOutcome(stored, created: true, notes: [])
        }
    }

    static func json(_ link: AppStoreConnectLink) -> JSONValue {
        [
            "clip": .string(link.clip.rawValue), "ascAppId": .string(link.ascAppID), "ascAppClipId": .string(link.ascAppClipID),
            "appBundleId": .string(link.appBundleID), "primaryLocale": link.primaryLocale.map { .string($0) } ?? .null,
            "leadSeconds": .integer(link.leadSeconds),
        ]
    }

    // MARK: - What an apply or a pull leaves behind (idempotent, resumable: docs/architecture.md)

    /// Notes that an apply starts `step` on an experience, before anything is sent: a resumed apply then knows
    /// it may have happened (and re-reads App Store Connect, which it does anyway).
    /// `link`, for a create, is the URL being created: a resumed apply finds App Store Connect's copy by it even if the
    /// experience's URL changed or it was deactivated or removed meanwhile.
    public func beginASCStep(clip: AppID, experienceID: Int64, step: String, link: String? = nil) throws(RegistryError) {
        try write {
            _ = try db.execute(
                """
                INSERT INTO asc_experience_sync(clip_bundle_id, experience_id, pending_step, pending_since, asc_link) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT(clip_bundle_id, experience_id) DO UPDATE SET pending_step = excluded.pending_step,
                    pending_since = excluded.pending_since,
                    asc_link = CASE WHEN asc_experience_id IS NULL AND ?5 IS NOT NULL THEN ?5 ELSE asc_link END
                """, [.text(clip.bundleID.rawValue), .integer(experienceID), .text(step), .text(timestamp()), .text(link)])
        }
    }

    /// Forgets a step App Store Connect refused (so nothing happened there): the experience's row is as before the step,
    /// but for an image reservation made meanwhile, which stays to be reused.
    public func clearASCStep(clip: AppID, experienceID: Int64) throws(RegistryError) {
        try write {
            let key: [SQLValue] = [.text(clip.bundleID.rawValue), .integer(experienceID)]
            _ = try db.execute(
                "UPDATE asc_experience_sync SET pending_step = NULL, pending_since = NULL WHERE clip_bundle_id = ? AND experience_id = ?",
                key)
            _ = try db.execute(
                """
                DELETE FROM asc_experience_sync WHERE clip_bundle_id = ? AND experience_id = ? AND asc_experience_id IS NULL
                    AND reserved_image_id IS NULL AND pushed_at IS NULL AND pulled_at IS NULL
                """, key)
        }
    }

    /// Remembers a header image reserved in App Store Connect and not yet used, so a resumed upload reuses it
    /// (App Store Connect has no DELETE for an advanced experience image); nil forgets it.
    public func recordASCImageReservation(clip: AppID, experienceID: Int64, imageID: String?) throws(RegistryError) {
        try write {
            _ = try db.execute(
                """
                INSERT INTO asc_experience_sync(clip_bundle_id, experience_id, reserved_image_id) VALUES (?, ?, ?)
                ON CONFLICT(clip_bundle_id, experience_id) DO UPDATE SET reserved_image_id = excluded.reserved_image_id
                """, [.text(clip.bundleID.rawValue), .integer(experienceID), .text(imageID)])
        }
    }

    /// What App Store Connect holds for an experience after a step of an apply or a pull.
    public struct ASCExperienceSeen: Sendable, Equatable {
        public var ascExperienceID: String
        public var link: String
        public var state: String?
        public var fingerprint: String
        public init(ascExperienceID: String, link: String, state: String?, fingerprint: String) {
            self.ascExperienceID = ascExperienceID
            self.link = link
            self.state = state
            self.fingerprint = fingerprint
        }
    }

    /// Records a create or update pushed to App Store Connect, and its change record, in one transaction: the
    /// registry version and header image pushed, App Store Connect's id, link, state and fingerprint.
    public func recordASCPush(
        clip: AppID, experienceID: Int64, action: ChangeAction, seen: ASCExperienceSeen, version: Int, imageSHA256: String?,
        imageMD5: String?
    ) throws(RegistryError) {
        try write {
            let before = try syncRow(clip: clip, experienceID: experienceID)
            try storeSeen(
                clip: clip, experienceID: experienceID, seen: seen, pushedVersion: version, imageSHA256: imageSHA256, imageMD5: imageMD5,
                column: "pushed_at")
            try recordChange(
                entity: .ascExperience, id: "\(experienceID)", action: action, before: before,
                after: try syncRow(clip: clip, experienceID: experienceID))
        }
    }

    /// Records what a pull found for an experience (the registry now matches it, or keeps its own values when
    /// `pushedVersion` is nil: the next plan then shows the update).
    public func recordASCPull(
        clip: AppID, experienceID: Int64, seen: ASCExperienceSeen, pushedVersion: Int?, imageSHA256: String?, imageMD5: String?
    ) throws(RegistryError) {
        try write {
            try storeSeen(
                clip: clip, experienceID: experienceID, seen: seen, pushedVersion: pushedVersion, imageSHA256: imageSHA256,
                imageMD5: imageMD5, column: "pulled_at")
        }
    }

    /// Records an experience removed in App Store Connect (`PATCH removed: true`) with its change record: the
    /// registry experience's sync row goes (a later reactivation creates it there again). `experienceID` is nil
    /// for one only App Store Connect had (`--prune`).
    public func recordASCRemoval(clip: AppID, experienceID: Int64?, ascExperienceID: String, link: String) throws(RegistryError) {
        try write {
            let before: JSONValue
            if let experienceID, let row = try syncRow(clip: clip, experienceID: experienceID) {
                before = row
            } else {
                before = ["clip": .string(clip.rawValue), "ascExperienceId": .string(ascExperienceID), "link": .string(link)]
            }
            try db.execute("DELETE FROM asc_experience_sync WHERE asc_experience_id = ?", [.text(ascExperienceID)])
            if let experienceID {
                try db.execute(
                    "DELETE FROM asc_experience_sync WHERE clip_bundle_id = ? AND experience_id = ?",
                    [.text(clip.bundleID.rawValue), .integer(experienceID)])
            }
            try recordChange(
                entity: .ascExperience, id: experienceID.map { "\($0)" } ?? "asc:\(ascExperienceID)", action: .remove, before: before,
                after: nil)
        }
    }

    /// Records a default experience pushed to App Store Connect (its change record: there is nothing else to keep, since
    /// each apply reads the version's default experience afresh).
    public func recordASCDefaultExperiencePush(clip: AppID, action: ChangeAction, after: JSONValue) throws(RegistryError) {
        try write { try recordChange(entity: .ascDefaultExperience, id: clip.rawValue, action: action, before: nil, after: after) }
    }

    private func storeSeen(
        clip: AppID, experienceID: Int64, seen: ASCExperienceSeen, pushedVersion: Int?, imageSHA256: String?, imageMD5: String?,
        column: String
    ) throws {
        // App Store Connect's id belongs to one registry experience: one removed here and re-registered at the same
        // URL takes it over.
        try db.execute(
            "DELETE FROM asc_experience_sync WHERE asc_experience_id = ? AND NOT (clip_bundle_id = ? AND experience_id = ?)",
            [.text(seen.ascExperienceID), .text(clip.bundleID.rawValue), .integer(experienceID)])
        try db.execute(
            """
            INSERT INTO asc_experience_sync(clip_bundle_id, experience_id) VALUES (?, ?)
            ON CONFLICT(clip_bundle_id, experience_id) DO NOTHING
            """, [.text(clip.bundleID.rawValue), .integer(experienceID)])
        try db.execute(
            """
            UPDATE asc_experience_sync SET asc_experience_id = ?, asc_link = ?, pushed_version = ?, pushed_image_sha256 = ?,
                pushed_image_md5 = ?, reserved_image_id = NULL, asc_state = ?, asc_fingerprint = ?, pending_step = NULL,
                pending_since = NULL, \(column) = ?
            WHERE clip_bundle_id = ? AND experience_id = ?
            """,
            [
                .text(seen.ascExperienceID), .text(seen.link), pushedVersion.map { .integer(Int64($0)) } ?? .null, .text(imageSHA256),
                .text(imageMD5), .text(seen.state), .text(seen.fingerprint), .text(timestamp()), .text(clip.bundleID.rawValue),
                .integer(experienceID),
            ])
    }

    /// The sync row as a change record shows it.
    private func syncRow(clip: AppID, experienceID: Int64) throws -> JSONValue? {
        try db.query(
            "SELECT * FROM asc_experience_sync WHERE clip_bundle_id = ? AND experience_id = ?",
            [.text(clip.bundleID.rawValue), .integer(experienceID)]
        ).first.map { row in
            .object([
                "clip": .string(clip.rawValue), "experienceId": .integer(experienceID),
                "ascExperienceId": try row.optionalString("asc_experience_id").map { .string($0) } ?? .null,
                "link": try row.optionalString("asc_link").map { .string($0) } ?? .null,
                "pushedVersion": try row.optionalInt("pushed_version").map { .integer(Int64($0)) } ?? .null,
                "pushedImage": try row.optionalString("pushed_image_sha256").map { .string($0) } ?? .null,
                "ascState": try row.optionalString("asc_state").map { .string($0) } ?? .null,
            ])
        }
    }

    /// The link of a clip (TEAMID.BUNDLE or bundle ID), or nil when it is not linked.
    public func ascLink(_ clipReference: String) throws(RegistryError) -> AppStoreConnectLink? {
        let clip = try clipID(clipReference)
        return try guarded { try storedLink(clip) }
    }

    /// Every linked clip, by bundle ID.
    public func ascLinks() throws(RegistryError) -> [AppStoreConnectLink] {
        try guarded {
            try db.query(Self.linkColumns + " ORDER BY l.clip_bundle_id").map(readLink)
        }
    }

    /// The sync records of a clip's experiences, removed experiences included.
    public func ascSyncRecords(clip: AppID) throws(RegistryError) -> [AppStoreConnectSyncRecord] {
        try guarded {
            try db.query(
                "SELECT * FROM asc_experience_sync WHERE clip_bundle_id = ? ORDER BY experience_id", [.text(clip.bundleID.rawValue)]
            ).map { row in
                AppStoreConnectSyncRecord(
                    experienceID: Int64(try row.int("experience_id")), clip: clip,
                    ascExperienceID: try row.optionalString("asc_experience_id"),
                    ascLink: try row.optionalString("asc_link"), pushedVersion: try row.optionalInt("pushed_version"),
                    pushedImageSHA256: try row.optionalString("pushed_image_sha256"),
                    pushedImageMD5: try row.optionalString("pushed_image_md5"),
                    reservedImageID: try row.optionalString("reserved_image_id"), ascState: try row.optionalString("asc_state"),
                    ascFingerprint: try row.optionalString("asc_fingerprint"), pendingStep: try row.optionalString("pending_step"),
                    pushedAt: try row.optionalString("pushed_at"), pulledAt: try row.optionalString("pulled_at"))
            }
        }
    }

    static let linkColumns = """
        SELECT l.*, a.team_id FROM asc_clip_link l JOIN clip c ON c.bundle_id = l.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
        """

    func storedLink(_ clip: AppID) throws -> AppStoreConnectLink? {
        try db.query(Self.linkColumns + " WHERE l.clip_bundle_id = ?", [.text(clip.bundleID.rawValue)]).first.map(readLink)
    }

    func readLink(_ row: Row) throws -> AppStoreConnectLink {
        AppStoreConnectLink(
            clip: AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("clip_bundle_id"))),
            ascAppID: try row.string("asc_app_id"), ascAppClipID: try row.string("asc_app_clip_id"),
            appBundleID: try row.string("app_bundle_id"), primaryLocale: try row.optionalString("primary_locale"),
            linkedAt: try row.string("linked_at"), leadSeconds: Int64(try row.int("lead_seconds")))
    }

    /// Sets how long before its `liveFrom` a linked clip's experience is pushed (docs/schedules.md#app-store-connect).
    public func setASCLead(clip reference: String, seconds: Int64) throws(RegistryError) -> WriteOutcome<AppStoreConnectLink> {
        guard AppStoreConnectLink.leadSecondsRange.contains(seconds) else {
            throw RegistryError.invalid([FieldError(field: "lead", rule: "range", message: "must be from 0 to 30 days")])
        }
        let clip = try clipID(reference)
        return try writeOutcome {
            guard let before = try storedLink(clip) else {
                throw RegistryError.notFound("an App Store Connect link of \(clip.rawValue) (clipctl asc link \(clip.rawValue))")
            }
            guard before.leadSeconds != seconds else {
                var same = WriteOutcome(before)
                same.changed = false
                return same
            }
            try db.execute(
                "UPDATE asc_clip_link SET lead_seconds = ? WHERE clip_bundle_id = ?", [.integer(seconds), .text(clip.bundleID.rawValue)])
            let after = try storedLink(clip)!
            try recordChange(entity: .ascLink, id: clip.rawValue, action: .update, before: Self.json(before), after: Self.json(after))
            return WriteOutcome(after)
        }
    }
}
