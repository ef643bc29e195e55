/// An operator's "we know" for one doctor rule over a scope of experiences (docs/aasa-tools.md#acknowledged-findings):
/// the rule's findings on the experiences the scope selects stay out of `clipctl doctor`'s report and are counted
/// under `doctor --acknowledged`. A team's acknowledgement reaches its own team's experiences only.
public struct DoctorAcknowledgement: Sendable, Equatable {
    public let id: Int64
    /// A doctor rule (`Doctor.Rule`): a finding's code.
    public let rule: String
    /// Which experiences: a selector of at least one term (docs/sheets.md#selectors), host and clip as stored.
    public let scope: ExperienceSelector
    /// nil: an administrator's (or a database's), over every team.
    public let team: TeamID?
    /// Why, as the operator said it.
    public let note: String?
    public let createdAt: String

    public init(id: Int64, rule: String, scope: ExperienceSelector, team: TeamID?, note: String?, createdAt: String) {
        self.id = id
        self.rule = rule
        self.scope = scope
        self.team = team
        self.note = note
        self.createdAt = createdAt
    }

    /// Whether this acknowledgement covers `experience`.
    public func covers(_ experience: AdvancedExperience) -> Bool {
        (team.map { $0 == experience.clip.team } ?? true) && scope.matches(experience)
    }

    /// A note is at most this many characters, checked as every stored text is.
    public static let noteMax = 200
}
