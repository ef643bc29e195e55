public import ClipCore
public import StrictJSON

/// A doctor rule acknowledged over a scope (`/v1/doctor/acknowledgements`; docs/aasa-tools.md#acknowledged-findings).
extension DoctorAcknowledgement: WireShape {
    public var json: JSONValue {
        .object([
            ("id", .integer(id)), ("rule", .string(rule)), ("where", .string(scope.text)),
            ("team", team.map { .string($0.rawValue) } ?? .null), ("note", note.map(JSONValue.string) ?? .null),
            ("createdAt", .string(createdAt)),
        ])
    }

    public init(json value: JSONValue) throws(WireError) {
        let r = WireReader(value, "acknowledgement")
        let scope: ExperienceSelector
        do { scope = try ExperienceSelector(try r.string("where")) } catch { throw WireError("an acknowledgement's where: \(error)") }
        let team: TeamID?
        do { team = try value["team"]?.stringValue.map { try TeamID($0) } } catch { throw WireError("an acknowledgement's team: \(error)") }
        self.init(
            id: try r.int64("id"), rule: try r.string("rule"), scope: scope, team: team, note: value["note"]?.stringValue,
            createdAt: try r.string("createdAt"))
    }
}
