public import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// Experiences in bulk (docs/rules.md#import-and-export): `POST /v1/experiences/import` and `clipctl import FILE`
/// read NDJSON or CSV as it comes, all lines in one transaction; `GET /v1/experiences/export` and `clipctl export`
/// write every experience the caller sees, ordered by URL, as they are read.
public enum ExperienceImport: Operation {
    public static let callers = CallerRule.token

    /// The body as it comes (`Arguments.stream`), in the media type it names.
    public struct Input: DeclaredInput {
        var stream: BodyStream?
        public init() {}
        public static let fields: [InputField<Input>] = []
        public mutating func check(_ reader: inout ArgumentReader) { stream = reader.arguments.stream }
    }

    public typealias Output = ImportReport

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let stream = input.stream ?? BodyStream(type: "") { nil }
        let format: Interchange.Format
        switch stream.type {
        case "application/x-ndjson", "application/ndjson", "application/jsonl": format = .ndjson
        case "text/csv": format = .csv
        default:
            throw OperationError.unsupportedMediaType(
                "send application/x-ndjson or text/csv (got \(stream.type.isEmpty ? "no Content-Type" : stream.type))")
        }
        guard let own = session.caller.team else {
            return try session.registry.importExperiences(format: format, chunks: stream.next, progress: stream.progress)
        }
        // A team token may import only its own team's clips (docs/rules.md#tenancy): every line is looked at as it
        // goes by, and a line of another team's clip refuses the whole import, which then writes nothing.
        let scan = ForeignClipScan(team: own, format: format)
        do {
            return try session.registry.importExperiences(format: format, chunks: { try scan.next(stream) }, progress: stream.progress)
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
        init(team: TeamID, format: Interchange.Format) {
            self.team = team
            reader = Interchange.Reader(format: format)
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
                    "Every bad line is reported with its number, and nothing is written unless every line is good. A leading UTF-8 byte-order mark is skipped.",
                examples: [
                    CommandExample("clipctl import experiences.csv", "Import a CSV file; nothing is written unless every line is good")
                ]),
            options: [TransferCommands.file, TransferCommands.importFormat], steps: CommandSteps(input: TransferCommands.importInput),
            present: { report, _, printer in
                // Ends the progress line (`CommandLine.progress`).
                if printer.errIsTerminal { printer.err("\n") }
                printer.warnings(report.warnings.flatMap(\.fieldErrors))
                if report.warningLinesNotListed > 0 {
                    printer.err("warning: … and warnings on \(report.warningLinesNotListed) more lines\n")
                }
                printer.line("imported \(report.imported) experience\(report.imported == 1 ? "" : "s") in one transaction")
                printer.notes(report.notes)
            }))
}

/// `GET /v1/experiences/export` and `clipctl export [--format ndjson|csv] [-o FILE] [--spreadsheet-safe]`.
public enum ExperienceExport: Operation {
    public static let callers = CallerRule.token

    /// `format` and `spreadsheetSafe` as given: `run` reads them by its own rules.
    public struct Input: DeclaredInput {
        var format: String?
        var spreadsheetSafe: String?
        public init() {}
        static let format = InputField<Input>.text("format", \.format, "FORMAT", help: "ndjson (default) or csv")
        static let spreadsheetSafe = InputField<Input>.optional(
            FieldFacts(
                name: "spreadsheetSafe", place: .query, type: .flag, placeholder: "",
                help:
                    "CSV for spreadsheets: a ' before cells starting with = + - @ TAB or CR (such a file no longer re-imports to the same bytes)",
                option: "spreadsheet-safe"), \.spreadsheetSafe)
        public static let fields: [InputField<Input>] = [format, .command(TransferCommands.output), spreadsheetSafe]
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
