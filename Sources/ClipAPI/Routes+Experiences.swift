import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1
import StrictJSON

extension ClipAPI {
    /// An experience the caller may see, by the `{id}` parameter (other teams' answer 404).
    func visibleExperience(_ c: Context) throws -> AdvancedExperience {
        let id = c.parameter("id")
        // One spelling per resource: "01" and "+1" are not experience 1.
        guard let n = Int64(id), n > 0, String(n) == id else { throw Problem.notFound("not found: experience \(id)") }
        let e = try c.registry.experience(String(n))
        try c.checkVisible(team: e.clip.team, "experience \(n)")
        return e
    }

    func importExperiences(_ c: Context) throws -> HTTPResponse {
        let type = c.request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let format: Interchange.Format
        switch type {
        case "application/x-ndjson", "application/ndjson", "application/jsonl": format = .ndjson
        case "text/csv": format = .csv
        default:
            throw Problem(status: 415, detail: "send application/x-ndjson or text/csv (got \(type.isEmpty ? "no Content-Type" : type))")
        }
        let body = c.request.body
        if let own = try c.caller.team {
            // A team token may import only its own team's clips: refuse before anything is written.
            var reader = Interchange.Reader(format: format)
            var foreign: [String] = []
            func scan(_ batch: Interchange.Batch) {
                for line in batch.lines {
                    guard let clip = line.object["clip"]?.stringValue, let id = try? AppID(clip), id.team != own else { continue }
                    foreign.append("line \(line.line): clip \(clip)")
                }
            }
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + Registry.importChunkBytes)
                scan(reader.feed(body[offset..<end]))
                offset = end
            }
            scan(reader.finish())
            if !foreign.isEmpty {
                throw Problem.forbidden(
                    "a token of team \(own.rawValue) cannot import other teams' clips (\(foreign.prefix(5).joined(separator: "; ")))")
            }
        }
        return json(ImportReportJSON.report(try c.registry.importExperiences(body, format: format)))
    }

    func exportExperiences(_ c: Context) throws -> HTTPResponse {
        let format: Interchange.Format
        switch c.query("format")?.lowercased() ?? "ndjson" {
        case "ndjson": format = .ndjson
        case "csv": format = .csv
        default:
            throw Problem(
                status: 422, detail: "format is ndjson or csv",
                errors: [FieldError(field: "format", rule: "enum", message: "expected ndjson or csv")])
        }
        var spreadsheetSafe = false
        switch c.query("spreadsheetSafe") {
        case nil, "false": break
        case "true" where format == .csv: spreadsheetSafe = true
        case "true":
            throw Problem(
                status: 422, detail: "spreadsheetSafe applies to format=csv",
                errors: [FieldError(field: "spreadsheetSafe", rule: "format", message: "applies to format=csv only")])
        default:
            throw Problem(
                status: 422, detail: "spreadsheetSafe is true or false",
                errors: [FieldError(field: "spreadsheetSafe", rule: "type", message: "expected true or false")])
        }
        var filter = Registry.ListFilter()
        filter.team = try c.caller.team
        var text = ""
        try c.registry.export(format: format, spreadsheetSafe: spreadsheetSafe, filter: filter) { text += $0 + "\n" }
        return HTTPResponse(
            status: 200, contentType: format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson", body: Array(text.utf8))
    }

    // MARK: Cursors: base64url of the last URL of a page (opaque to clients).

    static func encodeCursor(_ url: String) -> String { ListCursor.encode(url) }
}
