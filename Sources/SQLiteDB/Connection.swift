import CSQLite
import Glibc

/// One SQLite connection, set up the way this project wants every connection:
/// extended result codes, foreign keys on, double-quoted string literals off, defensive mode,
/// a busy timeout, and (for files) WAL with `synchronous=FULL` so that an acknowledged commit
/// survives power loss (https://sqlite.org/pragma.html#pragma_synchronous).
///
/// Not Sendable: use a connection from one thread (it is opened with SQLITE_OPEN_NOMUTEX).
public final class Connection {
    public struct Options: Sendable {
        /// Create the file if it does not exist.
        public var create = true
        public var readOnly = false
        /// How long a statement waits for another connection's lock before SQLITE_BUSY.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// WAL journal for file databases (readers never block the writer).
        public var walJournal = true
        /// When raised, this connection's work stops (see `StopSignal`).
        public var stop: StopSignal?
        public init() {}
    }

    private(set) var handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    private var isClosed = false
    /// The stop signal and the handlers' context, kept alive as long as the handle.
    private var stop: StopSignal?
    private var stopContext: UnsafeMutablePointer<csqlite_stop_context>?

    public init(path: String, options: Options = Options()) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if options.create && !options.readOnly { flags |= SQLITE_OPEN_CREATE }
        self.path = path
        handle = try Self.open(path, flags: flags)
        do {
            try setUp(options)
        } catch let error as SQLiteError
            where error.resultCode == SQLITE_CANTOPEN && Self.canOpenImmutable(path, readOnly: sqlite3_db_readonly(handle, "main") == 1)
        {
            // A WAL database SQLite could only open read-only, whose -shm it can neither open nor
            // create: a read-only directory or mount. https://sqlite.org/wal.html#readonly: such a
            // file can still be read when opened as immutable, which is sound only while nothing
            // writes it; no -wal file beside it means no connection is writing in WAL mode.
            closeAfterFailedSetUp()
            handle = try Self.open(
                "file:\(Self.uriPath(path))?immutable=1",
                flags: SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
            isClosed = false
            do { try setUp(options) } catch {
                closeAfterFailedSetUp()
                throw error
            }
        } catch {
            closeAfterFailedSetUp()
            throw error
        }
    }

    /// Process-wide SQLite settings, made once before the first connection opens. Memory
    /// statistics off: each of SQLite's allocations took and released a global mutex to count
    /// itself (perf, 100k-line import: lock and unlock 1.7% of the writing thread, sqlite3Malloc
    /// and sqlite3_free 12% of its instructions, callgrind).
    private static let configured: Void = { _ = csqlite_disable_memory_statistics() }()

    private static func open(_ name: String, flags: Int32) throws -> OpaquePointer {
        _ = configured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // https://sqlite.org/c3ref/open.html: a handle is returned even on failure; release it.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: rc, message: message)
        }
        return db
    }

    private func closeAfterFailedSetUp() {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        isClosed = true
        stopContext?.deallocate()
        stopContext = nil
        stop = nil
    }

    private static func canOpenImmutable(_ path: String, readOnly: Bool) -> Bool {
        guard readOnly, path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return false }
        var info = stat()
        return stat(path + "-wal", &info) != 0 || info.st_size == 0
    }

    /// A path as the path of a `file:` URI (https://sqlite.org/uri.html: `%`, `?` and `#` escaped).
    private static func uriPath(_ path: String) -> String {
        var escaped = ""
        for c in path.unicodeScalars {
            switch c {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(c)
            }
        }
        return escaped
    }

    /// True when the database cannot be written through this connection: opened read-only, or
    /// a file SQLite could only open for reading (permissions, a read-only mount, `chattr +i`).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    private func setUp(_ options: Options) throws {
        sqlite3_extended_result_codes(handle, 1)
        if let stop = options.stop {
            let context = UnsafeMutablePointer<csqlite_stop_context>.allocate(capacity: 1)
            context.initialize(to: csqlite_stop_context(stop: stop.flag, timeout_ms: options.busyTimeoutMilliseconds))
            self.stop = stop
            stopContext = context
            csqlite_stop_when_raised(handle, context)
        } else {
            sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
        }
        csqlite_disable_double_quoted_strings(handle)
        csqlite_enable_defensive(handle)
        // Fail early on a file that is not a database ("file is not a database", SQLITE_NOTADB),
        // rather than at the first real query.
        _ = try query("SELECT count(*) FROM sqlite_master")
        try execute("PRAGMA foreign_keys = ON")
        if options.walJournal && !isReadOnly && path != ":memory:" && !path.isEmpty {
            let mode = try query("PRAGMA journal_mode = WAL").first?.values.first
            guard mode == .text("wal") else {
                throw SQLiteError(extendedCode: SQLITE_ERROR, message: "could not switch \(path) to WAL journal mode")
            }
        }
        try execute("PRAGMA synchronous = FULL")
    }

    deinit { close() }

    /// Finalizes cached statements and closes the handle. Safe to call twice.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        stopContext?.deallocate()
        stopContext = nil
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            .withFallbackCode(rc)
    }

    /// A cached prepared statement for `sql` (SQLITE_PREPARE_PERSISTENT).
    func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one or more statements with no parameters and no results (schema, pragmas).
    public func executeScript(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql).withFallbackCode(rc)
        }
    }

    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(parameters)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs one query and returns every row.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql, parameters) { rows.append($0) }
        return rows
    }

    /// Runs one query and calls `body` for each row as it is stepped (constant memory).
    public func forEachRow(_ sql: String, _ parameters: [SQLValue] = [], _ body: (Row) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(parameters)
        defer { statement.reset() }
        while try statement.step() {
            try body(statement.currentRow())
        }
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True while a transaction is open. https://sqlite.org/c3ref/get_autocommit.html: "The only
    /// way to find out whether SQLite automatically rolled back the transaction after an error".
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a write transaction. `BEGIN IMMEDIATE` takes the write lock first, so the
    /// transaction can never fail later with SQLITE_BUSY_SNAPSHOT on upgrade from a read.
    /// Commits when `body` returns, rolls back when it throws, and rethrows the first error.
    /// Inside an open transaction, `body` joins it (the outer transaction commits or rolls back).
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try body() }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInsideTransaction { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a read transaction: one consistent snapshot for all its queries.
    /// Inside an open transaction, `body` joins it.
    public func read<T>(_ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try body() }
        try execute("BEGIN DEFERRED")
        defer { if isInsideTransaction { _ = try? execute("ROLLBACK") } }
        return try body()
    }

    /// The SQLite library version, e.g. "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

extension SQLiteError {
    /// sqlite3_extended_errcode can be 0 after a failed open; keep the call's own code then.
    func withFallbackCode(_ rc: Int32) -> SQLiteError {
        extendedCode == SQLITE_OK ? SQLiteError(extendedCode: rc, message: message, sql: sql) : self
    }
}

@available(*, unavailable)
extension Connection: Sendable {}
