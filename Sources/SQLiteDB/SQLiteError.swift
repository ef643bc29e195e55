import CSQLite

/// An error reported by SQLite, with its primary and extended result codes
/// (https://sqlite.org/rescode.html) and the SQL that caused it, when there was one.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Primary result code: the low 8 bits of the extended code (e.g. 19 SQLITE_CONSTRAINT).
    public var resultCode: Int32 { extendedCode & 0xFF }
    /// Extended result code (e.g. 2067 SQLITE_CONSTRAINT_UNIQUE, 517 SQLITE_BUSY_SNAPSHOT).
    public let extendedCode: Int32
    public let message: String
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        "SQLite error \(extendedCode) (\(String(cString: sqlite3_errstr(extendedCode)))): \(message)"
    }

    /// The database is locked by another connection (SQLITE_BUSY or SQLITE_LOCKED, any extension).
    public var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }
    /// The statement was interrupted (a raised `StopSignal`); a transaction it was in rolled back.
    public var isInterrupted: Bool { resultCode == SQLITE_INTERRUPT }
    /// A UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool {
        extendedCode == ExtendedCode.constraintUnique || extendedCode == ExtendedCode.constraintPrimaryKey
    }
    /// A constraint failed (SQLITE_CONSTRAINT, any extension): with the default ON CONFLICT ABORT, only the failing
    /// statement is undone and the transaction goes on (https://sqlite.org/lang_conflict.html).
    public var isConstraintViolation: Bool { resultCode == SQLITE_CONSTRAINT }
    /// A FOREIGN KEY constraint failed.
    public var isForeignKeyViolation: Bool { extendedCode == ExtendedCode.constraintForeignKey }

    /// Extended result codes that are C macro expressions, which Swift cannot import
    /// (values from https://sqlite.org/rescode.html).
    public enum ExtendedCode {
        public static let constraintForeignKey: Int32 = 787
        public static let constraintPrimaryKey: Int32 = 1555
        public static let constraintUnique: Int32 = 2067
        public static let constraintCheck: Int32 = 275
        public static let constraintDatatype: Int32 = 3091
        public static let busySnapshot: Int32 = 517
    }
    /// A write to a database opened read-only or stored read-only (SQLITE_READONLY, any extension).
    public var isReadOnly: Bool { resultCode == SQLITE_READONLY }
    /// The disk is full (SQLITE_FULL: SQLite's report of ENOSPC on a write, https://sqlite.org/rescode.html#full).
    public var isDiskFull: Bool { resultCode == SQLITE_FULL }
    /// The file is not a database, or is damaged (SQLITE_NOTADB, SQLITE_CORRUPT).
    public var isNotADatabase: Bool { resultCode == SQLITE_NOTADB || resultCode == SQLITE_CORRUPT }
    /// The file cannot be opened or written (SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_IOERR).
    public var isAccessProblem: Bool {
        [SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_IOERR, SQLITE_AUTH].contains(resultCode)
    }
}
