public import StrictJSON

/// One way a served apple-app-site-association file differs from the one the registry generates,
/// in the terms a device reads it in (docs/apple-formats.md): which App Clip, which applinks entry,
/// which webcredentials app. Member order and formatting are not differences.
public struct AASADifference: Sendable, Equatable, CustomStringConvertible {
    public enum Change: String, Sendable {
        /// The registry has it; the served file lacks it.
        case missing
        /// The served file has it; the registry no longer does.
        case extra
        /// Both have it, with other content.
        case changed
        /// The same entries in another order: applinks details are tried in order, the first match wins.
        case order
    }

    /// `appclips.apps`, `applinks.details`, `applinks.defaults`, `applinks.substitutionVariables` or `webcredentials.apps`.
    public let section: String
    /// The App ID concerned; nil for a host-wide member.
    public let app: String?
    public let change: Change

    public init(section: String, app: String?, change: Change) {
        self.section = section
        self.app = app
        self.change = change
    }

    public var description: String {
        let what = app.map { "\(section) \($0)" } ?? section
        switch change {
        case .missing: return "\(what): in the registry, not served"
        case .extra: return "\(what): served, no longer in the registry"
        case .changed: return "\(what): served with other content"
        case .order: return "\(section): the same entries in another order (the first match wins)"
        }
    }
}

public enum AASAComparison {
    /// What `served` lacks or has more than `expected`, section by section.
    public static func compare(expected: JSONValue, served: JSONValue) -> [AASADifference] {
        var out = compareSets("appclips.apps", appIDs(expected["appclips"]?["apps"]), appIDs(served["appclips"]?["apps"]))
        out += compareDetails(details(expected), details(served))
        for member in ["defaults", "substitutionVariables"] where expected["applinks"]?[member] != served["applinks"]?[member] {
            out.append(AASADifference(section: "applinks.\(member)", app: nil, change: .changed))
        }
        out += compareSets(
            "webcredentials.apps", appIDs(expected["webcredentials"]?["apps"]), appIDs(served["webcredentials"]?["apps"]))
        return out
    }

    static func appIDs(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    static func compareSets(_ section: String, _ expected: [String], _ served: [String]) -> [AASADifference] {
        let have = Set(served), want = Set(expected)
        return want.subtracting(have).sorted().map { AASADifference(section: section, app: $0, change: .missing) }
            + have.subtracting(want).sorted().map { AASADifference(section: section, app: $0, change: .extra) }
    }

    /// Each details entry per App ID, in file order: its `appIDs` (or the legacy single `appID`) with the
    /// rest of the entry (Apple, "Supporting associated domains": an entry applies to each of its App IDs).
    static func details(_ document: JSONValue) -> [(app: String, entry: JSONValue)] {
        var out: [(app: String, entry: JSONValue)] = []
        for entry in document["applinks"]?["details"]?.arrayValue ?? [] {
            let ids = appIDs(entry["appIDs"]) + (entry["appID"]?.stringValue.map { [$0] } ?? [])
            let rest = JSONValue.object((entry.objectMembers ?? []).filter { $0.key != "appIDs" && $0.key != "appID" && !$0.value.isNull })
            for id in ids { out.append((id, rest)) }
        }
        return out
    }

    static func compareDetails(_ expected: [(app: String, entry: JSONValue)], _ served: [(app: String, entry: JSONValue)])
        -> [AASADifference]
    {
        let section = "applinks.details"
        var out = compareSets(section, expected.map(\.app), served.map(\.app))
        for (app, entry) in expected {
            if let other = served.first(where: { $0.app == app }), other.entry != entry {
                out.append(AASADifference(section: section, app: app, change: .changed))
            }
        }
        let common = Set(expected.map(\.app)).intersection(served.map(\.app))
        if out.isEmpty, expected.map(\.app).filter(common.contains) != served.map(\.app).filter(common.contains) {
            out.append(AASADifference(section: section, app: nil, change: .order))
        }
        return out
    }
}
