-- An experience's labels (docs/sheets.md#labels): key → value pairs, at most one value per key. The
-- selector index answers "which experiences have city=paris" without reading the experiences.
CREATE TABLE experience_label (
    experience_id  INTEGER NOT NULL REFERENCES advanced_experience(id) ON DELETE CASCADE,
    key            TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 63 AND key = lower(key)),
    value          TEXT NOT NULL CHECK (length(value) >= 1),
    PRIMARY KEY (experience_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX experience_label_selector ON experience_label(key, value, experience_id);
