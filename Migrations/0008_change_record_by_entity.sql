-- An entity's change records in order (GET /v1/experiences/{id}/history, clipctl history).
CREATE INDEX change_record_by_entity ON change_record (entity, entity_id, id);
