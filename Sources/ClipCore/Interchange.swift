import StrictJSON

/// Import/export formats (design §4.1): NDJSON, one experience per line in the portable JSON
/// form, and CSV with the same column names (nested `localizations` and `place` as JSON text).
public enum Interchange {
    public enum Format: String, Sendable, CaseIterable { case ndjson, csv }

    public static let csvColumns = ["url", "clip", "action", "language", "title", "subtitle", "category", "poweredBy", "status", "localizations", "place", "headerImage"]

    /// A problem with one line of an import: 1-based line number, and the field errors.
    public struct LineError: Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let errors: [FieldError]
        public init(line: Int, errors: [FieldError]) {
            self.line = line
            self.errors = errors
        }
        public var description: String { "line \(line): " + errors.map(\.description).joined(separator: "; ") }
    }

    /// One decoded line: its number and the JSON object it holds.
    public struct Line: Sendable {
        public let line: Int
        public let object: JSONValue
    }

    /// Splits `text` into objects, reporting lines that are not valid JSON objects or CSV rows.
    public static func lines(_ text: String, format: Format) -> (lines: [Line], errors: [LineError]) {
        switch format {
        case .ndjson: return ndjsonLines(text)
        case .csv: return csvLines(text)
        }
    }

    static func ndjsonLines(_ text: String) -> (lines: [Line], errors: [LineError]) {
        var lines: [Line] = []
        var errors: [LineError] = []
        // Over UTF-8: "\n" is ASCII, and "\r\n" is one Character, so splitting Characters would miss it.
        for (offset, raw) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let lineText = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            if lineText.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            do {
                let value = try JSONParser.parse(Array(lineText))
                guard value.objectMembers != nil else {
                    errors.append(LineError(line: offset + 1, errors: [FieldError(field: "(line)", rule: "type", message: "expected a JSON object, got \(value.typeName)")]))
                    continue
                }
                lines.append(Line(line: offset + 1, object: value))
            } catch {
                errors.append(LineError(line: offset + 1, errors: [FieldError(field: "(line)", rule: "json", message: "malformed JSON: \(error.message) at column \(error.column)")]))
            }
        }
        return (lines, errors)
    }

    static func csvLines(_ text: String) -> (lines: [Line], errors: [LineError]) {
        let records: [CSVFormat.Record]
        do { records = try CSVFormat.parse(text) } catch {
            return ([], [LineError(line: error.line, errors: [FieldError(field: "(line)", rule: "csv", message: error.message)])])
        }
        guard let header = records.first else { return ([], []) }
        var errors: [LineError] = []
        let unknown = header.fields.filter { !csvColumns.contains($0) }
        if !unknown.isEmpty || Set(header.fields).count != header.fields.count {
            let problems = unknown.map { FieldError(field: $0, rule: "unknown", message: "is not a known column (known: \(csvColumns.joined(separator: ", ")))") }
            return ([], [LineError(line: header.line, errors: problems.isEmpty ? [FieldError(field: "(header)", rule: "csv", message: "a column is named twice")] : problems)])
        }
        var lines: [Line] = []
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                errors.append(LineError(line: record.line, errors: [FieldError(field: "(line)", rule: "csv", message: "has \(record.fields.count) fields; the header has \(header.fields.count)")]))
                continue
            }
            var members: [(key: String, value: JSONValue)] = []
            var problems: [FieldError] = []
            for (name, cell) in zip(header.fields, record.fields) where !cell.isEmpty {
                switch name {
                case "poweredBy":
                    switch cell.lowercased() {
                    case "true", "yes", "1": members.append((key: name, value: true))
                    case "false", "no", "0": members.append((key: name, value: false))
                    default: problems.append(FieldError(field: name, rule: "type", message: "expected true or false, got \"\(cell.truncatedForMessage)\""))
                    }
                case "localizations", "place":
                    do { members.append((key: name, value: try JSONParser.parse(cell))) } catch {
                        problems.append(FieldError(field: name, rule: "json", message: "malformed JSON: \(error.message) at column \(error.column)"))
                    }
                default: members.append((key: name, value: .string(cell)))
                }
            }
            if problems.isEmpty { lines.append(Line(line: record.line, object: .object(members))) } else { errors.append(LineError(line: record.line, errors: problems)) }
        }
        return (lines, errors)
    }

    /// The NDJSON line for one experience (no trailing newline).
    public static func ndjson(_ e: AdvancedExperience) -> String { JSONWriter.string(ExperienceJSON.portable(e)) }

    public static var csvHeader: String { CSVFormat.format(csvColumns) }

    /// The CSV record for one experience (no trailing newline).
    public static func csv(_ e: AdvancedExperience) -> String {
        let json = ExperienceJSON.portable(e)
        return CSVFormat.format(csvColumns.map { column in
            switch json[column] {
            case nil, .null?: ""
            case .string(let s)?: s
            case .bool(let b)?: b ? "true" : "false"
            case let value?: JSONWriter.string(value)
            }
        })
    }
}
