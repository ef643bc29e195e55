import ClipCore
import ClipStore
public import ClipWire
import Foundation
import StrictJSON

/// Experiences in bulk (docs/rules.md#import-and-export): `POST /v1/experiences/import` and `clipctl import FILE`
/// read NDJSON or CSV as it comes, all lines in one transaction; `GET /v1/experiences/export` and `clipctl export`
/// write every experience the caller sees, ordered by URL, as they are read.
public enum ExperienceImport: Operation {
    public static let callers = CallerRule.token

    /// The body as it comes (`Arguments.stream`), in the media type it names, and how to read it
    /// (docs/sheets.md#import-a-sheet, docs/sheets.md#keep-the-registry-in-step-with-a-sheet).
    public struct Input: DeclaredInput {
        var stream: BodyStream?
        var mode: String?
        var dryRun: String?
        var removeMissing: String?
        var map: [String] = []
        var labelsFrom: String?
        var unknownColumns: String?
        var clip: String?
        var host: String?
        var labels: [String] = []
        public init() {}
        static let modes = ImportMode.allCases.map(\.rawValue)
        public static let fields: [InputField<Input>] = [
            .optional(
                FieldFacts(
                    name: "mode", place: .query, type: .choice(modes), placeholder: "MODE",
                    help: "create (new URLs only), update (registered URLs only) or sync (both, and list what the sheet lacks)",
                    defaultValue: "create"), \.mode),
            .optional(
                FieldFacts(
                    name: "dryRun", place: .query, type: .flag, placeholder: "", help: "say what each row would do; write nothing",
                    option: "dry-run"), \.dryRun),
            .optional(
                FieldFacts(
                    name: "removeMissing", place: .query, type: .flag, placeholder: "",
                    help: "sync: remove the experiences of the scope the sheet no longer has (else listed)", option: "remove-missing"),
                \.removeMissing),
            .texts("map", \.map, "'SHEET COLUMN=COLUMN'", help: "read a sheet's column as one of the import's"),
            .optional(
                FieldFacts(
                    name: "labelsFrom", place: .query, type: .text, placeholder: "COLUMN,…",
                    help: "keep these sheet columns as labels (Station ID: the label station-id)", option: "labels-from"),
                \.labelsFrom),
            .optional(
                FieldFacts(
                    name: "unknownColumns", place: .query, type: .choice(["refuse", "label"]), placeholder: "refuse|label",
                    help: "what an import does with a column it does not know", defaultValue: "refuse", option: "unknown-columns"),
                \.unknownColumns),
            .text("clip", \.clip, "CLIP", help: "the clip of the rows that name none"),
            .text("host", \.host, "HOST", help: "sync: the scope is this host's experiences (default: the hosts the rows are on)"),
            .labelSelector(\.labels, of: "experiences in a sync's scope"),
        ]
        public mutating func check(_ reader: inout ArgumentReader) { stream = reader.arguments.stream }

        /// The sheet options and mode the fields give, every field error at once.
        func settings() throws(RegistryError) -> (ImportMode, dryRun: Bool, SheetOptions, removeMissing: Bool) {
            var errors: [FieldError] = []
            let mode = ImportMode(rawValue: mode?.lowercased() ?? "create")
            if mode == nil { errors.append(FieldError(field: "mode", rule: "enum", message: "expected create, update or sync")) }
            var sheet = SheetOptions(defaultClip: clip)
            do { sheet.map = try SheetOptions.mapping(map) } catch { errors += error.errors }
            sheet.labelsFrom = (labelsFrom ?? "").split(separator: ",").map(String.init)
            switch unknownColumns?.lowercased() {
            case nil, "refuse": break
            case "label": sheet.unknownColumnsAsLabels = true
            default: errors.append(FieldError(field: "unknownColumns", rule: "enum", message: "expected refuse or label"))
            }
            let dryRun = QueryFlag.truth(dryRun, field: "dryRun", into: &errors)
            let remove = QueryFlag.truth(removeMissing, field: "removeMissing", into: &errors)
            if remove && mode != .sync {
                errors.append(FieldError(field: "removeMissing", rule: "mode", message: "applies to mode=sync only"))
            }
            // A sync's scope: elsewhere they would be ignored, though they read as "label every row".
            for (given, field) in [(host != nil, "host"), (!labels.isEmpty, "label")] where given && mode != .sync {
                errors.append(FieldError(field: field, rule: "mode", message: "narrows a sync's scope: it applies to mode=sync only"))
            }
            guard errors.isEmpty, let mode else { throw RegistryError.invalid(errors) }
            return (mode, dryRun, sheet, remove)
        }
    }

