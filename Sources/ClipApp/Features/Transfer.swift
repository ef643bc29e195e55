import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
import Foundation
public import StrictJSON

/// Experiences in bulk (docs/rules.md#import-and-export): `POST /v1/experiences/import` and `clipctl import FILE`
/// read NDJSON or CSV as it comes, all lines in one transaction; `GET /v1/experiences/export` and `clipctl export`
/// write every experience the caller sees, ordered by URL, as they are read.
public enum ExperienceImport: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        let stream: BodyStream?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            stream = reader.arguments.stream
        }
    }

    public struct Output: OperationOutput {
        public let report: ImportReport
        public var json: JSONValue { ImportReportJSON.report(report) }
        init(_ report: ImportReport) { self.report = report }
        public init(json: JSONValue) throws(WireError) { report = try ImportReportJSON.report(json: json) }
    }

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
            return Output(try session.registry.importExperiences(format: format, chunks: stream.next, progress: stream.progress))
        }
        // A team token may import only its own team's clips (docs/rules.md#tenancy): every line is looked at as it
        // goes by, and a line of another team's clip refuses the whole import, which then writes nothing.
        let scan = ForeignClipScan(team: own, format: format)
        do {
            return Output(
                try session.registry.importExperiences(format: format, chunks: { try scan.next(stream) }, progress: stream.progress))
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
        Self.self, "POST", "/v1/experiences/import",
        command: CommandSpec(
            "import", summary: "import experiences from NDJSON or CSV, all or nothing",
            discussion:
                "Every bad line is reported with its number, and nothing is written unless every line is good. A leading UTF-8 byte-order mark is skipped.",
            positionals: [PositionalSpec("FILE", help: "file to read, or - for standard input")],
            options: [.option("format", value: "FORMAT", help: "ndjson or csv (default: from the file name, else ndjson)")],
            examples: [Example("clipctl import experiences.csv", "Import a CSV file; nothing is written unless every line is good")]),
        commandJSON: { ImportReportJSON.report($0.report) }, takesStream: true, commandInput: TransferCommands.importInput,
        present: { output, _, printer in
            // Ends the progress line (`CommandLine.progress`).
            if printer.errIsTerminal { printer.err("\n") }
            let report = output.report
            printer.warnings(report.warnings.flatMap(\.fieldErrors))
            if report.warningLinesNotListed > 0 { printer.err("warning: … and warnings on \(report.warningLinesNotListed) more lines\n") }
            printer.line("imported \(report.imported) experience\(report.imported == 1 ? "" : "s") in one transaction")
            printer.notes(report.notes)
        })
}

public enum ExperienceExport: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        let format: String?
        let spreadsheetSafe: String?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            format = reader.string("format")
            spreadsheetSafe = reader.string("spreadsheetSafe")
        }
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
                "format is ndjson or csv", [FieldError(field: "format", rule: "enum", message: "expected ndjson or csv")])
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
        switch text {
        case nil, "false": return false
        case "true" where format == .csv: return true
        case "true":
            throw InvalidArguments(
                "spreadsheetSafe applies to format=csv",
                [FieldError(field: "spreadsheetSafe", rule: "format", message: "applies to format=csv only")])
        default:
            throw InvalidArguments(
                "spreadsheetSafe is true or false", [FieldError(field: "spreadsheetSafe", rule: "type", message: "expected true or false")])
        }
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/experiences/export",
        command: CommandSpec(
            "export", summary: "export experiences as NDJSON or CSV, ordered by URL",
            options: [
                .option("format", value: "FORMAT", help: "ndjson (default) or csv"),
                .option("output", short: "o", value: "FILE", help: "write to FILE instead of standard output"),
                .flag(
                    "spreadsheet-safe",
                    help:
                        "CSV for spreadsheets: a ' before cells starting with = + - @ TAB or CR (such a file no longer re-imports to the same bytes)"
                ),
            ],
            examples: [Example("clipctl export --format csv -o experiences.csv", "Export every experience as CSV, ready to re-import")]),
        unreadBody: .ignored, commandInput: TransferCommands.exportInput, presentsJSON: true,
        present: { output, parsed, printer in
            guard let path = parsed.value("output") else {
                return try output.stream.write { printer.out(String(decoding: $0, as: UTF8.self)) }
            }
            // Written to a temporary file and renamed, so that a failed export leaves no half file.
            var bytes: [UInt8] = []
            try output.stream.write { bytes += $0 }
            do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                throw OperationError.notWritten("cannot write \(path): \(error.localizedDescription)")
            }
        })
}

/// How `clipctl import` and `clipctl export` build their arguments.
enum TransferCommands {
    /// `--format`, else from the file's name (`.csv`), else NDJSON.
    static func format(_ parsed: CommandWords, path: String?) throws -> Interchange.Format {
        if let name = parsed.value("format") {
            guard let format = Interchange.Format(rawValue: name.lowercased()) else {
                throw CommandUsageError("--format is ndjson or csv, not \(name)")
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
        let path = line.parsed.positionals.first ?? "-"
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

    @Sendable static func exportInput(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let format = try format(line.parsed, path: nil)
        let safe = line.parsed.flag("spreadsheet-safe")
        if safe && format != .csv { throw CommandUsageError("--spreadsheet-safe applies to --format csv") }
        arguments.append("format", format.rawValue)
        if safe { arguments.append("spreadsheetSafe", "true") }
        arguments.accept = "*/*"
    }
}
