import ClipCore
import SQLiteDB
import StrictJSON

/// An import's experiences are inserted `importChunkRows` at a time, one multi-row `INSERT` per
/// table for a chunk. Profile (perf, 100k-line import, writing thread): the experience insert was
/// 48% and the per-statement work a good share of it: the statement journal's copy of each page
/// a statement first touches and its end (6%), the `CHECK (action IN (…))` list built again for
/// each statement (`OpenEphemeral`, 4%; SQLite builds it once per statement run), the bindings'
/// and steps' overhead. A chunk shares all of that.
///
/// A chunk any row of which a constraint refuses is undone whole by SQLite (ON CONFLICT ABORT
/// undoes the statement, https://sqlite.org/lang_conflict.html) and then inserted row by row, so
/// every bad line is named with the same error as when every line was its own statement.
extension Registry {
    static let importChunkRows = 64

    /// An import's line whose checks before its row passed (`prepareInsert`), waiting for its chunk.
    struct PreparedExperience {
        var line: Int
        var draft: AdvancedExperience
        /// The clip as stored.
        var clip: AppID
        /// What `prepareInsert` created for it.
        var notes: [WriteNote]
        /// Its change record as written ahead, used when the row gets the id it was written for.
        var changeRecord: PreparedChangeRecord?
    }

    /// The `after` JSON text of an imported experience's change record (`AuditForm.experience`), written
    /// before its row for the id and clip it is expected to be stored with (perf, 100k-line import:
    /// building it on the writing thread was 14% of that thread's instructions). The writer uses
    /// it only when the row got that id and clip (`text(for:)`).
    struct PreparedChangeRecord: Sendable {
        let id: Int64
        let clip: AppID
        let text: String

        init(_ draft: AdvancedExperience, id: Int64, at: String) {
            self.id = id
            clip = draft.clip
            text = JSONWriter.string(AuditForm.experience(Registry.saved(draft, id: id, clip: draft.clip, at: at)))
        }

        /// The text for `saved` (the experience as stored), when it is the one prepared.
        func text(for saved: AdvancedExperience) -> String? {
            saved.id == id && saved.clip == clip ? text : nil
        }
    }

    /// The id AUTOINCREMENT gives the next experience: one more than the largest the table has
    /// ever had, its sqlite_sequence entry, or than its largest id (https://sqlite.org/autoinc.html).
    func nextExperienceID() throws -> Int64 {
        let row = try db.query(
            """
            SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'advanced_experience'), 0),
                       coalesce((SELECT max(id) FROM advanced_experience), 0)) + 1 AS next
            """
        ).first
        return Int64(try row?.int("next") ?? 1)
    }

    /// Inserts exactly `importChunkRows` prepared experiences, their localizations and change
    /// records, in line order; nil (and nothing written) when a constraint refused a row, which
    /// the caller then finds by inserting the rows one by one.
    func insertChunk(_ chunk: [PreparedExperience]) throws -> [AdvancedExperience]? {
        precondition(chunk.count == Self.importChunkRows)
        let t = timestamp()
        var values: [SQLValue] = []
        values.reserveCapacity(chunk.count * Self.experienceInsertColumnCount)
        for row in chunk { values += experienceValues(row.draft, at: t) }
        do {
            try db.execute(
                "INSERT INTO \(Self.experienceInsertColumns) VALUES " + Self.chunkPlaceholders(columns: Self.experienceInsertColumnCount),
                values)
        } catch let error as SQLiteError where error.isConstraintViolation {
            return nil
        }
        // AUTOINCREMENT gives each new row one more than the largest rowid the table ever had
        // (https://sqlite.org/autoinc.html): the rows of one statement have consecutive ids.
        let firstID = db.lastInsertRowID - Int64(chunk.count) + 1
        let saved = chunk.enumerated().map { i, row in Self.saved(row.draft, id: firstID + Int64(i), clip: row.clip, at: t) }
        var localizations: [SQLValue] = []
        for experience in saved {
            for (language, card) in experience.localizations.sorted(by: { $0.key < $1.key }) {
                localizations += [.integer(experience.id), .text(language.tag), .text(card.title), .text(card.subtitle)]
            }
        }
        try insertRows(Self.localizationColumns, columns: 4, localizations)
        var labels: [SQLValue] = []
        for experience in saved {
            for key in experience.labels.keys.sorted() { labels += [.integer(experience.id), .text(key), .text(experience.labels[key]!)] }
        }
        try insertRows(Self.labelColumns, columns: 3, labels)
        try recordChanges(
            entity: .experience, action: .create,
            zip(chunk, saved).map { row, experience in
                (String(experience.id), row.changeRecord?.text(for: experience) ?? JSONWriter.string(AuditForm.experience(experience)))
            },
            objects: { saved.map(AuditForm.experience) })
        return saved
    }

    /// `(?, …), (?, …), …`: `importChunkRows` rows of `columns` parameters.
    static func chunkPlaceholders(columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: importChunkRows).joined(separator: ", ")
    }

    /// Inserts rows of `columns` values each (`values`, row after row) into `table` ("name(column, …)"):
    /// `importChunkRows` rows per statement, the rest one statement each (one cached statement for
    /// each shape, whatever the count).
    func insertRows(_ table: String, columns: Int, _ values: [SQLValue]) throws {
        let chunkValues = columns * Self.importChunkRows
        var start = 0
        while values.count - start >= chunkValues {
            try db.execute(
                "INSERT INTO \(table) VALUES " + Self.chunkPlaceholders(columns: columns), Array(values[start..<start + chunkValues]))
            start += chunkValues
        }
        let one = "INSERT INTO \(table) VALUES (" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        while start < values.count {
            try db.execute(one, Array(values[start..<start + columns]))
            start += columns
        }
    }
}
