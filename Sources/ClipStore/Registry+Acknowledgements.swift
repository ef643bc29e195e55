public import ClipCore
import SQLiteDB

/// Doctor rules acknowledged over a scope (Migrations/0014_doctor_acknowledgements.sql,
/// docs/aasa-tools.md#acknowledged-findings).
extension Registry {
    /// Acknowledges `rule` over `scope` for `team` (nil: every team); the same rule, scope and team again answers the
    /// one there is, with the new note when one is given. The scope's host is normalized and its clip read as the App ID it names (a team's own).
    public func acknowledge(
        rule: String, scope given: ExperienceSelector, team: TeamID?, note: String?
    ) throws(RegistryError) -> WriteOutcome<DoctorAcknowledgement> {
        var errors: [FieldError] = []
        if let note { errors += TextLimits.check(note, field: "note", max: DoctorAcknowledgement.noteMax) }
        var scope = given
        if let host = given.host {
            do throws(RegistryError) { scope.host = try Self.normalizeHost(host) } catch {
                if case .invalid(let e) = error { errors += e } else { throw error }
            }
        }
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        if let clip = given.clip {
            let id = try clipID(clip)
            guard team == nil || id.team == team else { throw RegistryError.notFound("clip \(clip)") }
            scope.clip = id.rawValue
        }
        return try writeOutcome {
            let text = scope.text
            if let row = try db.query(
                "SELECT * FROM doctor_acknowledgement WHERE rule = ? AND scope = ? AND team_id IS ?",
                [.text(rule), .text(text), .text(team?.rawValue)]
            ).first {
                let existing = try readAcknowledgement(row)
                // The same acknowledgement again: a new note replaces the old one (one change record), else nothing is written.
                guard let note, note != existing.note else {
                    var same = WriteOutcome(existing)
                    same.changed = false
                    return same
                }
                try db.execute("UPDATE doctor_acknowledgement SET note = ? WHERE id = ?", [.text(note), .integer(existing.id)])
                let noted = try readAcknowledgement(
                    try db.query("SELECT * FROM doctor_acknowledgement WHERE id = ?", [.integer(existing.id)]).first!)
                try recordChange(
                    entity: .acknowledgement, id: String(existing.id), action: .update, before: AuditForm.acknowledgement(existing),
                    after: AuditForm.acknowledgement(noted))
                return WriteOutcome(noted)
            }
            let notes = try team.map(ensureTeam) ?? []
            try db.execute(
                "INSERT INTO doctor_acknowledgement(rule, scope, team_id, note, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(rule), .text(text), .text(team?.rawValue), .text(note), .text(timestamp())])
            let added = try readAcknowledgement(
                try db.query("SELECT * FROM doctor_acknowledgement WHERE id = ?", [.integer(db.lastInsertRowID)]).first!)
            try recordChange(
                entity: .acknowledgement, id: String(added.id), action: .create, before: nil, after: AuditForm.acknowledgement(added))
            return WriteOutcome(added, created: true, notes: notes)
        }
    }

    /// The acknowledgements, all or one team's, oldest first.
    public func acknowledgements(team: TeamID? = nil) throws(RegistryError) -> [DoctorAcknowledgement] {
        try guarded {
            try db.query("SELECT * FROM doctor_acknowledgement WHERE ?1 IS NULL OR team_id = ?1 ORDER BY id", [.text(team?.rawValue)])
                .map(readAcknowledgement)
        }
    }

    /// Removes acknowledgement `id` of `team` (nil: any); another team's is not found.
    public func removeAcknowledgement(id: Int64, team: TeamID?) throws(RegistryError) -> WriteOutcome<DoctorAcknowledgement> {
        try writeOutcome {
            guard
                let row = try db.query(
                    "SELECT * FROM doctor_acknowledgement WHERE id = ? AND (?2 IS NULL OR team_id = ?2)",
                    [.integer(id), .text(team?.rawValue)]
                ).first
            else { throw RegistryError.notFound("acknowledgement \(id)") }
            let removed = try readAcknowledgement(row)
            try db.execute("DELETE FROM doctor_acknowledgement WHERE id = ?", [.integer(id)])
            try recordChange(
                entity: .acknowledgement, id: String(id), action: .remove, before: AuditForm.acknowledgement(removed), after: nil)
            return WriteOutcome(removed)
        }
    }

    func readAcknowledgement(_ row: Row) throws -> DoctorAcknowledgement {
        DoctorAcknowledgement(
            id: Int64(try row.int("id")), rule: try row.string("rule"), scope: try ExperienceSelector(try row.string("scope")),
            team: try row.optionalString("team_id").map { try TeamID($0) }, note: try row.optionalString("note"),
            createdAt: try row.string("created_at"))
    }
}
