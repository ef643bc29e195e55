import AppleFormats
import ClipCore
import SQLiteDB

/// The AASA invariant: every host's `apple-app-site-association` is at most 128 KB ("the
/// uncompressed size … must be no greater than 128 KB", Apple's "Supporting associated
/// domains") and passes the lint with no error, after every write, whichever write changed it.
///
/// It holds by construction, not by each write remembering: triggers (TEMP, so per connection
/// and not part of the schema) note the host of every row an AASA is made of that a write
/// inserts, updates or deletes, in `temp.aasa_touched`; `write` then checks each host that a
/// row was inserted or updated on once before it commits (`checkAASA`) and rolls the whole write
/// back if one fails. A deletion only takes from a file that passed, and is not checked, so that
/// removing is never refused; it is noted all the same, because the host's AASA changed
/// (`aasaChangedHosts`, which write outcomes report). A new write path, or a new way to change
/// these tables, is checked without a line of its own. The rows are those `aasaContent` reads:
/// associations (`appclips`), applinks rules and host settings, webcredentials, and, on a host
/// that generates applinks from its experiences, the experiences.
extension Registry {
    static let aasaTracking: String = {
        // No UNIQUE constraint: inside a trigger, the conflict clause of the statement that fired
        // it (an upsert's) would override an OR IGNORE (https://sqlite.org/lang_createtrigger.html).
        var sql =
            "CREATE TEMP TABLE IF NOT EXISTS aasa_touched(host TEXT NOT NULL, checked INTEGER NOT NULL);\n"
            + "CREATE INDEX IF NOT EXISTS temp.aasa_touched_host ON aasa_touched(host);\n"
        // (table, the condition under which a row of it is part of its host's AASA)
        let tables: [(String, (String) -> String)] = [
            ("domain_association", { _ in "1" }),
            ("applinks_details", { _ in "1" }),
            ("applinks_host", { _ in "1" }),
            ("webcredentials", { _ in "1" }),
            (
                "advanced_experience",
                { row in "EXISTS (SELECT 1 FROM main.applinks_host h WHERE h.host = \(row).host AND h.from_experiences = 1)" }
            ),
        ]
        for (table, isPart) in tables {
            // (event, the rows it changes, whether the host is checked: 1 for rows a file gains)
            for (event, rows, checked) in [("INSERT", ["NEW"], 1), ("UPDATE", ["OLD", "NEW"], 1), ("DELETE", ["OLD"], 0)] {
                for row in rows {
                    // The conditions are the trigger's WHEN and the body a plain VALUES insert: an
                    // `INSERT … SELECT` that reads aasa_touched while it inserts into it is run through
                    // a temporary table SQLite opens and closes for every row (perf, 100k-line import:
                    // sqlite3BtreeOpen/Close under each experience INSERT, 6% of the import).
                    sql +=
                        "CREATE TEMP TRIGGER IF NOT EXISTS aasa_\(table)_\(event.lowercased())_\(row.lowercased())"
                        + " AFTER \(event) ON main.\(table)"
                        + " WHEN \(isPart(row))"
                        + " AND NOT EXISTS (SELECT 1 FROM aasa_touched t WHERE t.host = \(row).host AND t.checked >= \(checked))"
                        + " BEGIN INSERT INTO aasa_touched(host, checked) VALUES (\(row).host, \(checked)); END;\n"
                }
            }
        }
        return sql
    }()

    /// Before a write's transaction (a table created inside one that rolls back would be gone):
    /// installs the tracking on this connection once.
    func trackAASAChanges() throws {
        guard !tracksAASAChanges, !db.isInsideTransaction, !db.isReadOnly else { return }
        // The triggers make every write to these tables a statement that may write several rows,
        // so inside a transaction SQLite opens a statement journal for each one and copies every
        // page it first touches there (https://sqlite.org/tempfiles.html#statement_journal_files).
        // By default that journal spills to a temporary file past 64 KiB and stays one for the rest
        // of the transaction: a 100k-line import wrote 1.4 GB to /var/tmp (perf: pwrite 6% of the
        // import, 358,226 calls). In memory it is truncated at each statement's end. Set here, before
        // the first temporary object: changing temp_store drops every temporary table and trigger.
        try db.execute("PRAGMA temp_store = MEMORY")
        try db.executeScript(Self.aasaTracking)
        tracksAASAChanges = true
    }

    /// Inside a write, at its end: checks every host whose AASA rows the write changed, and
    /// forgets them (a rolled-back write forgets them with its rows).
    func checkTouchedAASA() throws {
        let hosts = try db.query("SELECT DISTINCT host FROM aasa_touched WHERE checked = 1 ORDER BY host").map { try $0.string("host") }
        for host in hosts { try checkAASA(host) }
        try db.execute("DELETE FROM aasa_touched")
    }

    /// Inside a write: the hosts whose AASA it has changed so far (added to, changed or taken from).
    func aasaChangedHosts() throws -> [String] {
        try db.query("SELECT DISTINCT host FROM aasa_touched ORDER BY host").map { try $0.string("host") }
    }

    /// Refuses a change that would make the host's AASA exceed 128 KB or fail the lint with an
    /// error (the registry lints every AASA it generates).
    func checkAASA(_ host: String) throws {
        guard let content = try configuredContent(host) else { return }
        let bytes: [UInt8]
        do { bytes = try AASAGenerator.bytes(content) } catch { throw RegistryError.unprocessable(error.description) }
        let errors = AASALinter.lint(bytes).filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw RegistryError.unprocessable(
                "the AASA of \(host) would fail the lint: " + errors.map(\.description).joined(separator: "; "))
        }
    }
}
