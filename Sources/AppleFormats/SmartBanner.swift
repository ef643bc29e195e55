public import ClipCore

/// The Smart App Banner tag (docs/rules.md#smart-app-banner, docs/apple-formats.md#smart-app-banner):
/// `<meta name="apple-itunes-app" content="app-id=…, app-argument=…, app-clip-bundle-id=…, app-clip-display=card">`.
public enum SmartBanner {
    public struct Banner: Sendable, Equatable {
        /// The `content` attribute's value, before HTML escaping.
        public let content: String
        /// The whole tag, HTML-escaped.
        public let metaTag: String
        public init(content: String, metaTag: String) {
            self.content = content
            self.metaTag = metaTag
        }
    }

    /// - Parameters:
    ///   - appStoreID: the full app's numeric App Store ID; `app-id` is left out without one.
    ///   - clipBundleID: the clip's bundle ID, without the team prefix (docs/apple-formats.md#smart-app-banner).
    ///   - appArgument: an absolute URL for the full app, when asked for.
    public static func make(appStoreID: AppStoreID?, clipBundleID: BundleID, appArgument: String?) throws(ValidationFailure) -> Banner {
        var parameters: [String] = []
        if let appStoreID { parameters.append("app-id=\(appStoreID.rawValue)") }
        if let appArgument { parameters.append("app-argument=\(try encodeAppArgument(appArgument))") }
        parameters.append("app-clip-bundle-id=\(clipBundleID.rawValue)")
        parameters.append("app-clip-display=card")
        let content = parameters.joined(separator: ", ")
        return Banner(content: content, metaTag: "<meta name=\"apple-itunes-app\" content=\"\(HTMLText.escaped(content))\">")
    }

    /// An absolute URL (RFC 3986 §4.3) with every byte that could end a parameter or the
    /// attribute percent-encoded: "," separates the banner's parameters (docs/apple-formats.md#smart-app-banner), and
    /// spaces, quotes, "<", ">" and non-ASCII are not valid raw in a URL anyway.
    public static func encodeAppArgument(_ url: String) throws(ValidationFailure) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]),
            bytes[..<colon].allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
            colon + 1 < bytes.count, bytes.count <= NormalizedURL.maxLength
        else {
            throw ValidationFailure(
                field: "appArgument", rule: "appArgument.format", message: "must be an absolute URL such as https://shop.example/item/1")
        }
        return PercentEncoding.encode(bytes) { b in
            !(b <= 0x20 || b >= 0x7F || b == UInt8(ascii: ",") || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<")
                || b == UInt8(ascii: ">") || b == UInt8(ascii: "'") || b == UInt8(ascii: "`") || b == UInt8(ascii: "\\"))
        }
    }
}

extension SmartBanner {
    /// Why no clip can be named for a page's banner.
    public enum ClipChoiceProblem: Error, Equatable, Sendable {
        /// The clip asked for is not associated with the page's host.
        case notAssociated(AppID, host: String)
        case noClip(host: String)
        /// Several clips are associated with the host and none was asked for or resolved.
        case ambiguous(host: String, clips: [AppID])

        public var message: String {
            switch self {
            case .notAssociated(let clip, let host):
                "\(host) is not associated with clip \(clip.rawValue): Safari would not show its banner there; associate it first (clipctl domain add \(clip.rawValue) \(host))"
            case .noClip(let host):
                "\(host) is not associated with any clip: Safari would not show an App Clip banner there; register an experience on it or associate a clip (clipctl domain add CLIP \(host))"
            case .ambiguous(let host, let clips):
                "\(host) is associated with \(clips.count) clips (\(clips.map(\.rawValue).joined(separator: ", "))); choose one"
            }
        }
    }

    /// The clip a page's banner names: the one asked for, else the clip of the advanced
    /// experience the page resolves to, else the only clip associated with the page's host. The
    /// clip must be associated with the host: Safari shows an App Clip's banner only on a domain
    /// in its `appclips` associated domains ("Supporting associated domains" and "Promoting
    /// apps with Smart App Banners" in Apple's documentation). `experienceID` is the resolved
    /// experience's when it decided.
    public static func chooseClip(host: String, associated: [AppID], requested: AppID?, resolved: AdvancedExperience?)
        throws(ClipChoiceProblem) -> (clip: AppID, experienceID: Int64?)
    {
        if let requested {
            guard associated.contains(requested) else { throw .notAssociated(requested, host: host) }
            return (requested, nil)
        }
        if let resolved, associated.contains(resolved.clip) { return (resolved.clip, resolved.id) }
        if associated.count == 1 { return (associated[0], nil) }
        if associated.isEmpty { throw .noClip(host: host) }
        throw .ambiguous(host: host, clips: associated)
    }
}

/// The banner of one page: the tag, the clip it names, the experience the page resolves to (if
/// any), and notes on what the tag lacks.
public struct PageBanner: Sendable, Equatable {
    public let banner: SmartBanner.Banner
    public let clip: AppID
    public let pageURL: String
    /// The advanced experience the page resolves to, if any.
    public let experienceID: Int64?
    public let notes: [String]

    public init(banner: SmartBanner.Banner, clip: AppID, pageURL: String, experienceID: Int64?, notes: [String]) {
        self.banner = banner
        self.clip = clip
        self.pageURL = pageURL
        self.experienceID = experienceID
        self.notes = notes
    }
}
