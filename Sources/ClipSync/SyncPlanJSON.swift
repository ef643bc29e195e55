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
        let counts = pendingCounts.map { (key: $0.action, value: JSONValue.integer(Int64($0.count))) }
        return [
            "clip": .string(clip.rawValue), "inSync": .bool(isInSync), "pending": .object(counts),
            "defaultExperience": defaultExperience.map(\.json) ?? .null,
            "refused": .integer(Int64(refused.count)),
            "steps": .array(
                steps.map { step in
                    [
                        "experience": step.experienceID.map { .integer($0) } ?? .null, "url": .string(step.url),
                        "ascExperienceId": step.ascExperienceID.map { .string($0) } ?? .null,
                        "ascState": step.ascState.map { .string($0) } ?? .null, "action": .string(step.action.rawValue),
                        "state": .string(Self.state(of: step)), "drifted": .bool(step.drifted),
                        "changes": Self.json(step.changes), "refusals": Self.json(step.refusals),
                        "notes": .array(step.notes.map { .string($0) }),
                    ]
                }),
        ]
    }

    /// The plans of an answer of `GET /v1/asc/plan` (`{"plans": [...]}`): what `clipctl --server … asc plan` prints.
    public static func plans(from json: JSONValue) throws(SyncPlanWireError) -> [SyncPlan] {
        guard let plans = json["plans"]?.arrayValue else { throw SyncPlanWireError("the answer has no plans") }
        var result: [SyncPlan] = []
        for plan in plans { result.append(try SyncPlan(json: plan)) }
        return result
    }

    public init(json: JSONValue) throws(SyncPlanWireError) {
        guard let clipText = json["clip"]?.stringValue, let clip = try? AppID(clipText), let steps = json["steps"]?.arrayValue else {
            throw SyncPlanWireError("a plan without clip or steps")
        }
        var read: [Step] = []
        for step in steps {
            guard let url = step["url"]?.stringValue, let action = step["action"]?.stringValue.flatMap(Action.init(rawValue:)) else {
                throw SyncPlanWireError("a step without url or action")
            }
            let experience: Int64?
            if case .integer(let id)? = step["experience"] { experience = id } else { experience = nil }
            read.append(
                Step(
                    experienceID: experience, url: url, ascExperienceID: step["ascExperienceId"]?.stringValue,
                    ascState: step["ascState"]?.stringValue, action: action,
                    changes: Self.changes(step["changes"]), refusals: Self.refusals(step["refusals"]),
                    drifted: step["drifted"]?.boolValue ?? false, notes: (step["notes"]?.arrayValue ?? []).compactMap(\.stringValue)))
        }
        self.init(clip: clip, steps: read, defaultExperience: try json["defaultExperience"].flatMap(DefaultExperiencePlan.init(json:)))
    }

    static func json(_ changes: [FieldChange]) -> JSONValue {
        .array(changes.map { ["field": .string($0.field), "before": .string($0.before), "after": .string($0.after)] })
    }

    static func json(_ refusals: [Refusal]) -> JSONValue {
        .array(refusals.map { ["rule": .string($0.rule), "message": .string($0.message), "fix": .string($0.fix)] })
    }

    static func changes(_ json: JSONValue?) -> [FieldChange] {
        (json?.arrayValue ?? []).map {
            FieldChange(
                field: $0["field"]?.stringValue ?? "", before: $0["before"]?.stringValue ?? "", after: $0["after"]?.stringValue ?? "")
        }
    }

    static func refusals(_ json: JSONValue?) -> [Refusal] {
        (json?.arrayValue ?? []).map {
            Refusal(rule: $0["rule"]?.stringValue ?? "", message: $0["message"]?.stringValue ?? "", fix: $0["fix"]?.stringValue ?? "")
        }
    }
}

extension DefaultExperiencePlan {
    public var json: JSONValue {
        [
            "appStoreVersion": appStoreVersion.map { .string($0) } ?? .null,
            "appStoreVersionId": appStoreVersionID.map { .string($0) } ?? .null,
            "ascDefaultExperienceId": ascDefaultExperienceID.map { .string($0) } ?? .null, "action": .string(action.rawValue),
            "changes": SyncPlan.json(changes), "refusals": SyncPlan.json(refusals), "notes": .array(notes.map { .string($0) }),
        ]
    }

    init?(json: JSONValue) throws(SyncPlanWireError) {
        guard json != .null else { return nil }
        guard let action = json["action"]?.stringValue.flatMap(Action.init(rawValue:)) else {
            throw SyncPlanWireError("a default experience plan without action")
        }
        self.init(
            appStoreVersion: json["appStoreVersion"]?.stringValue, appStoreVersionID: json["appStoreVersionId"]?.stringValue,
            ascDefaultExperienceID: json["ascDefaultExperienceId"]?.stringValue, action: action, changes: SyncPlan.changes(json["changes"]),
            refusals: SyncPlan.refusals(json["refusals"]), notes: (json["notes"]?.arrayValue ?? []).compactMap(\.stringValue))
    }
}

/// An answer that is not a sync plan or report.
public struct SyncPlanWireError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = "not an App Store Connect sync answer: " + description }
}
