-- Opt-in per host: the AASA's applinks also cover the host's active experience URLs for the
-- clips' full apps (docs/rules.md#applinks-generated-from-experiences), so the installed app opens the links its App Clip is invoked with.
ALTER TABLE applinks_host ADD COLUMN from_experiences INTEGER NOT NULL DEFAULT 0 CHECK (from_experiences IN (0, 1));
