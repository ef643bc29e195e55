public import StrictJSON

/// One change record: when, who, what entity, the action, and the entity before and after
/// (in the forms the API answers), kept for every write.
public struct ChangeRecord: Sendable, Equatable {
    public let id: Int64
    public let at: String
    public let actor: String
    /// The name of the token an actor `token:ID` is (`api_token.name`), when the record was read with it.
    public let actorName: String?
    public let entity: ChangeEntity
    public let entityID: String
    public let action: ChangeAction
    public let before: JSONValue?
    public let after: JSONValue?

    public init(
        id: Int64, at: String, actor: String, entity: ChangeEntity, entityID: String, action: ChangeAction,
        before: JSONValue?, after: JSONValue?, actorName: String? = nil
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.actorName = actorName
        self.entity = entity
        self.entityID = entityID
        self.action = action
        self.before = before
        self.after = after
    }
}

/// What a change record (`change_record`) is about, and what happened to it: the registry's
/// change feed, read by `clipctl changes`, `GET /v1/changes` and the server's read model
/// (`LiveIndex`). The raw values are the texts stored in the `entity` and `action` columns since
/// the first migration; they do not change.
public enum ChangeEntity: String, Sendable, CaseIterable {
    case experience
    case team, app, clip
    /// A clip's association with a host (`entity_id` "TEAM.clip host").
    case domain
    case defaultExperience = "default-experience"
    case token
    /// A team's hold on a host (HostOwnership).
    case host
    /// An app's applinks rule on a host (`entity_id` "host bundle").
    case applinks
    case applinksSettings = "applinks-settings"
    case applinksGeneration = "applinks-generation"
    case webcredentials
    /// A header image a team uploaded (`entity_id` "TEAM sha256"; POST /v1/images): create only, an upload is never changed.
    case headerImage = "header-image"
    /// The whole database (`entity_id` "main"): a restore.
    case registry
    /// A clip's link to its App Store Connect app and App Clip (`entity_id` the clip's App ID).
    case ascLink = "asc-link"
    /// An advanced experience as an apply left it in App Store Connect (`entity_id` the registry experience's id,
    /// or "asc:ID" for one only App Store Connect had): create, update, remove there.
    case ascExperience = "asc-experience"
    /// A clip's default experience as an apply left it on App Store Connect's version being edited (`entity_id` the clip).
    case ascDefaultExperience = "asc-default-experience"
    /// A webhook endpoint (`entity_id` its id): create, update (enabled again), remove.
    case webhook
    /// A doctor rule acknowledged over a scope (`entity_id` its id): create, remove.
    case acknowledgement
    /// A campaign (`entity_id` its id): create, then an update at each change of state (start, end, cancel).
    case campaign
}

public enum ChangeAction: String, Sendable, CaseIterable {
    case create, update, remove
    /// An experience's change of status alone.
    case activate, deactivate
    case revoke
    /// Host ownership.
    case claim, share, unshare, release
    case restore
}

extension ChangeRecord {
    /// The members of the object whose values differ before and after the change (`changedMembers(before:after:)`).
    public var changedMembers: [String] { Self.changedMembers(before: before, after: after) }

    /// The members of an object whose values differ between `before` and `after`, in the order `after`
    /// states them (then those only `before` has), leaving out the bookkeeping every write changes
    /// (`version`, `updatedAt`); none when either is missing (a creation, a removal).
    public static func changedMembers(before: JSONValue?, after: JSONValue?) -> [String] {
        guard let before = before?.objectMembers, let after = after?.objectMembers else { return [] }
        var names: [String] = []
        for (key, value) in after where key != "version" && key != "updatedAt" {
            if before.first(where: { $0.key == key })?.value != value { names.append(key) }
        }
        for (key, _) in before where !after.contains(where: { $0.key == key }) { names.append(key) }
        return names
    }
}
