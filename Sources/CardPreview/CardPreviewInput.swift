public import AppleFormats
public import ClipCore

/// What the preview page of one invocation URL is made from, gathered by the caller from the registry.
public struct CardPreviewInput: Sendable, Equatable {
    /// The resolve answer, with every candidate of the host (`Registry.resolve`, the explanation's source).
    public var resolution: Resolution
    /// False when the URL is not an invocation URL at all (not https, no host, …): the page says why.
    public var urlIsValid: Bool
    /// The full app's name for an advanced experience's clip (empty when the registry has none).
    /// A default experience carries its own (`DefaultFallback.appName`).
    public var appName: String
    /// The Smart App Banner tag of the page at this URL, or why there is none.
    public var banner: BannerPreview
    /// Where each header image, by its SHA-256 in hexadecimal, is loaded from: a path on the same
    /// server or a `data:` URI. An image with no source here is shown as missing.
    public var imageSources: [String: String]
    /// Where the code routes are: "" for the server that serves the page, an origin such as
    /// `https://registry.example` for a file opened elsewhere, nil when there is no server (local).
    public var codesOrigin: String?
    /// Whether the URL gets a QR code and an NFC tag, as the codes rule decides (ClipCodes' `CodeTarget`, the same
    /// answer `GET /v1/codes` gives): the URL to encode, or why there is none.
    public var code: Result<String, CodeRefusal>

    /// Why a URL gets no code, in the codes rule's words.
    public struct CodeRefusal: Error, Sendable, Equatable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public init(
        resolution: Resolution, urlIsValid: Bool, appName: String, banner: BannerPreview, imageSources: [String: String],
        codesOrigin: String?, code: Result<String, CodeRefusal>
    ) {
        self.code = code
        self.resolution = resolution
        self.urlIsValid = urlIsValid
        self.appName = appName
        self.banner = banner
        self.imageSources = imageSources
        self.codesOrigin = codesOrigin
    }

    /// The SHA-256 of the header image the card shows, if it has one.
    public var headerImage: String? {
        switch resolution.match {
        case .advanced(let e, _): e.headerImage
        case .defaultExperience(let fallback, let locale): locale.flatMap { fallback.experience.localizations[$0]?.headerImage }
        case nil: nil
        }
    }
}

/// The Smart App Banner line of a preview: the tag and its notes, or why the page can have none.
public enum BannerPreview: Sendable, Equatable {
    case tag(SmartBanner.Banner, notes: [String])
    case unavailable(String)
}
