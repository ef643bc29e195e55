-- Webhooks (README "Webhooks", docs/architecture.md#webhooks): endpoints, the outbox of events
-- written in the transaction of the change they describe, and one delivery per (event, endpoint).

-- An endpoint: team_id NULL = an administrator's, which may receive every team's events.
-- The secret is kept as it was given out (whsec_ + base 64): HMAC needs the key itself.
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

-- An event, once: its Standard Webhooks message id (webhook-id), type, the team it belongs to
-- (NULL: no team's alone), and payload (the JSON body sent).
CREATE TABLE webhook_event (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id  TEXT NOT NULL UNIQUE,
    type        TEXT NOT NULL,
    team_id     TEXT,
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL
) STRICT;

-- An event to send to an endpoint. Sent in event order per endpoint; delivered_at only after a 2xx.
-- next_attempt_at: milliseconds since 1970.
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
-- The worker's question: each endpoint's oldest delivery not yet made.
CREATE INDEX webhook_delivery_pending ON webhook_delivery(endpoint_id, event_id) WHERE delivered_at IS NULL;
CREATE INDEX webhook_delivery_by_event ON webhook_delivery(event_id);
