public import ClipCore
import SQLiteDB

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
            return WriteOutcome(try storedLink(clip)!, created: true, notes: [])
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

    private func storedLink(_ clip: AppID) throws -> AppStoreConnectLink? {
        try db.query(Self.linkColumns + " WHERE l.clip_bundle_id = ?", [.text(clip.bundleID.rawValue)]).first.map(readLink)
    }

    func readLink(_ row: Row) throws -> AppStoreConnectLink {
        AppStoreConnectLink(
            clip: AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("clip_bundle_id"))),
            ascAppID: try row.string("asc_app_id"), ascAppClipID: try row.string("asc_app_clip_id"),
            appBundleID: try row.string("app_bundle_id"), primaryLocale: try row.optionalString("primary_locale"),
            linkedAt: try row.string("linked_at"))
    }
}
