import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1
import StrictJSON

extension ClipAPI {
    func experienceResponse(
        _ e: AdvancedExperience, status: Int = 200, notes: [WriteNote] = [],
        warnings: [FieldError] = []
    ) -> HTTPResponse {
        let body = CatalogJSON.written(e, notes: notes, warnings: warnings)
        var headers = [("ETag", etag("e\(e.id)", e.version))]
        if status == 201 { headers.append(("Location", "/v1/experiences/\(e.id)")) }
        return json(body, status: status, headers: headers)
    }

    /// An experience the caller may see, by the `{id}` parameter (other teams' answer 404).
    func visibleExperience(_ c: Context) throws -> AdvancedExperience {
        let id = c.parameter("id")
        // One spelling per resource: "01" and "+1" are not experience 1.
        guard let n = Int64(id), n > 0, String(n) == id else { throw Problem.notFound("not found: experience \(id)") }
        let e = try c.registry.experience(String(n))
        try c.checkVisible(team: e.clip.team, "experience \(n)")
        return e
    }

    func listExperiences(_ c: Context) throws -> HTTPResponse {
        var filter = Registry.ListFilter()
        filter.team = try c.caller.team
        var errors: [FieldError] = []
        if let clip = c.query("clip") {
            // An unknown clip lists nothing (rather than 404): a filter, not a resource.
            guard let id = try? c.registry.clipID(clip) else { return json(ListJSON.page([], nextCursor: nil)) }
            filter.clip = id
        }
        if let host = c.query("host") { filter.host = try Registry.normalizeHost(host) }
        if let status = c.query("status") {
            do { filter.status = try ExperienceStatus.parse(status, field: "status") } catch { errors += error.errors }
        }
        if let cursor = c.query("cursor") {
            guard let after = Self.decodeCursor(cursor) else { throw Problem.badRequest("the cursor is not one this server gave") }
            filter.afterURL = after
        }
        guard errors.isEmpty else { throw Problem(RegistryError.invalid(errors)) }
        let limit = try Self.limit(c)
        filter.limit = limit + 1
        var items = try c.registry.experiences(filter)
        var next: String?
        if items.count > limit {
            items.removeLast()
            next = Self.encodeCursor(items.last!.url.canonical)
        }
        var headers: [(String, String)] = []
        if let next {
            var query = c.query.filter { $0.name != "cursor" }.map {
                "\(QueryString.encodeComponent($0.name))=\(QueryString.encodeComponent($0.value))"
            }
            query.append("cursor=\(next)")
            headers.append(("Link", "</v1/experiences?\(query.joined(separator: "&"))>; rel=\"next\""))
        }
        return json(ListJSON.page(items.map(ExperienceJSON.full), nextCursor: next), headers: headers)
    }

    func createExperience(_ c: Context) throws -> HTTPResponse {
        let body = try c.jsonBody()
        if let clip = body["clip"]?.stringValue, let id = try? AppID(clip) { try c.checkWritable(team: id.team) }
        let written = try c.registry.register(body)
        return experienceResponse(written.value, status: 201, notes: written.notes, warnings: written.warnings)
    }

    func getExperience(_ c: Context) throws -> HTTPResponse { experienceResponse(try visibleExperience(c)) }

    func updateExperience(_ c: Context) throws -> HTTPResponse {
        let current = try visibleExperience(c)
        let body = try c.jsonBody()
        if let clip = body["clip"]?.stringValue, let id = try? AppID(clip) { try c.checkWritable(team: id.team) }
        let written = try c.registry.update(
            String(current.id), with: body, expectedVersion: try c.expectedVersion(kind: "e\(current.id)", current: current.version))
        return experienceResponse(written.value, notes: written.notes, warnings: written.warnings)
    }

    func deleteExperience(_ c: Context) throws -> HTTPResponse {
        let current = try visibleExperience(c)
        _ = try c.registry.remove(
            String(current.id), expectedVersion: try c.expectedVersion(kind: "e\(current.id)", current: current.version))
        return noContent()
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

    static func encodeCursor(_ url: String) -> String {
        Data(url.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeCursor(_ cursor: String) -> String? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let url = String(data: data, encoding: .utf8), url.hasPrefix("https://") else {
            return nil
        }
        return url
    }
}
