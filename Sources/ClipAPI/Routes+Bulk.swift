import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1
import StrictJSON

/// `GET /v1/bulk`: everything the token may read (an admin everything, a team token its team's data,
/// as the other routes scope it), page by page: what `clipctl --server … doctor` and `publish` read.
extension ClipAPI {
    func registerBulkRoutes() {
        add("GET", "/v1/bulk", .token) { api, c in try api.bulk(c) }
    }

    func bulk(_ c: Context) throws -> HTTPResponse {
        var scope = Registry.BulkScope(team: try c.caller.team)
        if let host = c.query("host") { scope.host = try Registry.normalizeHost(host) }
        var start: Registry.BulkPosition?
        if let cursor = c.query("cursor") {
            guard let position = Self.decodeBulkCursor(cursor) else { throw Problem.badRequest("the cursor is not one this server gave") }
            start = position
        }
        let limit = try Self.limit(c, default: 500)
        var items: [JSONValue] = []
        let next = try c.registry.bulkRecords(scope, from: start, limit: limit) { items.append(BulkJSON.record($0)) }
        return json(ListJSON.page(items, nextCursor: next.map(Self.encodeBulkCursor)))
    }

    // MARK: Cursors: base64url of "section key" (opaque to clients; any position is only a place in the caller's own scope).

    static func encodeBulkCursor(_ position: Registry.BulkPosition) -> String {
        encodeCursor(position.section.rawValue + " " + position.after)
    }

    static func decodeBulkCursor(_ cursor: String) -> Registry.BulkPosition? {
        // RFC 4648 §5: the URL- and filename-safe alphabet, unpadded.
        guard !cursor.isEmpty, cursor.utf8.count <= 4096,
            cursor.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            let space = text.firstIndex(of: " "), let section = Registry.BulkSection(rawValue: String(text[..<space]))
        else { return nil }
        let after = String(text[text.index(after: space)...])
        guard !after.isEmpty else { return nil }
        return Registry.BulkPosition(section: section, after: after)
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
