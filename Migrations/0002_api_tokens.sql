-- API tokens (docs/rules.md#tenancy): the secret is never stored, only its SHA-256; team_id NULL = admin.
CREATE TABLE api_token (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT NOT NULL,
    team_id        TEXT REFERENCES team(id),
    secret_sha256  TEXT NOT NULL UNIQUE CHECK (length(secret_sha256) = 64),
    created_at     TEXT NOT NULL,
    last_used_at   TEXT,
    revoked_at     TEXT
) STRICT;