    public typealias Output = ImportAnswer

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let (mode, dryRun, sheet, removeMissing) = try input.settings()
        let stream = input.stream ?? BodyStream(type: "") { nil }
        let format: Interchange.Format
        switch stream.type {
        case "application/x-ndjson", "application/ndjson", "application/jsonl": format = .ndjson
        case "text/csv": format = .csv
        default:
            throw OperationError.unsupportedMediaType(
                "send application/x-ndjson or text/csv (got \(stream.type.isEmpty ? "no Content-Type" : stream.type))")
        }
        if mode != .create || dryRun {
            var scope = Registry.SyncScope(removeMissing: removeMissing)
            scope.filter.team = session.caller.team
            if let host = input.host { scope.filter.host = try Registry.normalizeHost(host) }
            if let clip = input.clip {
                do { scope.filter.clip = try AppID(clip, field: "clip") } catch { throw RegistryError.invalid(error.errors) }
            }
            scope.filter.labels = try LabelSelector.reading(input.labels)
            return .synced(
                try session.registry.importExperiences(
                    mode: mode, dryRun: dryRun, format: format, sheet: sheet, scope: scope, chunks: stream.next))
        }
        guard let own = session.caller.team else {
            return .created(
                try session.registry.importExperiences(format: format, sheet: sheet, chunks: stream.next, progress: stream.progress))
        }
        // A team token may import only its own team's clips (docs/rules.md#tenancy): every line is looked at as it
        // goes by, and a line of another team's clip refuses the whole import, which then writes nothing.
        let scan = ForeignClipScan(team: own, format: format, sheet: sheet)
        do {
            return .created(
                try session.registry.importExperiences(
                    format: format, sheet: sheet, chunks: { try scan.next(stream) }, progress: stream.progress))
        } catch {
            if let refusal = scan.refusal { throw refusal }
            throw error
        }
    }

    /// The lines naming another team's clip, found as the chunks go to the import.
    final class ForeignClipScan {
        let team: TeamID
        var reader: Interchange.Reader
        var foreign: [String] = []
        init(team: TeamID, format: Interchange.Format, sheet: SheetOptions) {
            self.team = team
            reader = Interchange.Reader(format: format, sheet: sheet)
        }

        var refusal: CallerRefusal? {
            foreign.isEmpty
                ? nil
                : .forbidden(
                    "a token of team \(team.rawValue) cannot import other teams' clips (\(foreign.prefix(5).joined(separator: "; ")))")
        }

        /// The stream's next chunk, looked at; at its end, the refusal if a line named another team's clip.
        func next(_ stream: BodyStream) throws -> ArraySlice<UInt8>? {
            guard let chunk = try stream.next() else {
                look(reader.finish())
                if let refusal { throw refusal }
                return nil
            }
            look(reader.feed(chunk))
            return chunk
        }

        func look(_ batch: Interchange.Batch) {
            for line in batch.lines {
                guard let clip = line.object["clip"]?.stringValue, let id = try? AppID(clip), id.team != team else { continue }
                foreign.append("line \(line.line): clip \(clip)")
            }
        }
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/experiences/import", body: .stream),
        command: Command(
            ["import"],
            CommandHelp(
                "import experiences from NDJSON or CSV, all or nothing",
                discussion:
                    "Every bad line is reported with its number, and nothing is written unless every line is good. A leading UTF-8 byte-order mark is skipped. A sheet's own columns are read by name in any case, by alias, with --map, or as labels (docs/sheets.md).",
                examples: [
                    CommandExample("clipctl import experiences.csv", "Import a CSV file; nothing is written unless every line is good"),
                    CommandExample(
                        "clipctl import stations.csv --mode sync --dry-run --labels-from 'City,Station ID'",
                        "Say what keeping the registry in step with a sheet would change, writing nothing"),
                ]),
            options: [TransferCommands.file, TransferCommands.importFormat], steps: CommandSteps(input: TransferCommands.importInput),
            present: { answer, _, printer in
                // Ends the progress line (`CommandLine.progress`).
                if printer.errIsTerminal { printer.err("\n") }
                switch answer {
                case .created(let report):
                    printer.warnings(report.warnings.flatMap(\.fieldErrors))
                    if report.warningLinesNotListed > 0 {
                        printer.err("warning: … and warnings on \(report.warningLinesNotListed) more lines\n")
                    }
                    printer.line("imported \(report.imported) experience\(report.imported == 1 ? "" : "s") in one transaction")
                    printer.notes(report.notes)
                case .synced(let report):
                    printer.sync(report)
                    // A dry run ends as its real run would: refused (65) when a row is bad.
                    let bad = report.count(.error)
                    if report.dryRun, bad > 0 {
                        throw CommandVerdict.wouldBeRefused(
                            "the real run would write nothing: \(bad) row\(bad == 1 ? "" : "s") with errors")
                    }
                }
            }))
}

