import FileFormats
public import StrictJSON

/// Import/export formats (docs/rules.md#import-and-export): NDJSON, one experience per line in the portable JSON
/// form, and CSV with the same column names (nested `localizations` and `place` as JSON text).
public enum Interchange {
    public enum Format: String, Sendable, CaseIterable { case ndjson, csv }

    /// The portable form's members (`ExperienceField.portableMembers`), then the image's bytes.
    public static let csvColumns = ExperienceField.portableMembers + ["headerImageData"]
    /// A CSV column per label key (`label.city`), after `csvColumns`; an import also reads the whole
    /// set as JSON in a `labels` column, as NDJSON holds it (docs/sheets.md#labels).
    public static let labelColumnPrefix = "label."

    /// The label key a column names, or nil when it names none.
    static func labelKey(column: String) -> String? {
        guard column.hasPrefix(labelColumnPrefix) else { return nil }
        return Labels.key(String(column.dropFirst(labelColumnPrefix.count)))
    }

    /// A column an import reads.
    static func isKnownColumn(_ column: String) -> Bool {
        csvColumns.contains(column) || column == "labels" || labelKey(column: column) != nil
    }

    /// A problem with one line of an import: 1-based line number, and the field errors.
    public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let errors: [FieldError]
        public init(line: Int, errors: [FieldError]) {
            self.line = line
            self.errors = errors
        }
        public var description: String { "line \(line): " + errors.map(\.description).joined(separator: "; ") }
        /// The errors, each carrying the line number.
        public var fieldErrors: [FieldError] { errors.map { $0.on(line: line) } }
    }

    /// One decoded line: its number, the JSON object it holds, and the header image it carries.
    public struct Line: Sendable {
        public let line: Int
        public let object: JSONValue
        /// From `headerImageData`, checked, and named by the object's `headerImage`.
        public var image: HeaderImage?
        public init(line: Int, object: JSONValue, image: HeaderImage? = nil) {
            self.line = line
            self.object = object
            self.image = image
        }
    }

    /// An export carries its header images (an export moves the whole registry: docs/rules.md#import-and-export): the
    /// first line (in export order) that names an image also holds its bytes, base 64, in
    /// `headerImageData`; an import stores them before the batch's experiences. The member is
    /// the format's, not the experience's: it is taken off the object here.
    static func carryingImage(_ object: JSONValue, line: Int) -> Result<Line, LineError> {
        guard case .object(var members) = object, let index = members.firstIndex(where: { $0.key == "headerImageData" }) else {
            return .success(Line(line: line, object: object))
        }
        func fail(_ rule: String, _ message: String) -> Result<Line, LineError> {
            .failure(LineError(line: line, errors: [FieldError(field: "headerImageData", rule: rule, message: message)]))
        }
        let data = members.remove(at: index).value
        guard let text = data.stringValue, let bytes = Base64.decode(text) else {
            return fail("type", "expected the image file's bytes in base 64 (RFC 4648 §4)")
        }
        let image: HeaderImage
        do { image = try HeaderImage(bytes: bytes, field: "headerImageData") } catch {
            return .failure(LineError(line: line, errors: error.errors))
        }
        switch members.first(where: { $0.key == "headerImage" })?.value {
        case nil: members.append((key: "headerImage", value: .string(image.sha256)))
        case .string(let named)? where named == image.sha256: break
        default: return fail("headerImageData.mismatch", "holds the image \(image.sha256), not the one headerImage names")
        }
        return .success(Line(line: line, object: .object(members), image: image))
    }

    /// Splits `text` into objects, reporting lines that are not valid JSON objects or CSV rows.
    public static func lines(_ text: String, format: Format, sheet: SheetOptions = SheetOptions()) -> (lines: [Line], errors: [LineError]) {
        var reader = Reader(format: format, sheet: sheet)
        var all = reader.feed(Array(text.utf8)[...])
        let last = reader.finish()
        all.lines += last.lines
        all.errors += last.errors
        return (all.lines, all.errors)
    }

    /// What a chunk of input completed: its lines, and the lines that could not be read.
    public struct Batch: Sendable {
        public var lines: [Line] = []
        public var errors: [LineError] = []
        /// NDJSON lines not parsed yet (a reader that defers parsing): `parse` reads each.
        public var unparsed: [UnparsedLine] = []
        public init() {}
    }

    /// One NDJSON line as read, not parsed yet: its number and its bytes (no line break).
    public struct UnparsedLine: Sendable {
        public let line: Int
        public let bytes: [UInt8]
        public init(line: Int, bytes: [UInt8]) {
            self.line = line
            self.bytes = bytes
        }

        /// The line as a JSON object (with the header image it carries), or why it is none.
        public func parse() -> Result<Line, LineError> {
            let value: JSONValue
            do { value = try JSONParser.parse(bytes) } catch {
                return .failure(
                    LineError(
                        line: line,
                        errors: [
                            FieldError(field: "(line)", rule: "json", message: "malformed JSON: \(error.message) at column \(error.column)")
                        ]))
            }
            guard value.objectMembers != nil else {
                return .failure(
                    LineError(
                        line: line,
                        errors: [FieldError(field: "(line)", rule: "type", message: "expected a JSON object, got \(value.typeName)")]))
            }
            return Interchange.carryingImage(value, line: line)
        }
    }

    /// Reads an import in chunks of any size, with memory bounded by the longest line rather
    /// than the file. A leading UTF-8 byte-order mark (Excel's "CSV UTF-8", Numbers, Google
    /// Sheets; Unicode §23.8: U+FEFF at the start is a signature, not text) is skipped. In CSV the
    /// first record is the header; a file that has none (zero bytes, or blank lines only) is
    /// refused, since every CSV export has one. An NDJSON file without lines is an empty import
    /// (the export of an empty registry is zero bytes).
    public struct Reader: Sendable {
        public let format: Format
        /// NDJSON lines are handed out unparsed (`Batch.unparsed`), for a caller that parses them
        /// elsewhere (an import parses on another thread while it writes the previous batch).
        public let defersParsing: Bool
        /// How a CSV sheet's columns are named and what its rows lack (`SheetColumns`).
        public let sheet: SheetOptions
        private var head: [UInt8] = []
        private var started = false
        private var pending: [UInt8] = []
        private var lineNumber = 0
        private var csv = CSVFormat.Parser()
        private var header: [String]?
        private var stopped = false

        public init(format: Format, defersParsing: Bool = false, sheet: SheetOptions = SheetOptions()) {
            self.format = format
            self.defersParsing = defersParsing
            self.sheet = sheet
        }

        public mutating func feed(_ chunk: ArraySlice<UInt8>) -> Batch {
            var batch = Batch()
            guard !stopped else { return batch }
            if !started {
                head += chunk
                guard head.count >= 3 else { return batch }
                started = true
                if refusedAsUTF16(into: &batch) { return batch }
                let bytes = Self.droppingBOM(head)
                head = []
                consume(bytes, into: &batch)
            } else {
                consume(chunk, into: &batch)
            }
            return batch
        }

        public mutating func finish() -> Batch {
            var batch = Batch()
            if !started {
                started = true
                if refusedAsUTF16(into: &batch) { return batch }
                consume(Self.droppingBOM(head), into: &batch)
                head = []
            }
            guard !stopped else { return batch }
            switch format {
            case .ndjson:
                if !pending.isEmpty { ndjsonLine(pending[...], into: &batch) }
                pending = []
            case .csv:
                var records: [CSVFormat.Record] = []
                var failure: CSVFormat.ParseError?
                do { try csv.finish { records.append($0) } } catch { failure = error }
                for record in records { csvRecord(record, into: &batch) }
                if let failure { csvFailed(failure, into: &batch) }
                if header == nil && !stopped {
                    batch.errors.append(
                        LineError(
                            line: 1,
                            errors: [
                                FieldError(
                                    field: "(file)", rule: "empty",
                                    message:
                                        "has no header line; a CSV import starts with the column names (\(csvColumns.joined(separator: ",")))"
                                )
                            ]))
                }
            }
            stopped = true
            return batch
        }

        /// A UTF-16 file (a spreadsheet's "Unicode text"): its byte-order mark, or a NUL among the first two bytes, which
        /// UTF-8 text never has. Named, rather than read as columns with a NUL between each letter.
        private mutating func refusedAsUTF16(into batch: inout Batch) -> Bool {
            guard head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) || head.prefix(2).contains(0) else { return false }
            batch.errors.append(
                LineError(
                    line: 1,
                    errors: [
                        FieldError(
                            field: "(file)", rule: "encoding",
                            message:
                                "is UTF-16 or UTF-32; an import reads UTF-8 (with or without a byte-order mark): save or export it as UTF-8"
                        )
                    ]))
            stopped = true
            head = []
            return true
        }

        static func droppingBOM(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
            bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        }

        private mutating func consume(_ chunk: ArraySlice<UInt8>, into batch: inout Batch) {
            switch format {
            case .ndjson:
                var start = chunk.startIndex
                while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    if pending.isEmpty {
                        ndjsonLine(chunk[start..<newline], into: &batch)
                    } else {
                        pending += chunk[start..<newline]
                        ndjsonLine(pending[...], into: &batch)
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
                pending += chunk[start...]
            case .csv:
                var records: [CSVFormat.Record] = []
                var failure: CSVFormat.ParseError?
                do { try csv.feed(chunk) { records.append($0) } } catch { failure = error }
                for record in records { csvRecord(record, into: &batch) }
                if let failure { csvFailed(failure, into: &batch) }
            }
        }

        private mutating func ndjsonLine(_ raw: ArraySlice<UInt8>, into batch: inout Batch) {
            lineNumber += 1
            let line = lineNumber
            let lineText = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            if lineText.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
            let unparsed = UnparsedLine(line: line, bytes: Array(lineText))
            if defersParsing { return batch.unparsed.append(unparsed) }
            switch unparsed.parse() {
            case .success(let carried): batch.lines.append(carried)
            case .failure(let error): batch.errors.append(error)
            }
        }

        /// A CSV syntax error ends the reading: what follows cannot be split reliably.
        private mutating func csvFailed(_ error: CSVFormat.ParseError, into batch: inout Batch) {
            batch.errors.append(LineError(line: error.line, errors: [FieldError(field: "(line)", rule: "csv", message: error.message)]))
            stopped = true
        }

        private mutating func csvRecord(_ record: CSVFormat.Record, into batch: inout Batch) {
            guard !stopped else { return }
            guard let header else {
                // A sheet saved with another separator (a semicolon where the comma is the decimal mark, a tab).
                if record.fields.count == 1, let separator = [";", "\t", "|"].first(where: { record.fields[0].contains($0) }) {
                    let shown = separator == "\t" ? "tabs" : "'\(separator)'"
                    batch.errors.append(
                        LineError(
                            line: record.line,
                            errors: [
                                FieldError(
                                    field: "(header)", rule: "delimiter",
                                    message:
                                        "separates its columns with \(shown); an import reads commas (RFC 4180): export the sheet as CSV with commas"
                                )
                            ]))
                    stopped = true
                    return
                }
                switch SheetColumns.resolve(record.fields, sheet) {
                case .success(let columns): header = columns
                case .failure(let refusal):
                    batch.errors.append(LineError(line: record.line, errors: refusal.errors))
                    stopped = true
                }
                return
            }
            guard record.isValidUTF8 else {
                batch.errors.append(
                    LineError(line: record.line, errors: [FieldError(field: "(line)", rule: "encoding", message: "is not valid UTF-8")]))
                return
            }
            guard record.fields.count == header.count else {
                batch.errors.append(
                    LineError(
                        line: record.line,
                        errors: [
                            FieldError(
                                field: "(line)", rule: "csv", message: "has \(record.fields.count) fields; the header has \(header.count)")
                        ]))
                return
            }
            let (members, problems) = SheetRow.members(header, record.fields, sheet)
            guard problems.isEmpty else { return batch.errors.append(LineError(line: record.line, errors: problems)) }
            switch Interchange.carryingImage(JSONValue.object(members), line: record.line) {
            case .success(let carried): batch.lines.append(carried)
            case .failure(let error): batch.errors.append(error)
            }
        }
    }

    /// An experience as a line of an export: its portable form, and `headerImageData` when the
    /// line carries its image's bytes (`carryingImage`).
    static func exported(_ e: AdvancedExperience, imageData: [UInt8]?) -> JSONValue {
        let portable = ExperienceJSON.portable(e)
        guard let imageData, case .object(var members) = portable else { return portable }
        members.append((key: "headerImageData", value: .string(Base64.encode(imageData))))
        return .object(members)
    }

    /// The NDJSON line for one experience (no trailing newline).
    public static func ndjson(_ e: AdvancedExperience, imageData: [UInt8]? = nil) -> String {
        JSONWriter.string(exported(e, imageData: imageData))
    }

    /// The header of an export whose experiences have labels with `labelKeys` (in order).
    public static func csvHeader(labelKeys: [String] = []) -> String {
        CSVFormat.format(csvColumns + labelKeys.map { labelColumnPrefix + $0 })
    }

    /// The CSV record for one experience (no trailing newline), a cell for each of `labelKeys` after
    /// the columns. With `spreadsheetSafe`, a cell a spreadsheet would run as a formula is defused
    /// (`spreadsheetSafeCell`).
    public static func csv(
        _ e: AdvancedExperience, imageData: [UInt8]? = nil, labelKeys: [String] = [], spreadsheetSafe: Bool = false
    ) -> String {
        let json = exported(e, imageData: imageData)
        let labelCells = labelKeys.map { key in
            let cell = e.labels[key] ?? ""
            return spreadsheetSafe ? spreadsheetSafeCell(cell) : cell
        }
        return CSVFormat.format(
            csvColumns.map { column in
                let cell: String =
                    switch json[column] {
                    case nil, .null?: ""
                    case .string(let s)?: s
                    case .bool(let b)?: b ? "true" : "false"
                    case let value?: JSONWriter.string(value)
                    }
                return spreadsheetSafe ? spreadsheetSafeCell(cell) : cell
            } + labelCells)
    }

    /// OWASP "CSV Injection": a cell that begins with `=`, `+`, `-`, `@`, TAB or CR is read as a
    /// formula by Excel, LibreOffice and Google Sheets; a leading `'` makes it text. Such a file
    /// is for reading in a spreadsheet: imported again, the `'` stays part of the text.
    public static func spreadsheetSafeCell(_ cell: String) -> String {
        guard let first = cell.utf8.first else { return cell }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: return "'" + cell
        default: return cell
        }
    }
}
