-- The kill switch (docs/schedules.md#app-store-connect): when an experience was last deactivated, activated or removed
-- (the second of the write, in the instant form). serve's scheduler pushes such a change of a linked clip to App Store
-- Connect at once, as it pushes a window's edge.
ALTER TABLE advanced_experience ADD COLUMN status_set_at TEXT;
CREATE TRIGGER advanced_experience_status_updated AFTER UPDATE OF status, removed_at ON advanced_experience
    WHEN old.status IS NOT new.status OR old.removed_at IS NOT new.removed_at
BEGIN
    UPDATE advanced_experience SET status_set_at = substr(new.updated_at, 1, 19) || 'Z' WHERE id = new.id;
END;
CREATE INDEX advanced_experience_by_status_set_at ON advanced_experience(status_set_at) WHERE status_set_at IS NOT NULL;
