BEGIN TRANSACTION;
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
INSERT INTO "advanced_experience" VALUES(1,'com.example.bikes.Clip','https://bikes.example/rent','bikes.example','OPEN','EN',0,'BIKES',NULL,'{"displayPoint":{"coordinates":{"latitude":48.85,"longitude":2.35}}}','ACTIVE',NULL,2,'2026-11-28T17:45:34.238Z','2026-11-28T17:45:34.408Z');
INSERT INTO "advanced_experience" VALUES(2,'com.example.bikes.Clip','https://bikes.example/shop?id=1','bikes.example','OPEN','EN',1,NULL,NULL,NULL,'DEACTIVATED','2026-11-28T17:45:34.550Z',3,'2026-11-28T17:45:34.323Z','2026-11-28T17:45:34.550Z');
CREATE TABLE advanced_experience_localization (
    experience_id  INTEGER NOT NULL REFERENCES advanced_experience(id) ON DELETE CASCADE,
    language       TEXT NOT NULL,
    title          TEXT NOT NULL,
    subtitle       TEXT NOT NULL,
    PRIMARY KEY (experience_id, language)
) STRICT, WITHOUT ROWID;
INSERT INTO "advanced_experience_localization" VALUES(1,'EN','Rent a bike now','Tap to unlock');
INSERT INTO "advanced_experience_localization" VALUES(1,'FR','Louer','Touchez');
INSERT INTO "advanced_experience_localization" VALUES(2,'EN','Shop','Buy');
CREATE TABLE api_token (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT NOT NULL,
    team_id        TEXT REFERENCES team(id),
    secret_sha256  TEXT NOT NULL UNIQUE CHECK (length(secret_sha256) = 64),
    created_at     TEXT NOT NULL,
    last_used_at   TEXT,
    revoked_at     TEXT
) STRICT;
INSERT INTO "api_token" VALUES(1,'ops',NULL,'24e27dc31aa27ee30fe7c9330ab7310d073a489e9eab1025a8ab23f6fcfc1d1c','2026-11-28T17:45:35.004Z',NULL,NULL);
CREATE TABLE app (
    bundle_id     TEXT PRIMARY KEY,
    team_id       TEXT NOT NULL REFERENCES team(id),
    app_store_id  TEXT CHECK (app_store_id IS NULL OR app_store_id GLOB '[0-9]*'),
    name          TEXT NOT NULL DEFAULT '',
    version       INTEGER NOT NULL DEFAULT 1,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
INSERT INTO "app" VALUES('com.example.bikes','ABCDE12345','123456789','Bikes',2,'2026-11-28T17:45:34.238Z','2026-11-28T17:45:34.690Z');
CREATE TABLE applinks_details (
    host           TEXT NOT NULL,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    position       INTEGER NOT NULL,
    components     TEXT NOT NULL CHECK (json_valid(components)),
    defaults       TEXT CHECK (defaults IS NULL OR json_valid(defaults)),
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (host, app_bundle_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE applinks_host (
    host                    TEXT PRIMARY KEY,
    defaults                TEXT CHECK (defaults IS NULL OR json_valid(defaults)),
    substitution_variables  TEXT CHECK (substitution_variables IS NULL OR json_valid(substitution_variables)),
    updated_at              TEXT NOT NULL
, from_experiences INTEGER NOT NULL DEFAULT 0 CHECK (from_experiences IN (0, 1))) STRICT;
CREATE TABLE asc_clip_link (
    clip_bundle_id   TEXT PRIMARY KEY REFERENCES clip(bundle_id) ON DELETE CASCADE,
    asc_app_id       TEXT NOT NULL CHECK (asc_app_id <> ''),
    asc_app_clip_id  TEXT NOT NULL UNIQUE CHECK (asc_app_clip_id <> ''),
    -- The app's bundle ID as App Store Connect holds it, and its primary locale (en-US) when it said.
    app_bundle_id    TEXT NOT NULL,
    primary_locale   TEXT,
    linked_at        TEXT NOT NULL
) STRICT;
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
INSERT INTO "change_record" VALUES(1,'2026-11-28T17:45:34.237Z','clipctl:local','team','ABCDE12345','create',NULL,'{"id":"ABCDE12345"}');
INSERT INTO "change_record" VALUES(2,'2026-11-28T17:45:34.238Z','clipctl:local','app','com.example.bikes','create',NULL,'{"bundleId":"com.example.bikes","team":"ABCDE12345","appId":"ABCDE12345.com.example.bikes","name":"","version":1}');
INSERT INTO "change_record" VALUES(3,'2026-11-28T17:45:34.238Z','clipctl:local','clip','ABCDE12345.com.example.bikes.Clip','create',NULL,'{"clip":"ABCDE12345.com.example.bikes.Clip"}');
INSERT INTO "change_record" VALUES(4,'2026-11-28T17:45:34.238Z','clipctl:local','host','bikes.example','claim',NULL,'{"team":"ABCDE12345","role":"owner","origin":"first-use"}');
INSERT INTO "change_record" VALUES(5,'2026-11-28T17:45:34.238Z','clipctl:local','domain','ABCDE12345.com.example.bikes.Clip bikes.example','create',NULL,'{"clip":"ABCDE12345.com.example.bikes.Clip","host":"bikes.example"}');
INSERT INTO "change_record" VALUES(6,'2026-11-28T17:45:34.238Z','clipctl:local','experience','1','create',NULL,'{"id":1,"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Rent a bike","subtitle":"Tap to unlock","category":"BIKES","localizations":{"FR":{"title":"Louer","subtitle":"Touchez"}},"status":"ACTIVE","version":1,"createdAt":"2026-11-28T17:45:34.238Z","updatedAt":"2026-11-28T17:45:34.238Z"}');
INSERT INTO "change_record" VALUES(7,'2026-11-28T17:45:34.325Z','clipctl:local','experience','2','create',NULL,'{"id":2,"url":"https://bikes.example/shop?id=1","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Shop","subtitle":"Buy","poweredBy":true,"status":"ACTIVE","version":1,"createdAt":"2026-11-28T17:45:34.323Z","updatedAt":"2026-11-28T17:45:34.323Z"}');
INSERT INTO "change_record" VALUES(8,'2026-11-28T17:45:34.409Z','clipctl:local','experience','1','update','{"id":1,"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Rent a bike","subtitle":"Tap to unlock","category":"BIKES","localizations":{"FR":{"title":"Louer","subtitle":"Touchez"}},"status":"ACTIVE","version":1,"createdAt":"2026-11-28T17:45:34.238Z","updatedAt":"2026-11-28T17:45:34.238Z"}','{"id":1,"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Rent a bike now","subtitle":"Tap to unlock","category":"BIKES","localizations":{"FR":{"title":"Louer","subtitle":"Touchez"}},"place":{"displayPoint":{"coordinates":{"latitude":48.85,"longitude":2.35}}},"status":"ACTIVE","version":2,"createdAt":"2026-11-28T17:45:34.238Z","updatedAt":"2026-11-28T17:45:34.408Z"}');
INSERT INTO "change_record" VALUES(9,'2026-11-28T17:45:34.475Z','clipctl:local','experience','2','deactivate','{"id":2,"url":"https://bikes.example/shop?id=1","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Shop","subtitle":"Buy","poweredBy":true,"status":"ACTIVE","version":1,"createdAt":"2026-11-28T17:45:34.323Z","updatedAt":"2026-11-28T17:45:34.323Z"}','{"id":2,"url":"https://bikes.example/shop?id=1","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Shop","subtitle":"Buy","poweredBy":true,"status":"DEACTIVATED","version":2,"createdAt":"2026-11-28T17:45:34.323Z","updatedAt":"2026-11-28T17:45:34.474Z"}');
INSERT INTO "change_record" VALUES(10,'2026-11-28T17:45:34.568Z','clipctl:local','experience','2','remove','{"id":2,"url":"https://bikes.example/shop?id=1","clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","language":"EN","title":"Shop","subtitle":"Buy","poweredBy":true,"status":"DEACTIVATED","version":2,"createdAt":"2026-11-28T17:45:34.323Z","updatedAt":"2026-11-28T17:45:34.474Z"}',NULL);
INSERT INTO "change_record" VALUES(11,'2026-11-28T17:45:34.691Z','clipctl:local','app','com.example.bikes','update','{"bundleId":"com.example.bikes","team":"ABCDE12345","appId":"ABCDE12345.com.example.bikes","name":"","version":1}','{"bundleId":"com.example.bikes","team":"ABCDE12345","appId":"ABCDE12345.com.example.bikes","appStoreId":"123456789","name":"Bikes","version":2}');
INSERT INTO "change_record" VALUES(12,'2026-11-28T17:45:34.844Z','clipctl:local','default-experience','ABCDE12345.com.example.bikes.Clip','create',NULL,'{"clip":"ABCDE12345.com.example.bikes.Clip","action":"OPEN","localizations":{"en-US":{"subtitle":"Ride"}},"version":1}');
INSERT INTO "change_record" VALUES(13,'2026-11-28T17:45:35.005Z','clipctl:local','token','1','create',NULL,'{"id":1,"name":"ops","scope":"admin","createdAt":"2026-11-28T17:45:35.004Z"}');
INSERT INTO "change_record" VALUES(14,'2026-11-28T17:45:35.095Z','clipctl:local','webhook','1','create',NULL,'{"id":1,"url":"https://hooks.example/in","events":["experience.*"],"team":null,"state":"active","createdAt":"2026-11-28T17:45:35.093Z","failingSince":null,"failure":null}');
INSERT INTO "change_record" VALUES(15,'2026-11-28T17:45:35.190Z','clipctl:local','webhook','1','remove','{"id":1,"url":"https://hooks.example/in","events":["experience.*"],"team":null,"state":"active","createdAt":"2026-11-28T17:45:35.093Z","failingSince":null,"failure":null}',NULL);
CREATE TABLE clip (
    bundle_id      TEXT PRIMARY KEY,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    created_at     TEXT NOT NULL
) STRICT;
INSERT INTO "clip" VALUES('com.example.bikes.Clip','com.example.bikes','2026-11-28T17:45:34.238Z');
CREATE TABLE default_experience (
    clip_bundle_id  TEXT PRIMARY KEY REFERENCES clip(bundle_id) ON DELETE CASCADE,
    action          TEXT NOT NULL CHECK (action IN ('OPEN', 'VIEW', 'PLAY')),
    version         INTEGER NOT NULL DEFAULT 1,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;
INSERT INTO "default_experience" VALUES('com.example.bikes.Clip','OPEN',1,'2026-11-28T17:45:34.838Z','2026-11-28T17:45:34.838Z');
CREATE TABLE default_experience_localization (
    clip_bundle_id     TEXT NOT NULL REFERENCES default_experience(clip_bundle_id) ON DELETE CASCADE,
    locale             TEXT NOT NULL,
    subtitle           TEXT NOT NULL,
    header_image_sha256 TEXT REFERENCES header_image(sha256),
    PRIMARY KEY (clip_bundle_id, locale)
) STRICT, WITHOUT ROWID;
INSERT INTO "default_experience_localization" VALUES('com.example.bikes.Clip','en-US','Ride',NULL);
CREATE TABLE domain_association (
    clip_bundle_id  TEXT NOT NULL REFERENCES clip(bundle_id) ON DELETE CASCADE,
    host            TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (clip_bundle_id, host)
) STRICT, WITHOUT ROWID;
INSERT INTO "domain_association" VALUES('com.example.bikes.Clip','bikes.example','2026-11-28T17:45:34.238Z');
CREATE TABLE header_image (
    sha256      TEXT PRIMARY KEY,
    media_type  TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg')),
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    bytes       BLOB NOT NULL,
    created_at  TEXT NOT NULL
) STRICT;
CREATE TABLE host_team (
    host        TEXT NOT NULL,
    team_id     TEXT NOT NULL REFERENCES team(id),
    role        TEXT NOT NULL CHECK (role IN ('owner', 'shared')),
    origin      TEXT NOT NULL CHECK (origin IN ('first-use', 'claim', 'share', 'migration')),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (host, team_id)
) STRICT, WITHOUT ROWID;
INSERT INTO "host_team" VALUES('bikes.example','ABCDE12345','owner','first-use','2026-11-28T17:45:34.238Z');
CREATE TABLE schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO "schema_migrations" VALUES('0001_registry','2026-11-28T17:45:34.184Z');
INSERT INTO "schema_migrations" VALUES('0002_api_tokens','2026-11-28T17:45:34.187Z');
INSERT INTO "schema_migrations" VALUES('0003_applinks_from_experiences','2026-11-28T17:45:34.191Z');
INSERT INTO "schema_migrations" VALUES('0004_host_ownership','2026-11-28T17:45:34.200Z');
INSERT INTO "schema_migrations" VALUES('0005_asc_sync','2026-11-28T17:45:34.207Z');
INSERT INTO "schema_migrations" VALUES('0006_uploaded_header_images','2026-11-28T17:45:34.214Z');
INSERT INTO "schema_migrations" VALUES('0007_webhooks','2026-11-28T17:45:34.219Z');
INSERT INTO "schema_migrations" VALUES('0008_change_record_by_entity','2026-11-28T17:45:34.221Z');
INSERT INTO "schema_migrations" VALUES('0009_testflight_invocations','2026-11-28T17:45:34.231Z');
CREATE TABLE team (
    id          TEXT PRIMARY KEY CHECK (length(id) = 10),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
) STRICT;
INSERT INTO "team" VALUES('ABCDE12345','','2026-11-28T17:45:34.237Z');
CREATE TABLE team_header_image (
    team_id     TEXT NOT NULL,
    sha256      TEXT NOT NULL REFERENCES header_image(sha256),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, sha256)
) STRICT, WITHOUT ROWID;
CREATE TABLE testflight_invocation (
    clip_bundle_id  TEXT NOT NULL REFERENCES clip(bundle_id) ON DELETE CASCADE,
    position        INTEGER NOT NULL CHECK (position BETWEEN 1 AND 3),
    url             TEXT NOT NULL CHECK (url <> ''),
    PRIMARY KEY (clip_bundle_id, position),
    UNIQUE (clip_bundle_id, url)
) STRICT, WITHOUT ROWID;
CREATE TABLE webcredentials (
    host           TEXT NOT NULL,
    app_bundle_id  TEXT NOT NULL REFERENCES app(bundle_id),
    created_at     TEXT NOT NULL,
    PRIMARY KEY (host, app_bundle_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE webhook_delivery (
    endpoint_id      INTEGER NOT NULL REFERENCES webhook_endpoint(id) ON DELETE CASCADE,
    event_id         INTEGER NOT NULL REFERENCES webhook_event(id) ON DELETE CASCADE,
    attempts         INTEGER NOT NULL DEFAULT 0,
    first_attempt_at INTEGER,
    next_attempt_at  INTEGER NOT NULL,
    last_status      INTEGER,
    last_error       TEXT,
    delivered_at     TEXT,
    PRIMARY KEY (endpoint_id, event_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE webhook_endpoint (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id         TEXT REFERENCES team(id),
    url             TEXT NOT NULL,
    events          TEXT NOT NULL,
    secret          TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'failing')),
    failing_since   TEXT,
    failure         TEXT
) STRICT;
CREATE TABLE webhook_event (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id  TEXT NOT NULL UNIQUE,
    type        TEXT NOT NULL,
    team_id     TEXT,
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL
) STRICT;
CREATE INDEX clip_by_app ON clip(app_bundle_id);
CREATE INDEX domain_association_by_host ON domain_association(host);
CREATE UNIQUE INDEX advanced_experience_url ON advanced_experience(url) WHERE removed_at IS NULL;
CREATE INDEX advanced_experience_by_host ON advanced_experience(host) WHERE removed_at IS NULL;
CREATE INDEX advanced_experience_by_clip ON advanced_experience(clip_bundle_id);
CREATE UNIQUE INDEX host_team_one_owner ON host_team(host) WHERE role = 'owner';
CREATE INDEX advanced_experience_by_image ON advanced_experience(header_image_sha256) WHERE header_image_sha256 IS NOT NULL;
CREATE INDEX asc_experience_sync_by_experience ON asc_experience_sync(experience_id);
CREATE INDEX webhook_delivery_pending ON webhook_delivery(endpoint_id, event_id) WHERE delivered_at IS NULL;
CREATE INDEX webhook_delivery_by_event ON webhook_delivery(event_id);
CREATE INDEX change_record_by_entity ON change_record (entity, entity_id, id);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('change_record',15);
INSERT INTO "sqlite_sequence" VALUES('advanced_experience',2);
INSERT INTO "sqlite_sequence" VALUES('api_token',1);
INSERT INTO "sqlite_sequence" VALUES('webhook_endpoint',1);
COMMIT;
