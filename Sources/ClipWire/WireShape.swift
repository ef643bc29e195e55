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
