import CSQLite

/// The current row of a statement being stepped, read column by column in place: integers, and
/// text as a pointer into SQLite's own buffer (sqlite.org/c3ref/column_blob.html: valid until the
/// next step or reset; the cursor must not outlive the call). For scans of a million rows, where a `Row` of `SQLValue`s (an array and a
/// String per column) costs more than SQLite's own work. Only usable inside `forEachRowInPlace`.
public struct ColumnCursor {
    let handle: OpaquePointer

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's text (UTF-8, as stored), or nil when it is NULL. The bytes are valid only
    /// during the call that received this cursor.
    public func text(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        // text before bytes: sqlite.org/c3ref/column_blob.html ("the safest policy").
        let start = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let start else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: start, count: count)
    }
}

extension Connection {
    /// `forEachRow` without building a `Row`: `body` reads the columns it needs from the cursor.
    public func forEachRowInPlace(_ sql: String, _ parameters: [SQLValue] = [], _ body: (ColumnCursor) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(parameters)
        defer { statement.reset() }
        let cursor = ColumnCursor(handle: statement.handle)
        while try statement.step() {
            try body(cursor)
        }
    }
}
