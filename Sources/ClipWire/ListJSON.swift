public import StrictJSON

/// The envelopes of list answers: `{items}`, a page `{items, nextCursor}` (experiences), and
/// change records `{items, nextSince}`.
public enum ListJSON {
    public static func items(_ items: [JSONValue]) -> JSONValue { .object(["items": .array(items)]) }

    public static func page(_ items: [JSONValue], nextCursor: String?) -> JSONValue {
        .object(["items": .array(items), "nextCursor": nextCursor.map(JSONValue.string) ?? .null])
    }

    /// The `items` of a list answer (empty when it has none).
    public static func items(json value: JSONValue) -> [JSONValue] { value["items"]?.arrayValue ?? [] }

    /// The cursor of the next page, nil on the last.
    public static func nextCursor(json value: JSONValue) -> String? { value["nextCursor"]?.stringValue }

    public static func changes(_ items: [JSONValue], nextSince: Int64?) -> JSONValue {
        .object(["items": .array(items), "nextSince": nextSince.map(JSONValue.integer) ?? .null])
    }
}
