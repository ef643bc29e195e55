import StrictJSON

/// One change record: when, who, what entity, the action, and the entity before and after
/// (in the forms the API answers), kept for every write.
public struct ChangeRecord: Sendable, Equatable {
    public let id: Int64
    public let at: String
    public let actor: String
    public let entity: String
    public let entityID: String
    public let action: String
    public let before: JSONValue?
    public let after: JSONValue?

    public init(id: Int64, at: String, actor: String, entity: String, entityID: String, action: String,
                before: JSONValue?, after: JSONValue?) {
        self.id = id
        self.at = at
        self.actor = actor
        self.entity = entity
        self.entityID = entityID
        self.action = action
        self.before = before
        self.after = after
    }
}
