public import ClipCore
public import StrictJSON

/// One JSON shape of the API, declared once with its reader beside its writer (docs/application-layer.md#outputs):
/// what the API answers, `--json` prints, and a `clipctl` that sent the operation to a server reads back.
public protocol WireShape: Sendable {
    var json: JSONValue { get }
    init(json: JSONValue) throws(WireError)
}

/// A list answer `{"items": […]}` of one shape (docs/http-api.md#lists).
public struct Items<Element: WireShape>: WireShape {
    public var items: [Element]
    public init(_ items: [Element]) { self.items = items }
    public var json: JSONValue { ListJSON.items(items.map(\.json)) }
    public init(json: JSONValue) throws(WireError) {
        items = try ListJSON.items(json: json).map { (item) throws(WireError) in try Element(json: item) }
    }
}

/// A page of a list `{"items": […], "nextCursor": C|null}`, ordered as the list is; `nextCursor` says where the next
/// page begins, nil on the last (docs/http-api.md#lists).
public struct Page<Element: WireShape>: WireShape {
    public var items: [Element]
    public var nextCursor: String?
    public init(_ items: [Element], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
    public var json: JSONValue { ListJSON.page(items.map(\.json), nextCursor: nextCursor) }
    public init(json: JSONValue) throws(WireError) {
        items = try ListJSON.items(json: json).map { (item) throws(WireError) in try Element(json: item) }
        nextCursor = ListJSON.nextCursor(json: json)
    }
}

/// A page of change records `{"items": […], "nextSince": N|null}`, oldest first (docs/http-api.md#changes).
public struct ChangePage: WireShape {
    public var records: [ChangeRecord]
    /// The `since` of the next page; nil on the last.
    public var nextSince: Int64?
    public init(records: [ChangeRecord], nextSince: Int64?) {
        self.records = records
        self.nextSince = nextSince
    }
    public var json: JSONValue { ListJSON.changes(records.map(\.json), nextSince: nextSince) }
    public init(json: JSONValue) throws(WireError) {
        records = try ListJSON.items(json: json).map { (record) throws(WireError) in try ChangeRecord(json: record) }
        nextSince = json["nextSince"].flatMap { if case .integer(let n) = $0 { n } else { nil } }
    }
}

extension ChangeRecord: WireShape {
    public var json: JSONValue { ChangeRecordJSON.record(self) }
    public init(json: JSONValue) throws(WireError) { self = try ChangeRecordJSON.record(json: json) }
}

extension APIToken: WireShape {
    public var json: JSONValue { TokenJSON.token(self) }
    public init(json: JSONValue) throws(WireError) { self = try TokenJSON.token(json: json) }
}

/// The codes a print bundle makes for one experience (`GET /v1/experiences/{id}/codes`): each file's path in
/// the bundle, format, size in bytes, SHA-256, and for a QR code its version and error correction, for an NFC
/// tag the smallest NTAG that holds it; `reason` says why an experience has none.
public struct ExperienceCodes: WireShape, Equatable {
    public struct File: Sendable, Equatable {
        public var path: String
        public var format: String
        public var bytes: Int64
        public var sha256: String
        public var qrVersion: Int64?
        public var ecc: String?
        public var ntag: String?
        public init(
            path: String, format: String, bytes: Int64, sha256: String, qrVersion: Int64? = nil, ecc: String? = nil, ntag: String? = nil
        ) {
            (self.path, self.format, self.bytes, self.sha256) = (path, format, bytes, sha256)
            (self.qrVersion, self.ecc, self.ntag) = (qrVersion, ecc, ntag)
        }
    }

    public var experience: Int64
    public var url: String
    /// The QR codes' size as `size=` gives it: pixels a module, or the symbol's width in millimetres (`30mm`).
    public var size: String
    public var files: [File]
    public var reason: String?

    public init(experience: Int64, url: String, size: String, files: [File], reason: String? = nil) {
        (self.experience, self.url, self.size, self.files, self.reason) = (experience, url, size, files, reason)
    }

    public var json: JSONValue {
        .object([
            ("experience", .integer(experience)), ("url", .string(url)), ("size", .string(size)),
            (
                "files",
                .array(
                    files.map { file in
                        .object(
                            [
                                ("path", .string(file.path)), ("format", .string(file.format)), ("bytes", .integer(file.bytes)),
                                ("sha256", .string(file.sha256)),
                            ]
                                + [("qrVersion", file.qrVersion.map(JSONValue.integer)), ("ecc", file.ecc.map(JSONValue.string))]
                                .compactMap { member in member.1.map { (key: member.0, value: $0) } }
                                + (file.format == "ndef" ? [("ntag", file.ntag.map(JSONValue.string) ?? .null)] : []))
                    })
            ),
            ("reason", reason.map(JSONValue.string) ?? .null),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = WireReader(json, "codes")
        experience = try reader.int64("experience")
        url = try reader.string("url")
        size = try reader.string("size")
        reason = try reader.optionalString("reason")
        guard let items = json["files"]?.arrayValue else { throw reader.fail("files") }
        files = try items.map { (item) throws(WireError) in
            let file = WireReader(item, "file")
            return File(
                path: try file.string("path"), format: try file.string("format"), bytes: try file.int64("bytes"),
                sha256: try file.string("sha256"), qrVersion: try file.optionalInt64("qrVersion"), ecc: try file.optionalString("ecc"),
                ntag: try file.optionalString("ntag"))
        }
    }
}
