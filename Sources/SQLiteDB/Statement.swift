import CSQLite

/// A prepared statement. Owned by one `Connection`, finalized in `deinit`; not Sendable because
/// a statement may only be used on its connection's thread.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    private unowned let connection: Connection
    public let columnNames: [String]
    /// The bytes of the text parameters bound last, read by SQLite in place until the next `bind`.
    private let textBytes = ParameterBytes()

    init(connection: Connection, sql: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        // The tail points into the C string, so it is read inside withCString, while the
        // string is alive (AddressSanitizer caught a read after the temporary was freed).
        let (rc, hasTrailingSQL) = sql.withCString { text -> (Int32, Bool) in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(connection.handle, text, -1, flags, &statement, &tail)
            let trailing = tail.map { !String(cString: $0).allSatisfy(\.isWhitespace) } ?? false
            return (rc, trailing)
        }
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, sql: sql)
        }
        // One statement per call: trailing SQL would silently be ignored otherwise.
        if hasTrailingSQL {
            sqlite3_finalize(statement)
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "more than one statement in one call", sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
        self.columnNames = (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ parameters: [SQLValue]) throws {
        // No sqlite3_clear_bindings: the count check below means every parameter is bound anew.
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == parameters.count else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE,
                message: "statement expects \(expected) parameters, got \(parameters.count)", sql: sql)
        }
        // Every parameter is bound below, so the texts bound last (in textBytes) are all replaced.
        var textCount = 0
        for case .text(let s) in parameters { textCount += s.utf8.count }
        let keepsText = textBytes.reset(capacity: textCount)
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .real(let d): rc = sqlite3_bind_double(handle, index, d)
            case .text(let s): rc = bindText(s, at: index, inPlace: keepsText)
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
        }
    }

    /// Binds the string's UTF-8 bytes with their length: copied into `textBytes`, which SQLite
    /// reads in place (`inPlace`), or else copied by SQLite (SQLITE_TRANSIENT). Passing the
    /// `String` as a C string instead made a NUL-terminated copy of each one (`String.utf8CString`:
    /// perf, a 100k-line import, a fifth of the binding time).
    private func bindText(_ text: String, at index: Int32, inPlace: Bool) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            // An empty buffer may have no address, and a null pointer would bind NULL, not "".
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
            }
            if inPlace { return sqlite3_bind_text(handle, index, textBytes.append(utf8), Int32(utf8.count), nil) }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(handle, index, $0, Int32(utf8.count), csqlite_transient())
            }
        }
    }

    /// Steps once: true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    func currentRow() -> Row {
        var values: [SQLValue] = []
        values.reserveCapacity(columnNames.count)
        for i in 0..<Int32(columnNames.count) {
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, i)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, i)))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, i))
                let text =
                    sqlite3_column_text(handle, i).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    } ?? ""
                values.append(.text(text))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, i))
                let bytes =
                    sqlite3_column_blob(handle, i).map {
                        Array(UnsafeRawBufferPointer(start: $0, count: count))
                    } ?? []
                values.append(.blob(bytes))
            default: values.append(.null)
            }
        }
        return Row(columns: columnNames, values: values)
    }

    func reset() { sqlite3_reset(handle) }
}

@available(*, unavailable)
extension Statement: Sendable {}
