import AppleFormats
public import ClipCore
public import DoctorAndPublish
import ClipStore
import ClipWire
import FileFormats
import Foundation
import StrictJSON

/// `clipctl doctor`: the registry read in bulk (`BulkRead.records`: `GET /v1/bulk` page after page, on the database or
/// from a server), then examined here (`Doctor`), so both ways give the same report.
public enum DoctorCommand {
    /// Prints the findings, those of `more` (App Store Connect's, on a database) after the registry's; exit 1 on an
    /// error (`CommandExitStatus`), since warnings are advice.
    /// `all`: every finding on its own lines; otherwise a rule with more than `examples` findings prints a few of
    /// them and its count. `fixesFile`: every finding's fix, one command a line, written there (a new file).
    /// `acknowledged`: list the acknowledgements (`DoctorAcknowledgementList`), each with the findings it quiets, instead
    /// of the report; otherwise the findings they quiet are counted in one line, not shown.
    /// `callerOptions`: the `--db` or `--server` the command was given, which each fix carries (never a token: a secret).
    public static func run(
        host: String?, json: Bool, all: Bool = false, fixesFile: String? = nil, acknowledged: Bool = false,
        callerOptions: [String] = [], runner: OperationRunner, more: () throws -> [Doctor.Finding], printer: Printer
    ) throws {
        var snapshot = Doctor.Snapshot()
        snapshot.now = Instant(seconds: Int64(Date().timeIntervalSince1970.rounded(.down)))
        try BulkRead.records(host: host, run: runner, each: { snapshot.add($0) })
        let acknowledgements = try DoctorAcknowledgementList.Output(json: try runner(DoctorAcknowledgementList.binding, Arguments()).json)
        let examined = (Doctor.examine(snapshot) + (try more())).map { withCallerOptions($0, callerOptions) }
        let split = Doctor.acknowledge(examined, acknowledgements.items, experiences: snapshot.experiences)
        let findings = split.shown
        if acknowledged { return presentAcknowledged(split, json: json, printer) }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let quiet = split.quieted.reduce(0) { $0 + $1.findings.count }
        if let fixesFile { try writeFixes(findings, to: fixesFile) }
        if json {
            printer.line(JSONWriter.string(DoctorJSON.report(findings, acknowledgedNotShown: quiet > 0 ? quiet : nil), pretty: true))
        } else {
            for group in Doctor.groups(findings) { present(group, all: all, fixesFile: fixesFile, printer) }
            printer.line(findings.isEmpty ? "no problems found" : "\(errors) error(s), \(warnings) warning(s)")
            if quiet > 0 { printer.line("\(quiet) acknowledged finding(s) not shown (doctor --acknowledged lists them)") }
        }
        if errors > 0 { throw CommandVerdict.negative() }
    }

    /// The finding with its fix, when it is a command, run where the doctor ran (`clipctl --db FILE update …`).
    static func withCallerOptions(_ f: Doctor.Finding, _ options: [String]) -> Doctor.Finding {
        let prefix = "clipctl "
        guard !options.isEmpty, let fix = f.fix, fix.hasPrefix(prefix) else { return f }
        return Doctor.Finding(
            severity: f.severity, code: f.code, subject: f.subject, message: f.message,
            fix: prefix + Shell.command(options) + " " + fix.dropFirst(prefix.count))
    }

    /// `doctor --acknowledged`: each acknowledgement, who it is for, and how many findings it quiets, with a few of them.
    static func presentAcknowledged(_ split: Doctor.Acknowledged, json: Bool, _ printer: Printer) {
        if json {
            let report = DoctorJSON.report(split.shown, acknowledged: split.quieted.map { ($0.acknowledgement, $0.findings) })
            return printer.line(JSONWriter.string(report, pretty: true))
        }
        if split.quieted.isEmpty { return printer.line("no acknowledgements (doctor ack RULE --label KEY=VALUE makes one)") }
        for (a, quiet) in split.quieted {
            let scope = a.team.map { " (team \($0.rawValue))" } ?? ""
            printer.line("\(a.id)  \(a.rule)  \(a.scope.text)\(scope)  quiets \(quiet.count) finding(s)  since \(a.createdAt)")
            if let note = a.note { printer.line("    note: \(note)") }
            for f in quiet.prefix(examples) { printer.line("    \(f.subject): \(f.message)") }
            if quiet.count > examples { printer.line("    … and \(quiet.count - examples) more (--json lists them)") }
        }
    }

    /// Findings of a rule shown one by one up to this many; past it, this many examples and the count.
    static let examples = 3

    static func present(_ group: Doctor.Group, all: Bool, fixesFile: String?, _ printer: Printer) {
        let fixes = group.fixes
        guard !all, group.findings.count > examples else {
            for f in group.findings {
                printer.line("\(f.severity.rawValue) \(f.code) \(f.subject): \(f.message)")
                if let fix = f.fix { printer.line("    fix: \(fix)") }
            }
            return
        }
        printer.line("\(group.severity.rawValue) \(group.code): \(group.findings.count) findings, such as")
        for f in group.findings.prefix(examples) { printer.line("  \(f.subject): \(f.message)") }
        printer.line("  … and \(group.findings.count - examples) more (--all or --json lists them)")
        switch fixes.count {
        case 0: break
        case 1: printer.line("    fix: \(fixes[0])")
        default:
            if let fixesFile {
                printer.line("    fix: \(fixes.count) commands, written to \(fixesFile) with the others")
            } else {
                printer.line("    fix: \(fixes[0])")
                printer.line("    … and \(fixes.count - 1) more fixes: --fixes FILE writes them all, one command a line")
            }
        }
    }

