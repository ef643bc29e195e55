public import StrictJSON

/// The envelopes of list answers: `{items}`, a page `{items, nextCursor}` (experiences), and
/// change records `{items, nextSince}`.
public enum ListJSON {
    public static func items(_ items: [JSONValue]) -> JSONValue { .object(["items": .array(items)]) }

    public static func page(_ items: [JSONValue], nextCursor: String?) -> JSONValue {
        .object(["items": .array(items), "nextCursor": nextCursor.map(JSONValue.string) ?? .null])
    }

    /// The `items` of a list answer; an answer without them is not a list (another server's JSON).
    public static func items(json value: JSONValue) throws(WireError) -> [JSONValue] {
        guard let items = value["items"]?.arrayValue else { throw WireError("a list answer without an items array") }
        return items
    }

    /// The cursor of the next page, nil on the last.
    public static func nextCursor(json value: JSONValue) -> String? { value["nextCursor"]?.stringValue }

    public static func changes(_ items: [JSONValue], nextSince: Int64?) -> JSONValue {
        .object(["items": .array(items), "nextSince": nextSince.map(JSONValue.integer) ?? .null])
    }
}
