public import ClipCore
public import StrictJSON

/// The experience as the API answers it and `clipctl --json` prints it; the portable form and
/// the input reader are ClipCore's (import and export use them too).
extension ExperienceJSON {
    /// The full form: `id` first, then the portable fields, then version and timestamps. With `state`, the experience's
    /// state at the answer's moment (`ExperienceState`) follows its status.
    public static func full(_ e: AdvancedExperience, state: ExperienceState? = nil) -> JSONValue {
        guard case .object(let members) = portable(e) else { return .null }
        var all: [(key: String, value: JSONValue)] = [(key: "id", value: .integer(e.id))]
        all += members
        if !members.contains(where: { $0.key == "status" }) { all.append((key: "status", value: .string(e.status.rawValue))) }
        if let state { all.append((key: "state", value: .string(state.rawValue))) }
        all += [
            (key: "version", value: .integer(Int64(e.version))),
            (key: "createdAt", value: .string(e.createdAt)),
            (key: "updatedAt", value: .string(e.updatedAt)),
        ]
        return .object(all)
    }
}
