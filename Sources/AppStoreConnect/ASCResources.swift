public import StrictJSON

// Typed App Store Connect resources, as read: each keeps ASC's id and only what the App Clip flows
// use. Values a newer API may extend are `ASCValue` (unknown values kept). The client builds them
// from JSONAPIResource (a missing required member is an invalidResponse, not a crash); the public
// initializers let a pure plan and its tests state "what ASC has" without any JSON.

/// `apps`: the app that holds the App Clip.
public struct ASCApp: Equatable, Sendable {
    public var id: String
    public var bundleID: String
    public var name: String?
    /// The app's primary locale (`en-US`): every App Clip experience needs a localization in it
    /// (Apple, "App Clips and App Clip Experiences").
    public var primaryLocale: String?

    public init(id: String, bundleID: String, name: String? = nil, primaryLocale: String? = nil) {
        self.id = id
        self.bundleID = bundleID
        self.name = name
        self.primaryLocale = primaryLocale
    }

    init(_ resource: JSONAPIResource) throws(ASCClientError) {
        guard let bundleID = resource.string("bundleId") else { throw .invalidResponse("app \(resource.id) has no bundleId") }
        id = resource.id
        self.bundleID = bundleID
        name = resource.string("name")
        primaryLocale = resource.string("primaryLocale")
    }
}

/// `appClips`: made by uploading a build that contains one; the API cannot create it.
public struct ASCAppClip: Equatable, Sendable {
    public var id: String
    public var bundleID: String
    public var appID: String?

    public init(id: String, bundleID: String, appID: String? = nil) {
        self.id = id
        self.bundleID = bundleID
        self.appID = appID
    }

    init(_ resource: JSONAPIResource) throws(ASCClientError) {
        guard let bundleID = resource.string("bundleId") else { throw .invalidResponse("App Clip \(resource.id) has no bundleId") }
        id = resource.id
        self.bundleID = bundleID
        appID = resource.toOne["app"]??.id
    }
}

/// `appStoreVersions`: a version of the app; its default App Clip experience belongs to it.
public struct ASCAppStoreVersion: Equatable, Sendable {
    public var id: String
    public var versionString: String?
    public var platform: String?
    public var state: ASCValue<ASCAppVersionState>?

    public var isEditable: Bool { state?.known.map(ASCAppVersionState.editable.contains) ?? false }

    public init(id: String, versionString: String? = nil, platform: String? = "IOS", state: ASCValue<ASCAppVersionState>? = nil) {
        self.id = id
        self.versionString = versionString
        self.platform = platform
        self.state = state
    }

    init(_ resource: JSONAPIResource) {
        id = resource.id
        versionString = resource.string("versionString")
        platform = resource.string("platform")
        state = resource.string("appVersionState").map(ASCValue.init)
    }
}

/// `appClipAdvancedExperienceLocalizations`: one language of an advanced experience's card.
public struct ASCAdvancedExperienceLocalization: Equatable, Sendable {
    public var id: String
    public var language: ASCValue<AppClipLanguage>?
    public var title: String?
    public var subtitle: String?

    public init(id: String, language: ASCValue<AppClipLanguage>?, title: String?, subtitle: String?) {
        self.id = id
        self.language = language
        self.title = title
        self.subtitle = subtitle
    }

    init(_ resource: JSONAPIResource) {
        id = resource.id
        language = resource.string("language").map(ASCValue.init)
        title = resource.string("title")
        subtitle = resource.string("subtitle")
    }
}

/// One upload operation of a reserved image: send `bytes[offset ..< offset+length]` to `url` with
/// `method` and `headers`, no JWT (Apple, "Uploading Assets to App Store Connect").
public struct ASCUploadOperation: Equatable, Sendable {
    public var method: String
    public var url: String
    public var offset: Int
    public var length: Int
    public var headers: [String: String]

    public init(method: String, url: String, offset: Int, length: Int, headers: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.offset = offset
        self.length = length
        self.headers = headers
    }
}

/// `appClipAdvancedExperienceImages` and `appClipHeaderImages` (same attributes).
public struct ASCImage: Equatable, Sendable {
    public var type: String
    public var id: String
    public var fileName: String?
    public var fileSize: Int?
    /// MD5 (hex) of the original file, as committed: what a plan compares, since the images served
    /// back are re-encoded.
    public var sourceFileChecksum: String?
    public var state: ASCValue<ASCAssetState>?
    /// `assetDeliveryState.errors`, as "CODE: description".
    public var errors: [String]
    /// `imageAsset.templateUrl` with `{w}`, `{h}`, `{f}` placeholders.
    public var templateURL: String?
    public var uploadOperations: [ASCUploadOperation]

