-- Header images a team uploaded (POST /v1/images): the team may name them by hash before any of its
-- experiences uses them (Registry.checkImage). Images a team only uses need no row here.
CREATE TABLE team_header_image (
    team_id     TEXT NOT NULL,
    sha256      TEXT NOT NULL REFERENCES header_image(sha256),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, sha256)
) STRICT, WITHOUT ROWID;
