-- A campaign pushed ahead to App Store Connect (docs/schedules.md#app-store-connect): its start and its end reach App
-- Store Connect the clip's lead before their times, so that devices show its card from its start; 0: at its times.
ALTER TABLE campaign ADD COLUMN push_ahead INTEGER NOT NULL DEFAULT 0 CHECK (push_ahead IN (0, 1));
