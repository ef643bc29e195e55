-- An operator's acknowledgement of a doctor rule over a scope of experiences
-- (docs/aasa-tools.md#acknowledged-findings): the rule's findings there stay out of the report.
-- scope is a selector's canonical text (ExperienceSelector.text); team_id NULL = an administrator's.
CREATE TABLE doctor_acknowledgement (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    rule        TEXT NOT NULL CHECK (length(rule) BETWEEN 1 AND 63),
    scope       TEXT NOT NULL CHECK (length(scope) >= 1),
    team_id     TEXT REFERENCES team(id),
    note        TEXT,
    created_at  TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX doctor_acknowledgement_once ON doctor_acknowledgement(rule, scope, coalesce(team_id, ''));
