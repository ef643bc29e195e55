import ClipCore
public import DoctorAndPublish
import ClipStore
public import ClipWire
import Foundation
import StrictJSON

/// `GET /v1/bulk`: everything the caller may read (an admin everything, a team token its team's
/// data, as the other routes scope it), page by page, each page one read transaction: what
/// `clipctl doctor` and `publish` read (`BulkRead.records`), on a database or from `--server`.
public enum BulkRead: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host: String?
        var cursor: String?
        var limit: String?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .text("host", \.host, "HOST", help: "only what touches this host"), .optional(.cursor, \.cursor),
            .optional(.routeLimit(of: "records", standard: 500), \.limit),
        ]
    }

    public typealias Output = Page<RegistryRecord>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var scope = Registry.BulkScope(team: session.caller.team)
        if let host = input.host { scope.host = try Registry.normalizeHost(host) }
        var start: Registry.BulkPosition?
        if let cursor = input.cursor {
            guard let position = decodeCursor(cursor) else {
                throw OperationError.malformed("the cursor is not one this server gave")
            }
            start = position
        }
        let limit = try PageLimit.read(input.limit, fallback: 500)
        var records: [RegistryRecord] = []
        let next = try session.registry.bulkRecords(scope, from: start, limit: limit) { records.append($0) }
        return Output(records, nextCursor: next.map(encodeCursor))
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/bulk"))

    /// Every record of the caller's scope (what touches `host`, when given), page after page of
    /// the largest size, run where the command runs (`OperationRunner`).
    public static func records(host: String?, run: OperationRunner, each body: (RegistryRecord) throws -> Void) throws {
        var cursor: String?
        repeat {
            var input = Input()
            (input.host, input.limit, input.cursor) = (host, String(PageLimit.largest), cursor)
            let page = try Output(json: try run(binding, input.arguments).json)
            for record in page.items { try body(record) }
            cursor = page.nextCursor
        } while cursor != nil
    }

    // MARK: Cursors: base64url of "section key" (opaque to clients; any position is only a place in the caller's own scope).

    static func encodeCursor(_ position: Registry.BulkPosition) -> String {
        ListCursor.encode(position.section.rawValue + " " + position.after)
    }

    static func decodeCursor(_ cursor: String) -> Registry.BulkPosition? {
        // RFC 4648 §5: the URL- and filename-safe alphabet, unpadded.
        guard !cursor.isEmpty, cursor.utf8.count <= 4096,
            cursor.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
            }),
            let text = ListCursor.decode(cursor), let space = text.firstIndex(of: " "),
            let section = Registry.BulkSection(rawValue: String(text[..<space]))
        else { return nil }
        let after = String(text[text.index(after: space)...])
        guard !after.isEmpty else { return nil }
        return Registry.BulkPosition(section: section, after: after)
    }
}
