public import ClipCore
public import StrictJSON

/// The answer of `clipctl import --json` and `POST /v1/experiences/import`.
public enum ImportReportJSON {
    public static func report(_ r: ImportReport) -> JSONValue {
        .object([
            "imported": .integer(Int64(r.imported)), "notes": CatalogJSON.notes(r.notes),
            "warnings": .array(r.warnings.flatMap(\.fieldErrors).map(ProblemJSON.fieldError)),
            "warningLinesNotListed": r.warningLinesNotListed > 0 ? .integer(Int64(r.warningLinesNotListed)) : nil,
        ])
    }

    public static func report(json value: JSONValue) throws(WireError) -> ImportReport {
        let r = WireReader(value, "import report")
        let warnings = (value["warnings"]?.arrayValue ?? []).compactMap(ProblemJSON.fieldError(json:))
        // Warnings come one per field error, each with its line; group them back by line.
        var lines: [Interchange.LineError] = []
        for w in warnings {
            let line = w.line ?? 0
            if let last = lines.last, last.line == line {
                lines[lines.count - 1] = .init(line: line, errors: last.errors + [w])
            } else {
                lines.append(.init(line: line, errors: [w]))
            }
        }
        return ImportReport(
            imported: try r.int("imported"), notes: CatalogJSON.notes(json: value), warnings: lines,
            warningLinesNotListed: (try r.optionalInt64("warningLinesNotListed")).map { Int($0) } ?? 0)
    }
}

extension ImportReport: WireShape {
    public var json: JSONValue { ImportReportJSON.report(self) }
    public init(json: JSONValue) throws(WireError) { self = try ImportReportJSON.report(json: json) }
}
