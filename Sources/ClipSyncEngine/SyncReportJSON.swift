import AppStoreConnect
import ClipCore
public import ClipSync
public import StrictJSON

// The JSON of `clipctl asc apply|pull --json` and of `POST /v1/asc/apply` (README "App Store Connect"), owned here
// beside the reports it writes.

extension ApplyReport {
    public var json: JSONValue {
        .object([
            "clip": .string(clip.rawValue),
            "done": .array(
                done.map { d in
                    [
                        "experience": d.experienceID.map { .integer($0) } ?? .null, "url": .string(d.url),
                        "action": .string(d.action.rawValue),
                        "ascExperienceId": d.ascExperienceID.map { .string($0) } ?? .null,
                    ]
                }),
            "left": .integer(Int64(left)), "notes": .array(notes.map { .string($0) }),
            "pending": .array(pending.map { .string($0) }), "recovered": .array(recovered.map { .string($0) }),
            "requests": [
                "total": .integer(Int64(requests.values.reduce(0, +))),
                "byKind": .object(requests.sorted { $0.key < $1.key }.map { ($0.key.rawValue, .integer(Int64($0.value))) }),
            ],
            "stopped": failure.map { .string($0.description) } ?? .null,
            "rateLimit": rateLimit.flatMap { limit in
                limit.hourRemaining.map {
                    ["remaining": .integer(Int64($0)), "limit": limit.hourLimit.map { .integer(Int64($0)) } ?? .null]
                }
            } ?? .null,
        ])
    }

    /// The reports of an answer of `POST /v1/asc/apply` (`{"applied": [...]}`), for `clipctl --server … asc apply`.
    public static func reports(from json: JSONValue) throws(SyncPlanWireError) -> [ApplyReport] {
        guard let applied = json["applied"]?.arrayValue else { throw SyncPlanWireError("the answer has no applied reports") }
        var reports: [ApplyReport] = []
        for item in applied {
            guard let text = item["clip"]?.stringValue, let clip = try? AppID(text) else {
                throw SyncPlanWireError("a report without clip")
            }
            var report = ApplyReport(clip: clip)
            for d in item["done"]?.arrayValue ?? [] {
                guard let url = d["url"]?.stringValue, let action = d["action"]?.stringValue.flatMap(SyncPlan.Action.init(rawValue:)) else {
                    throw SyncPlanWireError("a step done without url or action")
                }
                var experience: Int64?
                if case .integer(let id)? = d["experience"] { experience = id }
                report.done.append(
                    .init(experienceID: experience, url: url, action: action, ascExperienceID: d["ascExperienceId"]?.stringValue))
            }
            if case .integer(let left)? = item["left"] { report.left = Int(left) }
            report.notes = (item["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
            report.pending = (item["pending"]?.arrayValue ?? []).compactMap(\.stringValue)
            report.recovered = (item["recovered"]?.arrayValue ?? []).compactMap(\.stringValue)
            if case .object(let kinds)? = item["requests"]?["byKind"] {
                for (name, value) in kinds {
                    if let kind = ASCRequestKind(rawValue: name), case .integer(let n) = value { report.requests[kind] = Int(n) }
                }
            }
            report.failure = item["stopped"]?.stringValue.map(SyncFailure.remote)
            // The key's budget as `X-Rate-Limit` told it (`rateLimit` above), for the summary's "requests left" line.
            if case .integer(let remaining)? = item["rateLimit"]?["remaining"] {
                var header = "user-hour-rem:\(remaining);"
                if case .integer(let limit)? = item["rateLimit"]?["limit"] { header += "user-hour-lim:\(limit);" }
                report.rateLimit = ASCRateLimit(header: header)
            }
            reports.append(report)
        }
        return reports
    }
}

extension PullReport {
    public var json: JSONValue {
        [
            "clip": .string(clip.rawValue),
            "adopted": .array(adopted.map { ["experience": .integer($0.id), "url": .string($0.url)] }),
            "same": .integer(Int64(same)),
            "differing": .array(
                differing.map { d in
                    [
                        "experience": .integer(d.experienceID), "url": .string(d.url),
                        "tookAppStoreConnect": .bool(tookASC.contains(d.experienceID)),
                        "keptRegistry": .bool(keptRegistry.contains(d.experienceID)),
                        "changes": .array(
                            d.changes.map {
                                ["field": .string($0.field), "appStoreConnect": .string($0.before), "registry": .string($0.after)]
                            }),
                    ]
                }),
            "defaultExperience": defaultExperience.map { .string($0) } ?? .null,
            "defaultExperienceChanges": .array(
                defaultExperienceChanges.map {
                    ["field": .string($0.field), "appStoreConnect": .string($0.before), "registry": .string($0.after)]
                }),
            "notes": .array(notes.map { .string($0) }),
        ]
    }
}
