-- Experiences in time, second part (docs/schedules.md): campaigns, and the scheduler's record of what it applied.

-- When an experience's window was last set (the second of the write, in the instant form): a window edge at or
-- before it happened by that write, not by the clock, so the scheduler announces only the edges after it.
ALTER TABLE advanced_experience ADD COLUMN window_set_at TEXT;
UPDATE advanced_experience SET window_set_at = substr(updated_at, 1, 19) || 'Z'
    WHERE live_from IS NOT NULL OR live_until IS NOT NULL;
CREATE TRIGGER advanced_experience_window_inserted AFTER INSERT ON advanced_experience
    WHEN new.live_from IS NOT NULL OR new.live_until IS NOT NULL
BEGIN
    UPDATE advanced_experience SET window_set_at = substr(new.updated_at, 1, 19) || 'Z' WHERE id = new.id;
END;
CREATE TRIGGER advanced_experience_window_updated AFTER UPDATE OF live_from, live_until ON advanced_experience
    WHEN old.live_from IS NOT new.live_from OR old.live_until IS NOT new.live_until
BEGIN
    UPDATE advanced_experience SET window_set_at = substr(new.updated_at, 1, 19) || 'Z' WHERE id = new.id;
END;
-- The scheduler's sweep reads the edges of a span of time.
CREATE INDEX advanced_experience_by_live_from ON advanced_experience(live_from) WHERE live_from IS NOT NULL;
CREATE INDEX advanced_experience_by_live_until ON advanced_experience(live_until) WHERE live_until IS NOT NULL;

-- A named change to some of a team's experiences for a while (ClipCore's Campaign).
CREATE TABLE campaign (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id     TEXT NOT NULL REFERENCES team(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 63),
    selector    TEXT,
    experiences TEXT NOT NULL CHECK (json_valid(experiences)),
    changes     TEXT NOT NULL CHECK (json_valid(changes)),
    restore     TEXT CHECK (restore IS NULL OR json_valid(restore)),
    starts_at   TEXT NOT NULL CHECK (length(starts_at) = 20),
    ends_at     TEXT CHECK (ends_at IS NULL OR (length(ends_at) = 20 AND ends_at > starts_at)),
    state       TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'ended', 'cancelled')),
    started_at  TEXT,
    ended_at    TEXT,
    created_at  TEXT NOT NULL,
    UNIQUE (team_id, name)
) STRICT;
CREATE INDEX campaign_by_state ON campaign(state) WHERE state IN ('scheduled', 'running');

-- Each experience a running or ended campaign changed: its members before the start, and after it (a member that
-- no longer has the campaign's value at the end was changed meanwhile, and is kept).
CREATE TABLE campaign_experience (
    campaign_id   INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,
    experience_id INTEGER NOT NULL REFERENCES advanced_experience(id),
    before        TEXT NOT NULL CHECK (json_valid(before)),
    during        TEXT NOT NULL CHECK (json_valid(during)),
    outcome       TEXT NOT NULL CHECK (outcome IN ('applied', 'reverted', 'kept', 'removed')),
    PRIMARY KEY (campaign_id, experience_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX campaign_experience_by_experience ON campaign_experience(experience_id);

-- Every flip applied (ClipCore's ScheduledFlip), once: the unique index refuses a second.
CREATE TABLE schedule_flip (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL CHECK (kind IN ('experience.live', 'experience.ended', 'campaign.start', 'campaign.end')),
    subject     INTEGER NOT NULL,
    team_id     TEXT,
    name        TEXT NOT NULL,
    due_at      TEXT NOT NULL CHECK (length(due_at) = 20),
    applied_at  TEXT NOT NULL CHECK (length(applied_at) = 20),
    by          TEXT NOT NULL CHECK (by IN ('schedule', 'hand')),
    detail      TEXT CHECK (detail IS NULL OR json_valid(detail))
) STRICT;
CREATE UNIQUE INDEX schedule_flip_once ON schedule_flip(kind, subject, due_at);

-- How far the scheduler has applied what fell due: the next sweep takes the edges after this moment.
CREATE TABLE schedule_clock (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    swept_until TEXT NOT NULL CHECK (length(swept_until) = 20)
) STRICT;
INSERT INTO schedule_clock(id, swept_until) VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