    /// Each finding's fix once, under a comment naming its rule and subject; refuses a file that exists.
    static func writeFixes(_ findings: [Doctor.Finding], to path: String) throws {
        var text = "# clipctl doctor: one fix a finding; read each before running it\n"
        var written: Set<String> = []
        for f in findings {
            guard let fix = f.fix, written.insert(fix).inserted else { continue }
            // A fix that is advice, not a command, is a comment: the file runs through sh as it is.
            text += "# \(f.severity.rawValue) \(f.code) \(f.subject)\n" + (fix.hasPrefix("clipctl ") ? fix : "# fix: \(fix)") + "\n"
        }
        // O_EXCL with O_NOFOLLOW: a new file, never one that exists, a link (dangling or not) or a FIFO's reader.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw CommandUsageError("--fixes: \(path) exists; give a new file") }
            throw OperationError.notWritten("--fixes: cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard count == bytes.count else { throw OperationError.notWritten("--fixes: cannot write \(path)") }
    }
}

/// `clipctl publish DIR`: writes every file into a new sibling directory, then swaps it in with one rename, so a
/// server reading DIR sees the old set or the new one, never a mix. DIR is replaced as a whole, so it must be absent,
/// empty or exactly an earlier publish (`StaticSite.changes`), and must not hold the database.
public enum PublishCommand {
    /// `database`: the local database's path, nil with `--server`. Everything is read (`BulkRead`) before DIR is
    /// touched: a server that stops answering leaves DIR as it was.
    public static func run(
        directory: String, listen: String, bannerNames: StaticSite.BannerNames = .id, at: Instant, database: String?, json: Bool,
        runner: OperationRunner, printer: Printer
    ) throws {
        guard !listen.isEmpty, !listen.contains(where: { $0 == ";" || $0 == "{" || $0 == "}" || $0 == "\n" }) else {
            throw CommandUsageError("--nginx-listen takes an nginx listen parameter such as \"443 ssl\" or 127.0.0.1:8443")
        }
        let target: String
        do throws(PublishedDirectory.Failure) {
            target = try PublishedDirectory.resolve(directory)
            if let database { try PublishedDirectory.checkNotHoldingDatabase(target, database: database) }
        } catch { throw failure(error) }
        var publication = StaticSite.Publication(at: at)
        try BulkRead.records(
            host: nil, run: runner,
            each: { record in
                do throws(AASAGenerator.TooLarge) { try publication.add(record) } catch {
                    throw RegistryError.unprocessable(error.description)
                }
            })
        let files = StaticSite.files(
            aasa: publication.aasa, banners: publication.banners, bannerNames: bannerNames, nginx: .init(listen: listen, root: target))
        let changes: StaticSite.Changes
        do throws(PublishedDirectory.Failure) {
            changes = try PublishedDirectory.write(files, to: target, listedAtMost: Printer.listedAtMost)
        } catch { throw failure(error) }
        let index = files.first { $0.path == StaticSite.indexName }!
        if json {
            let report = CommandJSON.published(
                directory: target, hosts: publication.aasa.count, banners: publication.banners.count,
                files: files.count, indexSHA256: SHA256.hexDigest(index.bytes), notes: publication.notes, changes: changes)
            printer.line(JSONWriter.string(report, pretty: true))
            return
        }
        printer.line("published \(publication.aasa.count) AASA file(s) and \(publication.banners.count) banner snippet(s) to \(target)")
        printer.line("  index:  \(target)/\(StaticSite.indexName) (sha256 \(SHA256.hexDigest(index.bytes)))")
        printer.line("  nginx:  \(target)/\(StaticSite.nginxName)")
        for path in changes.added { printer.line("  added:   \(path)") }
        for path in changes.changed { printer.line("  changed: \(path)") }
        for path in changes.removed { printer.line("  removed: \(path)") }
        printer.line("  \(changes.unchanged.count) file(s) unchanged")
        for note in publication.notes.prefix(Printer.listedAtMost) { printer.err("note: \(note)\n") }
        if publication.notes.count > Printer.listedAtMost {
            printer.err("note: … and \(publication.notes.count - Printer.listedAtMost) more\n")
        }
    }

    /// `PublishedDirectory`'s failures as clipctl reports them: a directory that cannot be published to as it is, an
    /// input error naming DIR (exit 65); a failed file-system step, a failure (exit 1).
    static func failure(_ failure: PublishedDirectory.Failure) -> OperationError {
        switch failure {
        case .target(let message): .invalid(message, errors: [FieldError(field: "DIR", rule: "publish.target", message: message)])
        case .io(let message): .notWritten(message)
        }
    }
}