    public init(
        type: String, id: String, fileName: String? = nil, fileSize: Int? = nil, sourceFileChecksum: String? = nil,
        state: ASCValue<ASCAssetState>? = nil, errors: [String] = [], templateURL: String? = nil,
        uploadOperations: [ASCUploadOperation] = []
    ) {
        self.type = type
        self.id = id
        self.fileName = fileName
        self.fileSize = fileSize
        self.sourceFileChecksum = sourceFileChecksum
        self.state = state
        self.errors = errors
        self.templateURL = templateURL
        self.uploadOperations = uploadOperations
    }

    init(_ resource: JSONAPIResource) {
        type = resource.type
        id = resource.id
        fileName = resource.string("fileName")
        fileSize = resource.integer("fileSize")
        sourceFileChecksum = resource.string("sourceFileChecksum")
        let delivery = resource.attributes["assetDeliveryState"]
        state = delivery?["state"]?.stringValue.map(ASCValue.init)
        errors = (delivery?["errors"]?.arrayValue ?? []).map { error in
            [error["code"]?.stringValue, error["description"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
        }
        templateURL = resource.attributes["imageAsset"]?["templateUrl"]?.stringValue
        uploadOperations = (resource.attributes["uploadOperations"]?.arrayValue ?? []).compactMap { operation in
            guard let method = operation["method"]?.stringValue, let url = operation["url"]?.stringValue,
                case .integer(let offset)? = operation["offset"], case .integer(let length)? = operation["length"]
            else { return nil }
            var headers: [String: String] = [:]
            for header in operation["requestHeaders"]?.arrayValue ?? [] {
                if let name = header["name"]?.stringValue, let value = header["value"]?.stringValue { headers[name] = value }
            }
            return ASCUploadOperation(method: method, url: url, offset: Int(offset), length: Int(length), headers: headers)
        }
    }

    /// The image's URL at a size and format (`templateUrl` filled in).
    public func url(width: Int = 1800, height: Int = 1200, format: String = "png") -> String? {
        templateURL?.replacingPlaceholders(["{w}": "\(width)", "{h}": "\(height)", "{f}": format])
    }
}

/// `appClipAdvancedExperiences`: a card for a URL prefix. `link` is create-only (a changed URL is
/// remove + create); `status`, `placeStatus` and `version` are ASC's, never sent.
public struct ASCAdvancedExperience: Equatable, Sendable {
    public var id: String
    public var link: String
    public var isPoweredBy: Bool?
    public var action: ASCValue<AppClipAction>?
    public var businessCategory: ASCValue<AppClipBusinessCategory>?
    public var defaultLanguage: ASCValue<AppClipLanguage>?
    public var status: ASCValue<AppClipAdvancedExperienceStatus>?
    public var placeStatus: ASCValue<AppClipPlaceStatus>?
    public var version: Int?
    /// `place` as ASC sent it (names, address, coordinates, map action …), kept whole.
    public var place: JSONValue?
    public var headerImageID: String?
    /// The header image, when the request included it.
    public var headerImage: ASCImage?
    public var localizations: [ASCAdvancedExperienceLocalization]

    public init(
        id: String, link: String, isPoweredBy: Bool? = false, action: ASCValue<AppClipAction>? = nil,
        businessCategory: ASCValue<AppClipBusinessCategory>? = nil, defaultLanguage: ASCValue<AppClipLanguage>? = nil,
        status: ASCValue<AppClipAdvancedExperienceStatus>? = nil, placeStatus: ASCValue<AppClipPlaceStatus>? = nil, version: Int? = nil,
        place: JSONValue? = nil, headerImageID: String? = nil, headerImage: ASCImage? = nil,
        localizations: [ASCAdvancedExperienceLocalization] = []
    ) {
        self.id = id
        self.link = link
        self.isPoweredBy = isPoweredBy
        self.action = action
        self.businessCategory = businessCategory
        self.defaultLanguage = defaultLanguage
        self.status = status
        self.placeStatus = placeStatus
        self.version = version
        self.place = place
        self.headerImageID = headerImageID
        self.headerImage = headerImage
        self.localizations = localizations
    }

    init(_ resource: JSONAPIResource, in document: JSONAPIDocument) throws(ASCClientError) {
        guard let link = resource.string("link") else { throw .invalidResponse("advanced experience \(resource.id) has no link") }
        id = resource.id
        self.link = link
        isPoweredBy = resource.bool("isPoweredBy")
        action = resource.string("action").map(ASCValue.init)
        businessCategory = resource.string("businessCategory").map(ASCValue.init)
        defaultLanguage = resource.string("defaultLanguage").map(ASCValue.init)
        status = resource.string("status").map(ASCValue.init)
        placeStatus = resource.string("placeStatus").map(ASCValue.init)
        version = resource.integer("version")
        // JSON null is no place (JSONValue's nil literal is null, so no ternary here).
        if let place = resource.attributes["place"], !place.isNull { self.place = place } else { place = nil }
        let image = resource.toOne["headerImage"] ?? nil
        headerImageID = image?.id
        headerImage = document.included(image).map(ASCImage.init)
        localizations = (resource.toMany["localizations"] ?? []).compactMap { document.included($0) }.map(
            ASCAdvancedExperienceLocalization.init)
    }
}

/// `appClipDefaultExperienceLocalizations`: one locale (`en-US`) of the default card.
public struct ASCDefaultExperienceLocalization: Equatable, Sendable {
    public var id: String
    public var locale: String
    public var subtitle: String?
    public var headerImageID: String?
    public var headerImage: ASCImage?

    public init(id: String, locale: String, subtitle: String? = nil, headerImageID: String? = nil, headerImage: ASCImage? = nil) {
        self.id = id
        self.locale = locale
        self.subtitle = subtitle
        self.headerImageID = headerImageID
        self.headerImage = headerImage
    }

    init(_ resource: JSONAPIResource, in document: JSONAPIDocument?) throws(ASCClientError) {
        guard let locale = resource.string("locale") else { throw .invalidResponse("localization \(resource.id) has no locale") }
        id = resource.id
        self.locale = locale
        subtitle = resource.string("subtitle")
        let image = resource.toOne["appClipHeaderImage"] ?? nil
        headerImageID = image?.id
        headerImage = document?.included(image).map(ASCImage.init)
    }
}

/// `appClipDefaultExperiences`: the card of an App Store version.
public struct ASCDefaultExperience: Equatable, Sendable {
    public var id: String
    public var action: ASCValue<AppClipAction>?
    public var appStoreVersionID: String?
    public var localizationIDs: [String]
    /// The localizations, when the request included them.
    public var localizations: [ASCDefaultExperienceLocalization]
    /// Its App Review detail, when it has one and the request included it (`include=appClipAppStoreReviewDetail`).
    public var reviewDetail: ASCAppClipReviewDetail?

    public init(
        id: String, action: ASCValue<AppClipAction>? = nil, appStoreVersionID: String? = nil,
        localizations: [ASCDefaultExperienceLocalization] = [], reviewDetail: ASCAppClipReviewDetail? = nil
    ) {
        self.id = id
        self.action = action
        self.appStoreVersionID = appStoreVersionID
        localizationIDs = localizations.map(\.id)
        self.localizations = localizations
        self.reviewDetail = reviewDetail
    }

    init(_ resource: JSONAPIResource, in document: JSONAPIDocument) throws(ASCClientError) {
        id = resource.id
        action = resource.string("action").map(ASCValue.init)
        appStoreVersionID = (resource.toOne["releaseWithAppStoreVersion"] ?? nil)?.id
        let identifiers = resource.toMany["appClipDefaultExperienceLocalizations"] ?? []
        localizationIDs = identifiers.map(\.id)
        var localizations: [ASCDefaultExperienceLocalization] = []
        for identifier in identifiers {
            if let included = document.included(identifier) {
                localizations.append(try ASCDefaultExperienceLocalization(included, in: document))
            }
        }
        self.localizations = localizations
        reviewDetail = document.included(resource.toOne["appClipAppStoreReviewDetail"] ?? nil).map(ASCAppClipReviewDetail.init)
    }
}

extension String {
    fileprivate func replacingPlaceholders(_ values: [String: String]) -> String {
        values.reduce(self) { text, pair in text.split(separator: pair.key, omittingEmptySubsequences: false).joined(separator: pair.value)
        }
    }
}
