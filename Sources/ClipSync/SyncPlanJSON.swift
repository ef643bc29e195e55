public import StrictJSON
import ClipCore

/// The JSON of `clipctl asc plan --json` and `asc status --json`: beside the plan, since only these
/// commands print it (ClipWire holds the registry's own wire shapes and knows nothing of App Store Connect).
extension SyncPlan {
    /// The state `asc status` shows for a step.
    public static func state(of step: Step) -> String {
        if step.drifted { return "drifted" }
        if step.experienceID == nil { return step.action == .nothing ? "asc-only" : "pending" }
        return step.action == .nothing ? "in-sync" : "pending"
    }

    public var json: JSONValue {
        let counts = Dictionary(grouping: pending, by: \.action.rawValue).sorted { $0.key < $1.key }.map {
            (key: $0.key, value: JSONValue.integer(Int64($0.value.count)))
        }
        return [
            "clip": .string(clip.rawValue), "inSync": .bool(isInSync), "pending": .object(counts),
            "refused": .integer(Int64(refused.count)),
            "steps": .array(
                steps.map { step in
                    [
                        "experience": step.experienceID.map { .integer($0) } ?? .null, "url": .string(step.url),
                        "ascExperienceId": step.ascExperienceID.map { .string($0) } ?? .null,
                        "ascState": step.ascState.map { .string($0) } ?? .null, "action": .string(step.action.rawValue),
                        "state": .string(Self.state(of: step)), "drifted": .bool(step.drifted),
                        "changes": .array(
                            step.changes.map { ["field": .string($0.field), "before": .string($0.before), "after": .string($0.after)] }),
                        "refusals": .array(
                            step.refusals.map { ["rule": .string($0.rule), "message": .string($0.message), "fix": .string($0.fix)] }),
                        "notes": .array(step.notes.map { .string($0) }),
                    ]
                }),
        ]
    }
}
