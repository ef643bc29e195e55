public import ClipCore

/// What a QR code or NFC tag is made for: a URL that opens an App Clip card. A code is printed and
/// stuck on a table or a bike for months, so one that opens nothing is refused, with the reason,
/// rather than made.
public struct CodeTarget: Sendable, Equatable {
    /// The text the code holds: the URL as given (an invocation URL reaches the clip whole), or an
    /// experience's registered URL.
    public let url: String
    /// The experience the URL opens; nil when it opens a clip's default experience.
    public let experienceID: Int64?
    /// The clip the URL launches.
    public let clip: AppID
    /// A registered experience's card title and labels, for the people who match printed codes to places
    /// (a print bundle's `manifest.csv` and `--name`).
    public let title: String?
    public let labels: [String: String]

    public init(url: String, experienceID: Int64?, clip: AppID, title: String? = nil, labels: [String: String] = [:]) {
        self.url = url
        self.experienceID = experienceID
        self.clip = clip
        self.title = title
        self.labels = labels
    }

    /// Why no code is made for a URL.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a URL an App Clip can be invoked with (not https, no host, …).
        case notInvocable(String)
        /// No experience covers it and no default experience applies.
        case noMatch(String)
        /// The experiences that cover it are all deactivated.
        case deactivated(ids: [Int64])
        /// The experience's host does not list its clip in its AASA: iOS would not launch the clip there.
        case hostNotAssociated(host: String, clip: AppID)

        public var description: String {
            switch self {
            case .notInvocable(let why): "not an invocation URL: \(why)"
            case .noMatch(let why): "the URL opens no App Clip card: \(why)"
            case .deactivated(let ids):
                "the URL is covered only by deactivated experience\(ids.count == 1 ? "" : "s") "
                    + ids.map(String.init).joined(separator: ", ") + ": activate one first (clipctl activate ID)"
            case .hostNotAssociated(let host, let clip):
                "\(host) is not associated with \(clip.rawValue), so its AASA does not list the clip and iOS would not launch it: "
                    + Shell.command(["clipctl", "domain", "add", clip.rawValue, host])
            }
        }

        /// True for the refusals that mean "nothing is there" (HTTP 404) rather than "something is
        /// there but cannot be used as it is" (HTTP 422).
        public var isNotFound: Bool {
            if case .noMatch = self { return true }
            return false
        }
    }

    /// The rule for a URL, once it is known to be an invocation URL (`NormalizedURL` accepts it; when it
    /// does not, the refusal is `.notInvocable`): it gets a code when it resolves (`Resolver`) to an active experience whose
    /// host is associated with its clip, or to the default experience of a clip associated with the
    /// host (the resolver offers only those, and an association is what puts the clip in the host's AASA).
    /// - Parameter associated: whether `host` is associated with `clip`.
    public static func decide(
        _ resolution: Resolution, associated: (_ clip: AppID, _ host: String) -> Bool
    ) -> Result<CodeTarget, Refusal> {
        switch resolution.match {
        case .advanced(let experience, _):
            guard associated(experience.clip, experience.url.host) else {
                return .failure(.hostNotAssociated(host: experience.url.host, clip: experience.clip))
            }
            return .success(CodeTarget(url: resolution.invocationURL, experienceID: experience.id, clip: experience.clip))
        case .defaultExperience(let fallback, _):
            return .success(CodeTarget(url: resolution.invocationURL, experienceID: nil, clip: fallback.experience.clip))
        case nil:
            let deactivated = resolution.candidates.filter { $0.outcome == .deactivated }.map(\.id)
            if !deactivated.isEmpty { return .failure(.deactivated(ids: deactivated.sorted())) }
            return .failure(.noMatch(resolution.reason ?? "no experience covers it"))
        }
    }

    /// The rule for a registered experience: it gets a code for its own URL when it is active and its
    /// host is associated with its clip.
    public static func decide(
        _ experience: AdvancedExperience, associated: (_ clip: AppID, _ host: String) -> Bool
    ) -> Result<CodeTarget, Refusal> {
        guard experience.status == .active else { return .failure(.deactivated(ids: [experience.id])) }
        guard associated(experience.clip, experience.url.host) else {
            return .failure(.hostNotAssociated(host: experience.url.host, clip: experience.clip))
        }
        return .success(
            CodeTarget(
                url: experience.url.canonical, experienceID: experience.id, clip: experience.clip, title: experience.defaultCard.title,
                labels: experience.labels))
    }
}

extension CodeTarget {
    /// Why a URL given for a code holds a character nobody can see on the printed code (`TextLimits.isInvisible`: a
    /// space, a control, a format character such as U+200B or a bidirectional mark, a Hangul filler, a variation
    /// selector, a blank glyph…); nil when it holds none.
    public static func invisibleCharacterProblem(_ url: String) -> String? {
        guard let scalar = url.unicodeScalars.first(where: TextLimits.isInvisible) else { return nil }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "it holds U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex), "
            + "a character nobody can see on a printed code (percent-encode it if it is meant)"
    }
}
