public import ClipCore
public import ClipWire
public import StrictJSON

/// A write's answer (docs/http-api.md#writes): the object written, a wire shape, with the write's notes.
/// An output says its own status and header fields (a 201 that created, `Location`, `ETag`); its reader is
/// the one rule of every write's answer, so none is written by hand: the shape, created when the status is
/// 201, its `notes`, and `changed` false when it says so (docs/rules.md#updates-and-versions).
public protocol WriteAnswer: OperationOutput {
    associatedtype Shape: WireShape
    var outcome: WriteOutcome<Shape> { get }
    init(_ outcome: WriteOutcome<Shape>)
}

extension WriteAnswer {
    /// The object with its notes, when there are any.
    public var json: JSONValue { CatalogJSON.withNotes(outcome.value.json, outcome.notes) }

    /// What `--json` prints of a write: the object with its notes, always listed (`writtenJSON`).
    public var written: JSONValue { writtenJSON(outcome.value.json, notes: outcome.notes) }

    public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }

    public init(json: JSONValue, status: Int) throws(WireError) {
        var outcome = WriteOutcome(try Shape(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
        outcome.changed = json["changed"]?.boolValue ?? true
        self.init(outcome)
    }
}

/// An object answered with header fields of its own (its `ETag`, a `Location`): its JSON is the wire shape's,
/// read back by the shape's reader.
public protocol ObjectAnswer: OperationOutput {
    associatedtype Shape: WireShape
    var value: Shape { get }
    init(_ value: Shape)
}

extension ObjectAnswer {
    public var json: JSONValue { value.json }
    public init(json: JSONValue) throws(WireError) { self.init(try Shape(json: json)) }
}
