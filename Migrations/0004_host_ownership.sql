-- Hosts belong to teams (docs/rules.md#host-ownership; ClipCore/HostOwnership.swift states the rule). A host nobody
-- holds is taken by the first team that puts something on it; an administrator can give it to a
-- team (claim) or let other teams share it (share).
CREATE TABLE host_team (
    host        TEXT NOT NULL,
    team_id     TEXT NOT NULL REFERENCES team(id),
    role        TEXT NOT NULL CHECK (role IN ('owner', 'shared')),
    origin      TEXT NOT NULL CHECK (origin IN ('first-use', 'claim', 'share', 'migration')),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (host, team_id)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX host_team_one_owner ON host_team(host) WHERE role = 'owner';

-- Existing data keeps who may write where: a host used by one team becomes that team's; a host
-- that several teams already use stays shared by all of them (no owner is chosen for them), and
-- `clipctl doctor` reports it until an administrator confirms or claims it.
WITH uses(host, team_id, at) AS (
    SELECT d.host, a.team_id, d.created_at FROM domain_association d
        JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
    UNION ALL
    SELECT e.host, a.team_id, e.created_at FROM advanced_experience e
        JOIN clip c ON c.bundle_id = e.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
        WHERE e.removed_at IS NULL
    UNION ALL
    SELECT x.host, a.team_id, x.updated_at FROM applinks_details x JOIN app a ON a.bundle_id = x.app_bundle_id
    UNION ALL
    SELECT w.host, a.team_id, w.created_at FROM webcredentials w JOIN app a ON a.bundle_id = w.app_bundle_id
),
teams_per_host(host, n) AS (SELECT host, count(DISTINCT team_id) FROM uses GROUP BY host)
INSERT INTO host_team(host, team_id, role, origin, created_at)
SELECT u.host, u.team_id,
       CASE WHEN t.n = 1 THEN 'owner' ELSE 'shared' END,
       CASE WHEN t.n = 1 THEN 'first-use' ELSE 'migration' END,
       min(u.at)
FROM uses u JOIN teams_per_host t ON t.host = u.host
GROUP BY u.host, u.team_id;

-- A team may name a stored header image only when it already uses it (Registry.checkImage):
-- that lookup, by image, on every write that names one.
CREATE INDEX advanced_experience_by_image ON advanced_experience(header_image_sha256) WHERE header_image_sha256 IS NOT NULL;
