public import ClipCore
import SQLiteDB
import StrictJSON

/// Undo from the change records (docs/rules.md#change-records): an experience made again what it was at an earlier
/// version, as one new version with its own change record, so that the undo is itself in the history.
extension Registry {
    /// Restores the experience `reference` names to its fields at `version` (the `after` of the change record that made
    /// that version). Refused when no record made that version (404), when the experience changed since
    /// `expectedVersion` (412), or when the old fields no longer hold (a URL taken since, an image no longer held: 422,
    /// 409). When it already has that version's fields, nothing is written.
    public func revert(
        _ reference: String, toVersion version: Int, expectedVersion: Int? = nil
    ) throws(RegistryError) -> WriteOutcome<AdvancedExperience> {
        let current = try experience(reference)
        return try writeOutcome {
            let before = try reread(current, expectedVersion: expectedVersion)
            guard let recorded = try recordedVersion(of: before.id, version) else {
                throw RegistryError.notFound("version \(version) of experience \(before.id)")
            }
            // The recorded form is the portable one with the identity and the times around it (`AuditForm.experience`).
            guard case .object(let members) = recorded else {
                throw RegistryError.storage("a change record of experience \(before.id) is not an object")
            }
            let portable = JSONValue.object(members.filter { !["id", "version", "createdAt", "updatedAt"].contains($0.key) })
            var (target, _) = try decode(portable, base: nil)
            (target.id, target.version, target.createdAt, target.updatedAt) = (
                before.id, before.version, before.createdAt, before.updatedAt
            )
            var notes: [WriteNote] = []
            if target.clip != before.clip { notes += try ensureClip(target.clip) }
            let (saved, implied) = try applyUpdate(target, over: before, imageCarried: false)
            var outcome = WriteOutcome(saved ?? before, notes: notes + implied)
            outcome.changed = saved != nil
            return outcome
        }
    }

    /// The experience as the change record that made `version` left it, or nil when none did.
    func recordedVersion(of id: Int64, _ version: Int) throws -> JSONValue? {
        let rows = try db.query(
            "SELECT after, form FROM change_record WHERE entity = 'experience' AND entity_id = ? AND after IS NOT NULL ORDER BY id",
            [.text(String(id))])
        for row in rows {
            let after = try AuditForm.read(try row.string("after"), form: Int64(try row.int("form")))
            if after["version"] == .integer(Int64(version)) { return after }
        }
        return nil
    }
}
