/// The Smart App Banner tag (design §3.4, apple-spec §5):
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
    ///   - clipBundleID: the clip's bundle ID, without the team prefix (apple-spec §5).
    ///   - appArgument: an absolute URL for the full app, when asked for.
    public static func make(appStoreID: AppStoreID?, clipBundleID: BundleID, appArgument: String?) throws(ValidationFailure) -> Banner {
        var parameters: [String] = []
        if let appStoreID { parameters.append("app-id=\(appStoreID.rawValue)") }
        if let appArgument { parameters.append("app-argument=\(try encodeAppArgument(appArgument))") }
        parameters.append("app-clip-bundle-id=\(clipBundleID.rawValue)")
        parameters.append("app-clip-display=card")
        let content = parameters.joined(separator: ", ")
        return Banner(content: content, metaTag: "<meta name=\"apple-itunes-app\" content=\"\(htmlEscape(content))\">")
    }

    /// An absolute URL (RFC 3986 §4.3) with every byte that could end a parameter or the
    /// attribute percent-encoded: "," separates the banner's parameters (apple-spec §5), and
    /// spaces, quotes, "<", ">" and non-ASCII are not valid raw in a URL anyway.
    public static func encodeAppArgument(_ url: String) throws(ValidationFailure) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]),
            bytes[..<colon].allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
            colon + 1 < bytes.count, bytes.count <= NormalizedURL.maxLength
        else {
            throw ValidationFailure(field: "appArgument", rule: "appArgument.format", message: "must be an absolute URL such as https://shop.example/item/1")
        }
        var out: [UInt8] = []
        for b in bytes {
            if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: ",") || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<")
                || b == UInt8(ascii: ">") || b == UInt8(ascii: "'") || b == UInt8(ascii: "`") || b == UInt8(ascii: "\\")
            {
                out += [UInt8(ascii: "%"), NormalizedURL.hexDigits[Int(b >> 4)], NormalizedURL.hexDigits[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// HTML attribute escaping (HTML §13.1.2.3): `&`, `"`, `'`, `<`, `>`.
    public static func htmlEscape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
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
