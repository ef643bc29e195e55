-- App Store Connect in time (docs/schedules.md#app-store-connect): how long before an experience's liveFrom it is
-- pushed to App Store Connect, per linked clip (Apple's data takes hours to reach devices). 48 hours by default.
ALTER TABLE asc_clip_link ADD COLUMN lead_seconds INTEGER NOT NULL DEFAULT 172800 CHECK (lead_seconds BETWEEN 0 AND 2592000);

-- How far serve's scheduler has pushed App Store Connect's scheduled changes (docs/schedules.md#app-store-connect).
ALTER TABLE schedule_clock ADD COLUMN asc_swept_until TEXT CHECK (asc_swept_until IS NULL OR length(asc_swept_until) = 20);
UPDATE schedule_clock SET asc_swept_until = swept_until;

-- Each scheduled change the scheduler pushed to App Store Connect: what fell due when, and when the apply that carried it
-- ended (`asc status` lists them).
CREATE TABLE asc_scheduled_push (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    clip_bundle_id TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('create', 'remove', 'campaign')),
    experience_id INTEGER,
    name          TEXT NOT NULL,
    due_at        TEXT NOT NULL CHECK (length(due_at) = 20),
    pushed_at     TEXT NOT NULL CHECK (length(pushed_at) = 20)
) STRICT;
CREATE INDEX asc_scheduled_push_by_clip ON asc_scheduled_push(clip_bundle_id, id);
-- The scheduler asks which windows were set since its last push.
CREATE INDEX advanced_experience_by_window_set_at ON advanced_experience(window_set_at) WHERE window_set_at IS NOT NULL;
