-- When an experience is served (docs/rules.md#experiences-in-time): from live_from (inclusive) until
-- live_until (exclusive), either open (NULL). Kept in one fixed-width UTC form, 2027-06-01T00:00:00Z,
-- so that text order is time order.
ALTER TABLE advanced_experience ADD COLUMN live_from TEXT
    CHECK (live_from IS NULL OR (length(live_from) = 20 AND live_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'));
ALTER TABLE advanced_experience ADD COLUMN live_until TEXT
    CHECK (live_until IS NULL OR (length(live_until) = 20 AND live_until GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'));