extension Printer {
    /// An update, sync or dry run row by row (at most `listedAtMost` of each action; `--json` has every one), then the counts.
    func sync(_ report: SyncReport) {
        warnings(report.warnings.flatMap(\.fieldErrors))
        for action in [SyncReport.Outcome.Action.error, .create, .update, .remove, .missing] {
            let rows = report.outcomes.filter { $0.action == action }
            for o in rows.prefix(Self.listedAtMost) {
                let at = o.line.map { "line \($0): " } ?? ""
                let details =
                    o.details.isEmpty ? "" : (action == .error ? " " : ": ") + o.details.joined(separator: action == .error ? "; " : ", ")
                line("\(at)\(action.rawValue) \(o.url)\(details)")
            }
            if rows.count > Self.listedAtMost {
                line("… and \(rows.count - Self.listedAtMost) more \(action.rawValue) (--json lists them all)")
            }
        }
        let counts =
            [SyncReport.Outcome.Action.create, .update, .remove, .missing, .error].compactMap { action in
                report.count(action) > 0 ? "\(report.count(action)) \(Self.counted(action, dryRun: report.dryRun))" : nil
            } + ["\(report.unchanged) unchanged"]
        let written = report.dryRun ? "dry run, nothing written" : report.count(.error) > 0 ? "nothing written" : "in one transaction"
        line(counts.joined(separator: ", ") + " (\(written))")
        notes(report.notes)
    }

    /// An action as the closing count says it: done (`2 updated`), or to be done in a dry run (`2 to update`).
    private static func counted(_ action: SyncReport.Outcome.Action, dryRun: Bool) -> String {
        switch action {
        case .create: dryRun ? "to create" : "created"
        case .update: dryRun ? "to update" : "updated"
        case .remove: dryRun ? "to remove" : "removed"
        case .missing: "missing"
        case .error: "with errors"
        case .unchanged: "unchanged"
        }
    }
}

/// `GET /v1/experiences/export` and `clipctl export [--format ndjson|csv] [-o FILE] [--spreadsheet-safe]`.
public enum ExperienceExport: Operation {
    public static let callers = CallerRule.token

    /// `format` and `spreadsheetSafe` as given: `run` reads them by its own rules.
    public struct Input: DeclaredInput {
        var format: String?
        var spreadsheetSafe: String?
        var host: String?
        var labels: [String] = []
        public init() {}
        static let format = InputField<Input>.text("format", \.format, "FORMAT", help: "ndjson (default) or csv")
        static let spreadsheetSafe = InputField<Input>.optional(
            FieldFacts(
                name: "spreadsheetSafe", place: .query, type: .flag, placeholder: "",
                help:
                    "CSV for spreadsheets: a ' before cells starting with = + - @ TAB or CR (such a file no longer re-imports to the same bytes)",
                option: "spreadsheet-safe"), \.spreadsheetSafe)
        public static let fields: [InputField<Input>] = [
            format, .command(TransferCommands.output), spreadsheetSafe,
            .text("host", \.host, "HOST", help: "only experiences on this host"),
            .labelSelector(\.labels),
        ]
    }

    public struct Output: OperationStreamOutput {
        public let stream: OperationStream
        public init(stream: OperationStream, status: Int, headers: [(name: String, value: String)]) { self.stream = stream }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let format: Interchange.Format
        switch input.format?.lowercased() ?? "ndjson" {
        case "ndjson": format = .ndjson
        case "csv": format = .csv
        default:
            throw InvalidArguments(
                "format is ndjson or csv", [FieldError(field: Input.format.facts.name, rule: "enum", message: "expected ndjson or csv")])
        }
        let spreadsheetSafe = try Self.spreadsheetSafe(input.spreadsheetSafe, format: format)
        var filter = Registry.ListFilter()
        filter.team = session.caller.team
        if let host = input.host { filter.host = try Registry.normalizeHost(host) }
        filter.labels = try LabelSelector.reading(input.labels)
        let registry = session.registry
        let type = format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"
        let stream = OperationStream(type: type) { emit in
            try registry.export(format: format, spreadsheetSafe: spreadsheetSafe, filter: filter) { line in
                try emit(Array((line + "\n").utf8)[...])
            }
        }
        return Output(stream: stream, status: 200, headers: [])
    }

    /// `spreadsheetSafe`: true or false, and true only for CSV.
    static func spreadsheetSafe(_ text: String?, format: Interchange.Format) throws(InvalidArguments) -> Bool {
        let field = Input.spreadsheetSafe.facts.name
        switch text {
        case nil, "false": return false
        case "true" where format == .csv: return true
        case "true":
            throw InvalidArguments(
                "\(field) applies to format=csv", [FieldError(field: field, rule: "format", message: "applies to format=csv only")])
        default:
            throw InvalidArguments(
                "\(field) is true or false", [FieldError(field: field, rule: "type", message: "expected true or false")])
        }
    }

