-- App Store Connect sync (docs/architecture.md): what the registry remembers of App Store Connect, so that
-- a plan can tell in sync from pending from drifted, and an apply can be idempotent and resumable. No key,
-- token or other credential is ever stored here.

-- A clip linked to its App Store Connect app and App Clip (`clipctl asc link`), found there by bundle ID.
CREATE TABLE asc_clip_link (
    clip_bundle_id   TEXT PRIMARY KEY REFERENCES clip(bundle_id) ON DELETE CASCADE,
    asc_app_id       TEXT NOT NULL CHECK (asc_app_id <> ''),
    asc_app_clip_id  TEXT NOT NULL UNIQUE CHECK (asc_app_clip_id <> ''),
    -- The app's bundle ID as App Store Connect holds it, and its primary locale (en-US) when it said.
    app_bundle_id    TEXT NOT NULL,
    primary_locale   TEXT,
    linked_at        TEXT NOT NULL
) STRICT;

-- One row per registry experience and the clip it was pushed under (or an apply has started to create it
-- there). An experience is never deleted (removal is soft) and may move to another clip, so its row
-- outlives both and the removal can be pushed to the App Clip that has it.
CREATE TABLE asc_experience_sync (
    clip_bundle_id       TEXT NOT NULL REFERENCES asc_clip_link(clip_bundle_id) ON DELETE CASCADE,
    experience_id        INTEGER NOT NULL REFERENCES advanced_experience(id) ON DELETE CASCADE,
    -- NULL until App Store Connect answered the create.
    asc_experience_id    TEXT UNIQUE,
    -- The link App Store Connect holds: it is create-only there, so another URL means re-create.
    asc_link             TEXT,
    -- The registry version last pushed, and the header image (SHA-256 of our bytes; MD5 as App Store Connect
    -- reports it in sourceFileChecksum) last pushed.
    pushed_version       INTEGER CHECK (pushed_version IS NULL OR pushed_version >= 1),
    pushed_image_sha256  TEXT,
    pushed_image_md5     TEXT,
    -- The header image reserved in App Store Connect and not yet known to be COMPLETE: reused by a resumed
    -- upload (App Store Connect has no DELETE for it).
    reserved_image_id    TEXT,
    -- What App Store Connect held when last seen: its status verbatim (unknown values kept) and a digest of
    -- its fields, so a change made in its web pages since shows as drift.
    asc_state            TEXT,
    asc_fingerprint      TEXT,
    -- A step an apply started and has not finished: a resumed apply re-reads App Store Connect first.
    pending_step         TEXT CHECK (pending_step IS NULL OR pending_step IN ('create', 'update', 'recreate', 'remove', 'upload-image')),
    pending_since        TEXT,
    pushed_at            TEXT,
    pulled_at            TEXT,
    PRIMARY KEY (clip_bundle_id, experience_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX asc_experience_sync_by_experience ON asc_experience_sync(experience_id);
