-- The audit form each change record keeps its before and after in (ClipStore/AuditForm.swift). The
-- records written before this migration are form 1, what they hold: adding the column rewrites none.
ALTER TABLE change_record ADD COLUMN form INTEGER NOT NULL DEFAULT 1 CHECK (form >= 1);