    public static let binding: Binding = Binding(
        Self.self, Route("GET", "/v1/experiences/export", body: .none(.ignored)),
        command: Command(
            ["export"],
            CommandHelp(
                "export experiences as NDJSON or CSV, ordered by URL",
                examples: [
                    CommandExample("clipctl export --format csv -o experiences.csv", "Export every experience as CSV, ready to re-import")
                ]),
            steps: CommandSteps(
                check: TransferCommands.checkExport,
                answer: { _, arguments, run in
                    var any = arguments
                    any.accept = "*/*"
                    return try run(binding, any)
                }),
            json: .presented, present: TransferCommands.presentExport))
}

/// How `clipctl import` and `clipctl export` build their arguments.
enum TransferCommands {
    /// `import FILE`: read by the command as it goes, sent as the body.
    static let file = FieldFacts(
        name: "file", place: .command, type: .file, placeholder: "FILE", help: "file to read, or - for standard input", required: true,
        positional: true)
    static let importFormat = FieldFacts.option("format", "FORMAT", help: "ndjson or csv (default: from the file name, else ndjson)")
    static let output = FieldFacts.outputFile

    /// `--format`, else from the file's name (`.csv`), else NDJSON.
    static func format(_ parsed: CommandWords, path: String?) throws -> Interchange.Format {
        let option = importFormat.option
        if let name = parsed.value(option) {
            guard let format = Interchange.Format(rawValue: name.lowercased()) else {
                throw CommandUsageError("--\(option) is ndjson or csv, not \(name)")
            }
            return format
        }
        return path?.lowercased().hasSuffix(".csv") == true ? .csv : .ndjson
    }

    /// The longest line `import -` takes from standard input: a line carrying the largest header image in
    /// Base64 (RFC 4648 §4: 4 bytes per 3) and 1 MiB for the rest. A file is read as it is; standard input
    /// has no end a command can see in advance, so a line without end is refused rather than held.
    static let longestStandardInputLine = (HeaderImage.maxBytes + 2) / 3 * 4 + (1 << 20)

    /// The file as a body read as it goes (`-`: standard input), sent as its format's media type; on a
    /// terminal the lines imported and the part of the file read.
    @Sendable static func importInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let path = line.parsed.positional(0) ?? "-"
        let format = try format(line.parsed, path: path)
        // How to read the file (mode, dry run, columns), as the route takes them.
        for facts in ExperienceImport.Input.fields.map(\.facts) { try arguments.add(option: facts, of: line, declared: true) }
        let file = try line.openFile(path, "import file")
        var read = 0
        var lineLength = 0, lineNumber = 1
        let checksLines = path == "-"
        let progress = line.progress
        arguments.stream = BodyStream(
            type: format == .csv ? "text/csv" : "application/x-ndjson",
            progress: { lines in progress?("\rimporting: \(lines) lines, \(file.size > 0 ? read * 100 / file.size : 100)%") },
            next: {
                guard let chunk = try file.next() else { return nil }
                read += chunk.count
                guard checksLines else { return chunk }
                for byte in chunk {
                    if byte == 0x0A {
                        lineLength = 0
                        lineNumber += 1
                    } else {
                        lineLength += 1
                        if lineLength > longestStandardInputLine { throw Self.overlong(lineNumber) }
                    }
                }
                return chunk
            })
    }

    static func overlong(_ line: Int) -> RegistryError {
        .invalid([
            FieldError(
                field: "line \(line)", rule: "length",
                message:
                    "is longer than \(longestStandardInputLine) bytes on standard input, the longest line an import takes; nothing was imported"
            )
        ])
    }

    /// `--format` is ndjson or csv, and `--spreadsheet-safe` goes with csv (exit 64).
    @Sendable static func checkExport(_ words: CommandWords) throws {
        let format = try format(words, path: nil)
        let safe = ExperienceExport.Input.spreadsheetSafe.facts.option
        if words.flag(safe) && format != .csv { throw CommandUsageError("--\(safe) applies to --\(importFormat.option) csv") }
    }

    /// The export on standard output, or written to a temporary file and renamed, so that a failed export leaves no half file.
    @Sendable static func presentExport(_ output: ExperienceExport.Output, _ words: CommandWords, _ printer: Printer) throws {
        guard let path = words.value(Self.output.option) else {
            return try output.stream.write { printer.out(String(decoding: $0, as: UTF8.self)) }
        }
        var bytes: [UInt8] = []
        try output.stream.write { bytes += $0 }
        do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw OperationError.notWritten("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
