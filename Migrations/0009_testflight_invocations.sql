-- TestFlight invocations (issue 28, docs/app-store-connect.md#testflight-invocations): per clip, the ordered
-- URLs (at most three: App Store Connect's limit per build) that `clipctl asc testflight apply` gives each
-- build's App Clip as its beta invocations. Each resolved to an active experience of the clip, or to the clip's
-- default experience, when it was chosen; titles are not stored: they are the experiences' at each apply.
CREATE TABLE testflight_invocation (
    clip_bundle_id  TEXT NOT NULL REFERENCES clip(bundle_id) ON DELETE CASCADE,
    position        INTEGER NOT NULL CHECK (position BETWEEN 1 AND 3),
    url             TEXT NOT NULL CHECK (url <> ''),
    PRIMARY KEY (clip_bundle_id, position),
    UNIQUE (clip_bundle_id, url)
) STRICT, WITHOUT ROWID;
