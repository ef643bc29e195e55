-- Clip Registry schema (docs/architecture.md#the-database-and-its-migrations). STRICT tables; foreign keys are
-- enforced by every connection.
-- Timestamps are ISO 8601 UTC text with milliseconds.

-- Team: the App ID prefix (10 characters [A-Z0-9], docs/apple-formats.md#app-ids-and-bundle-ids).
CREATE TABLE team (
    id          TEXT PRIMARY KEY CHECK (length(id) = 10),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
) STRICT;

-- App: the full app, keyed by bundle ID. app_store_id is the banner's numeric app-id.
CREATE TABLE app (
    bundle_id     TEXT PRIMARY KEY,
    team_id       TEXT NOT NULL REFERENCES team(id),
    app_store_id  TEXT CHECK (app_store_id IS NULL OR app_store_id GLOB '[0-9]*'),
    name          TEXT NOT NULL DEFAULT '',
    version       INTEGER NOT NULL DEFAULT 1,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

-- App Clip: bundle ID = parent bundle ID + '.' + one component (docs/apple-formats.md#app-ids-and-bundle-ids).
CREATE TABLE clip (
    bundle_id      TEXT PRIMARY KEY,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    created_at     TEXT NOT NULL
) STRICT;
CREATE INDEX clip_by_app ON clip(app_bundle_id);

-- Domain association: the clip appears in appclips.apps of this host's AASA.
CREATE TABLE domain_association (
    clip_bundle_id  TEXT NOT NULL REFERENCES clip(bundle_id) ON DELETE CASCADE,
    host            TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (clip_bundle_id, host)
) STRICT, WITHOUT ROWID;
CREATE INDEX domain_association_by_host ON domain_association(host);

-- Header image, stored once by content hash (SHA-256 hex).
CREATE TABLE header_image (
    sha256      TEXT PRIMARY KEY,
    media_type  TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg')),
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    bytes       BLOB NOT NULL,
    created_at  TEXT NOT NULL
) STRICT;

-- Default experience: one per clip.
CREATE TABLE default_experience (
    clip_bundle_id  TEXT PRIMARY KEY REFERENCES clip(bundle_id) ON DELETE CASCADE,
    action          TEXT NOT NULL CHECK (action IN ('OPEN', 'VIEW', 'PLAY')),
    version         INTEGER NOT NULL DEFAULT 1,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE default_experience_localization (
    clip_bundle_id     TEXT NOT NULL REFERENCES default_experience(clip_bundle_id) ON DELETE CASCADE,
    locale             TEXT NOT NULL,
    subtitle           TEXT NOT NULL,
    header_image_sha256 TEXT REFERENCES header_image(sha256),
    PRIMARY KEY (clip_bundle_id, locale)
) STRICT, WITHOUT ROWID;

-- Advanced experience. normalized_url is unique among experiences that are not removed.
CREATE TABLE advanced_experience (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    clip_bundle_id      TEXT NOT NULL REFERENCES clip(bundle_id),
    url                 TEXT NOT NULL,
    host                TEXT NOT NULL,
    action              TEXT NOT NULL CHECK (action IN ('OPEN', 'VIEW', 'PLAY')),
    default_language    TEXT NOT NULL,
    is_powered_by       INTEGER NOT NULL CHECK (is_powered_by IN (0, 1)),
    business_category   TEXT,
    header_image_sha256 TEXT REFERENCES header_image(sha256),
    place               TEXT CHECK (place IS NULL OR json_valid(place)),
    status              TEXT NOT NULL CHECK (status IN ('ACTIVE', 'DEACTIVATED')),
    removed_at          TEXT,
    version             INTEGER NOT NULL DEFAULT 1,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX advanced_experience_url ON advanced_experience(url) WHERE removed_at IS NULL;
CREATE INDEX advanced_experience_by_host ON advanced_experience(host) WHERE removed_at IS NULL;
CREATE INDEX advanced_experience_by_clip ON advanced_experience(clip_bundle_id);

CREATE TABLE advanced_experience_localization (
    experience_id  INTEGER NOT NULL REFERENCES advanced_experience(id) ON DELETE CASCADE,
    language       TEXT NOT NULL,
    title          TEXT NOT NULL,
    subtitle       TEXT NOT NULL,
    PRIMARY KEY (experience_id, language)
) STRICT, WITHOUT ROWID;

-- applinks settings of a host: defaults and substitution variables (docs/apple-formats.md#applinks), as JSON.
CREATE TABLE applinks_host (
    host                    TEXT PRIMARY KEY,
    defaults                TEXT CHECK (defaults IS NULL OR json_valid(defaults)),
    substitution_variables  TEXT CHECK (substitution_variables IS NULL OR json_valid(substitution_variables)),
    updated_at              TEXT NOT NULL
) STRICT;

-- applinks details entry for the full app on a host: its components (and optional defaults).
-- position orders the entries in the AASA (first match wins, docs/apple-formats.md#pattern-matching).
CREATE TABLE applinks_details (
    host           TEXT NOT NULL,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    position       INTEGER NOT NULL,
    components     TEXT NOT NULL CHECK (json_valid(components)),
    defaults       TEXT CHECK (defaults IS NULL OR json_valid(defaults)),
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (host, app_bundle_id)
) STRICT, WITHOUT ROWID;

-- webcredentials: apps allowed to use this host's shared credentials.
CREATE TABLE webcredentials (
    host           TEXT NOT NULL,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    created_at     TEXT NOT NULL,
    PRIMARY KEY (host, app_bundle_id)
) STRICT, WITHOUT ROWID;

-- Change record: every write, in order.
CREATE TABLE change_record (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         TEXT NOT NULL,
    actor      TEXT NOT NULL,
    entity     TEXT NOT NULL,
    entity_id  TEXT NOT NULL,
    action     TEXT NOT NULL,
    before     TEXT CHECK (before IS NULL OR json_valid(before)),
    after      TEXT CHECK (after IS NULL OR json_valid(after))
) STRICT;
