public import AppStoreConnect
public import ClipCore
public import ClipStore
public import ClipSync

/// Why a link, plan, apply or pull stopped. Texts say what to do next; never a key or token.
public enum SyncFailure: Error, CustomStringConvertible {
    case notLinked(String)
    case noneLinked
    case noApp(bundleID: String)
    case noAppClip(app: String, appBundleID: String, clipBundleID: String)
    case registry(RegistryError)
    case appStoreConnect(ASCClientError)
    /// App Store Connect refused a step with entity errors, each mapped to the registry's field.
    case rejected(experienceID: Int64?, url: String, status: Int, errors: [FieldRejection])
    /// Steps App Store Connect would refuse, found before anything was sent.
    case refused([SyncPlan.Step])
    /// The key's hourly budget is down to the reserve left for other tools; an apply run later goes on.
    case rateBudget(remaining: Int, limit: Int?, reserve: Int)
    /// Another apply is running on this database (in this process or another).
    case applyRunning
    /// A server's apply stopped with this message (`clipctl --server … asc apply`).
    case remote(String)

    /// One of App Store Connect's `errors[]`, with the registry field its `source.pointer` names.
    public struct FieldRejection: Sendable, Equatable {
        public var field: String?
        public var code: String
        public var detail: String
        public var pointer: String?
    }

    /// The field errors a refusal or App Store Connect's entity errors come down to, as the API answers them (422) and
    /// clipctl prints them, the same on the database and over `--server`.
    public var fieldErrors: [FieldError] {
        switch self {
        case .refused(let steps):
            steps.flatMap { step in
                step.refusals.map { FieldError(field: step.url, rule: $0.rule, message: "\($0.message) (fix: \($0.fix))") }
            }
        case .rejected(_, _, _, let errors):
            errors.compactMap { e in e.field.map { FieldError(field: $0, rule: e.code, message: e.detail) } }
        default: []
        }
    }

    public var description: String {
        switch self {
        case .notLinked(let clip): "clip \(clip) is not linked: run clipctl asc link \(clip) first"
        case .noneLinked: "no clip is linked to App Store Connect: run clipctl asc link CLIP first"
        case .noApp(let bundle):
            "App Store Connect has no app with bundle ID \(bundle) for this key (create it there, or check the key's team)"
        case .noAppClip(let app, let appBundle, let clipBundle):
            "App Store Connect's app \(appBundle) (\(app)) has no App Clip \(clipBundle) (upload a build with the App Clip first)"
        case .registry(let error): error.description
        case .appStoreConnect(let error): error.description
        case .rejected(let id, let url, let status, let errors):
            "App Store Connect refused experience \(id.map(String.init) ?? "-") (\(url)) with HTTP \(status): "
                + errors.map { e in (e.field.map { "\($0): " } ?? "") + e.detail + " [\(e.code)]" }.joined(separator: "; ")
        case .refused(let steps):
            "nothing was sent: App Store Connect would refuse \(steps.count) step(s):\n"
                + steps.map { step in
                    step.refusals.map { "  \(step.url): \($0.message)\n    fix: \($0.fix)" }.joined(separator: "\n")
                }.joined(separator: "\n")
        case .remote(let message): message
        case .applyRunning: "an App Store Connect apply is running on this database; try again when it has finished"
        case .rateBudget(let remaining, let limit, let reserve):
            "stopped: the key has \(remaining)\(limit.map { " of \($0)" } ?? "") requests left this hour and \(reserve) are kept "
                + "for other tools; run apply again later to finish (it resumes where it stopped)"
        }
    }
}
