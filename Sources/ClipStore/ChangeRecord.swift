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
    /// The whole database (`entity_id` "main"): a restore.
    case registry
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
