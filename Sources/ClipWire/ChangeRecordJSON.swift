public import ClipCore
public import StrictJSON

/// Change records as `GET /v1/changes` and `clipctl changes --json` give them, and the forms of
/// the objects a record keeps before and after a change.
public enum ChangeRecordJSON {
    public static func record(_ r: ChangeRecord) -> JSONValue {
        .object([
            "id": .integer(r.id), "at": .string(r.at), "actor": .string(r.actor), "entity": .string(r.entity.rawValue),
            "entityId": .string(r.entityID), "action": .string(r.action.rawValue), "before": r.before ?? .null, "after": r.after ?? .null,
            "actorName": r.actorName.map(JSONValue.string),
        ])
    }

    public static func record(json value: JSONValue) throws(WireError) -> ChangeRecord {
        let r = WireReader(value, "change record")
        func object(_ key: String) -> JSONValue? { value[key].flatMap { $0.isNull ? JSONValue?.none : .some($0) } }
        return ChangeRecord(
            id: try r.int64("id"), at: try r.string("at"), actor: try r.string("actor"),
            entity: try r.value("entity", as: ChangeEntity.self),
            entityID: try r.string("entityId"), action: try r.value("action", as: ChangeAction.self),
            before: object("before"), after: object("after"), actorName: try r.optionalString("actorName"))
    }

    /// An app as a change record keeps it (no `appStoreId` member while it has none, as
    /// recorded since the first version).
    public static func app(_ app: App) -> JSONValue {
        .object([
            "bundleId": .string(app.bundleID.rawValue),
            "team": .string(app.team.rawValue),
            "appId": .string(app.appID.rawValue),
            "appStoreId": app.appStoreID.map { .string($0.rawValue) },
            "name": .string(app.name),
            "version": .integer(Int64(app.version)),
        ])
    }
}
