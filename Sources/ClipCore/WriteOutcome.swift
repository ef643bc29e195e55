/// What a write implied besides its own object: the teams, apps, clips and domain associations
/// it created (a registration "creates the team, app, clip and domain association it implies,
/// and says so": docs/rules.md) and the hosts whose holders changed (HostOwnership).
/// `text` is the one rendering, used by the API, `clipctl` (local and remote) and the tests.
public enum WriteNote: Hashable, Sendable {
    case createdTeam(TeamID)
    /// `team` is named when the app was implied by a clip (`register`, `clip add`), not when it
    /// was saved by itself (`app set`, which names the team).
    case createdApp(BundleID, team: TeamID?)
    case updatedApp(BundleID)
    /// An app made without a name: its default experience's card has no title until it is given one
    /// (Apple: the default experience's card shows the app's name).
    case appWithoutName(BundleID, team: TeamID)
    case createdClip(AppID)
    case associated(host: String, clip: AppID)
    case hostOwned(host: String, team: TeamID)
    case hostReleased(host: String, team: TeamID)
    case hostShared(host: String, team: TeamID)
    case hostShareConfirmed(host: String, team: TeamID)
    case hostShareEnded(host: String, team: TeamID)
    case createdDefaultExperience(AppID)
    case updatedDefaultExperience(AppID)
    /// The kill switch: an experience of the clip deactivated, which the registry's surfaces stopped matching at once;
    /// App Store Connect's copy and devices follow later (docs/schedules.md#app-store-connect).
    case deactivated(AppID, linkedToAppStoreConnect: Bool)
    /// A note this client does not know (from a newer server), kept as its text.
    case other(String)

    public var text: String {
        switch self {
        case .createdTeam(let team): "created team \(team.rawValue)"
        case .createdApp(let app, let team?): "created app \(app.rawValue) (team \(team.rawValue))"
        case .createdApp(let app, nil): "created app \(app.rawValue)"
        case .updatedApp(let app): "updated app \(app.rawValue)"
        case .appWithoutName(let app, let team):
            "app \(app.rawValue) has no name, which its default card shows: clipctl app set \(app.rawValue) --team \(team.rawValue) --name NAME"
        case .createdClip(let clip): "created clip \(clip.rawValue)"
        case .associated(let host, let clip): "associated \(host) with clip \(clip.rawValue) (its AASA now lists the clip)"
        case .hostOwned(let host, let team): "host \(host) now belongs to team \(team.rawValue)"
        case .hostReleased(let host, let team): "team \(team.rawValue) no longer holds \(host)"
        case .hostShared(let host, let team): "team \(team.rawValue) now shares \(host)"
        case .hostShareConfirmed(let host, let team): "confirmed that team \(team.rawValue) shares \(host)"
        case .hostShareEnded(let host, let team): "team \(team.rawValue) no longer shares \(host)"
        case .createdDefaultExperience(let clip): "created the default experience of \(clip.rawValue)"
        case .updatedDefaultExperience(let clip): "updated the default experience of \(clip.rawValue)"
        case .deactivated(let clip, let linked):
            "an experience of clip \(clip.rawValue) no longer matches on the registry's surfaces; "
                + (linked
                    ? "clipctl serve pushes its removal to App Store Connect at once (or clipctl asc apply)"
                    : "the clip is not linked to App Store Connect (remove it there too if it is there)")
                + "; devices may still show its card for 48 hours or more (docs/schedules.md#app-store-connect)"
        case .other(let text): text
        }
    }

    /// The note whose `text` this is (a remote `clipctl` reads the server's notes back); `.other`
    /// when no case renders it.
    public init(text: String) {
        self = Self.parse(text) ?? .other(text)
    }

    private static func parse(_ text: String) -> WriteNote? {
        let words = text.split(separator: " ").map(String.init)
        func word(_ i: Int) -> String { i < words.count ? words[i] : "" }
        func team(_ i: Int) -> TeamID? { try? TeamID(word(i)) }
        func bundle(_ i: Int) -> BundleID? { try? BundleID(word(i)) }
        func clip(_ i: Int) -> AppID? { try? AppID(word(i)) }
        let readings: [WriteNote?] = [
            team(2).map { .createdTeam($0) },
            bundle(2).map { .createdApp($0, team: nil) },
            bundle(2).flatMap { app in (try? TeamID(String(word(4).dropLast()))).map { .createdApp(app, team: $0) } },
            bundle(2).map { .updatedApp($0) },
            bundle(1).flatMap { app in team(15).map { .appWithoutName(app, team: $0) } },
            clip(2).map { .createdClip($0) },
            clip(4).map { .associated(host: word(1), clip: $0) },
            team(6).map { .hostOwned(host: word(1), team: $0) },
            team(1).map { .hostReleased(host: word(5), team: $0) },
            team(1).map { .hostShared(host: word(4), team: $0) },
            team(3).map { .hostShareConfirmed(host: word(5), team: $0) },
            team(1).map { .hostShareEnded(host: word(5), team: $0) },
            clip(5).map { .createdDefaultExperience($0) },
            clip(5).map { .updatedDefaultExperience($0) },
            clip(4).map { .deactivated($0, linkedToAppStoreConnect: true) },
            clip(4).map { .deactivated($0, linkedToAppStoreConnect: false) },
        ]
        // Only a reading that renders back to the same text is this note.
        return readings.lazy.compactMap { $0 }.first { $0.text == text }
    }
}

/// The result of a write: the object as stored, whether this write created it, what else it
/// implied (`notes`), warnings about accepted input, and the hosts whose AASA it changed (or may
/// have: every one of them was checked before the write committed).
public struct WriteOutcome<Value> {
    public var value: Value
    public var created: Bool
    public var notes: [WriteNote]
    public var warnings: [FieldError]
    public var touchedHosts: [String]
    /// False when the write found everything as asked and wrote nothing: no version, no change
    /// record (docs/rules.md#updates-and-versions).
    public var changed = true

    public init(
        _ value: Value, created: Bool = false, notes: [WriteNote] = [], warnings: [FieldError] = [],
        touchedHosts: [String] = []
    ) {
        self.value = value
        self.created = created
        self.notes = notes
        self.warnings = warnings
        self.touchedHosts = touchedHosts
    }

    /// True when the write changed nothing it reports (no creation, no note).
    public var isQuiet: Bool { !created && notes.isEmpty }
}

extension WriteOutcome: Sendable where Value: Sendable {}
extension WriteOutcome: Equatable where Value: Equatable {}
