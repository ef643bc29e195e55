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

/// The answer of an update or sync import, a dry run, and a bulk change (`clipctl import --mode`,
/// `clipctl update --where`, `POST /v1/experiences/import?mode=`, `PATCH /v1/experiences?where=`;
/// docs/sheets.md): the outcome of every row that is not unchanged, the count of those that are.
extension SyncReport: WireShape {
    public var json: JSONValue {
        .object([
            "mode": .string(mode.rawValue), "dryRun": .bool(dryRun),
            "counts": .object(
                [SyncReport.Outcome.Action.create, .update, .remove, .missing, .error].map {
                    (key: $0.rawValue, value: .integer(Int64(count($0))))
                }
                    + [(key: "unchanged", value: .integer(Int64(unchanged)))]),
            "outcomes": .array(
                outcomes.map { o in
                    .object([
                        "line": o.line.map { .integer(Int64($0)) }, "url": .string(o.url), "id": o.id.map(JSONValue.integer),
                        "action": .string(o.action.rawValue), "details": .array(o.details.map(JSONValue.string)),
                    ])
                }),
            "notes": CatalogJSON.notes(notes),
            "warnings": .array(warnings.flatMap(\.fieldErrors).map(ProblemJSON.fieldError)),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "sync report")
        var outcomes: [SyncReport.Outcome] = []
        for item in value["outcomes"]?.arrayValue ?? [] {
            let o = WireReader(item, "outcome")
            outcomes.append(
                .init(
                    line: (try o.optionalInt64("line")).map { Int($0) }, url: try o.string("url"), id: try o.optionalInt64("id"),
                    action: try o.value("action", as: SyncReport.Outcome.Action.self),
                    details: (item["details"]?.arrayValue ?? []).compactMap(\.stringValue)))
        }
        let warnings = (value["warnings"]?.arrayValue ?? []).compactMap(ProblemJSON.fieldError(json:))
        self.init(
            mode: try r.value("mode", as: ImportMode.self), dryRun: value["dryRun"] == .bool(true), outcomes: outcomes,
            unchanged: (try? WireReader(value["counts"] ?? .null, "counts").int("unchanged")) ?? 0, notes: CatalogJSON.notes(json: value),
            warnings: warnings.isEmpty ? [] : [Interchange.LineError(line: warnings[0].line ?? 0, errors: warnings)])
    }
}

/// What `POST /v1/experiences/import` answers: a create import's report, or, for `mode=update|sync` and every dry
/// run, the row-by-row report.
public enum ImportAnswer: WireShape, Sendable {
    case created(ImportReport)
    case synced(SyncReport)

    public var json: JSONValue {
        switch self {
        case .created(let report): report.json
        case .synced(let report): report.json
        }
    }

    public init(json: JSONValue) throws(WireError) {
        self = json["mode"] == nil ? .created(try ImportReport(json: json)) : .synced(try SyncReport(json: json))
    }
}
