public import ClipStore
import ClipWire
import StrictJSON

/// `clipctl backup` and `restore`: a local database's file itself, copied out or replaced (`Registry.backup`,
/// `Registry.restore`); no server does either.
public enum DatabaseFile {
    /// `backup FILE` of the database at `database`, which must exist: opening a registry creates a missing database,
    /// so a mistyped `--db` would back up an empty one. `registry` opens it.
    public static func backup(database: String, to path: String, registry: () throws -> Registry, json: Bool, printer: Printer) throws {
        if path.isEmpty { throw CommandUsageError("backup takes the name of the file to create") }
        guard DurableFiles.exists(database) else { throw OperationError.notFound("no database at \(database)") }
        try registry().backup(to: path)
        if json {
            printer.line(JSONWriter.string(CommandJSON.backup(path), pretty: true))
        } else {
            printer.line("backed up \(database) to \(path)")
        }
    }

    /// `restore FILE` over the database at `database`, which is not opened as a registry first: the database
    /// replaced need not open (or migrate) as one. `actor` names who did it in the change records.
    public static func restore(database: String, from path: String, actor: String, json: Bool, printer: Printer) throws {
        if path.isEmpty { throw CommandUsageError("restore takes the name of a file written by clipctl backup") }
        let existed = DurableFiles.exists(database)
        let report = try Registry.restore(database: database, from: path, actor: actor)
        if !existed { printer.err("created \(database)\n") }
        if json {
            printer.line(
                JSONWriter.string(
                    CommandJSON.restored(
                        from: path, migrated: report.migrated, replacedCopy: report.replacedCopy, tokensKept: report.tokensKept),
                    pretty: true))
            return
        }
        printer.line("restored \(database) from \(path)")
        printer.line("  the content replaced is kept in \(report.replacedCopy) (restore it to undo; delete it when no longer needed)")
        printer.line("  API tokens kept as they are: \(report.tokensKept) (tokens are the installation's, not the backup's)")
        for migration in report.migrated.prefix(Printer.listedAtMost) { printer.line("  applied migration \(migration)") }
        if report.migrated.count > Printer.listedAtMost { printer.line("  … and \(report.migrated.count - Printer.listedAtMost) more") }
    }
}
