import Foundation
import StrictJSON
import SystemCrypto

// The App Clip flows of App Store Connect API 4.4.1, as Apple's "App Clips and App Clip
// Experiences" and "Uploading Assets to App Store Connect" describe them
// (https://developer.apple.com/documentation/appstoreconnectapi/app-clips).

extension ASCClient {
    // MARK: - Finding the app, the App Clip and the version being edited

    /// The app with this bundle ID (`GET /v1/apps?filter[bundleId]=`), or nil.
    public func app(bundleID: String) async throws(ASCClientError) -> ASCApp? {
        let pages = try await pages(Self.target("/v1/apps", [("filter[bundleId]", bundleID), ("limit", "2")]))
        for resource in pages.flatMap(\.data) {
            let app = try ASCApp(resource)
            if app.bundleID == bundleID { return app }
        }
        return nil
    }

    /// The App Clip with this bundle ID in the app (`GET /v1/apps/{id}/appClips?filter[bundleId]=`),
    /// or nil: it exists only once a build containing it was uploaded.
    public func appClip(appID: String, bundleID: String) async throws(ASCClientError) -> ASCAppClip? {
        let pages = try await pages(Self.target("/v1/apps/\(Self.segment(appID))/appClips", [("filter[bundleId]", bundleID)]))
        for resource in pages.flatMap(\.data) {
            let clip = try ASCAppClip(resource)
            if clip.bundleID == bundleID { return clip }
        }
        return nil
    }

    /// The app's iOS versions whose metadata can still change (`ASCAppVersionState.editable`).
    public func editableAppStoreVersions(appID: String) async throws(ASCClientError) -> [ASCAppStoreVersion] {
        let states = ASCAppVersionState.editable.map(\.rawValue).joined(separator: ",")
        let pages = try await pages(
            Self.target(
                "/v1/apps/\(Self.segment(appID))/appStoreVersions",
                [("filter[platform]", "IOS"), ("filter[appVersionState]", states), ("limit", "\(configuration.pageLimit)")]))
        return pages.flatMap(\.data).map(ASCAppStoreVersion.init).filter(\.isEditable)
    }

    // MARK: - Advanced experiences

    /// Every advanced experience of the App Clip with its header image and localizations, page by page.
    public func advancedExperiences(appClipID: String) async throws(ASCClientError) -> [ASCAdvancedExperience] {
        let pages = try await pages(
            Self.target(
                "/v1/appClips/\(Self.segment(appClipID))/appClipAdvancedExperiences",
                [("include", "headerImage,localizations"), ("limit", "\(configuration.pageLimit)"), ("limit[localizations]", "50")]))
        var experiences: [ASCAdvancedExperience] = []
        for page in pages {
            for resource in page.data { experiences.append(try ASCAdvancedExperience(resource, in: page)) }
        }
        return experiences
    }

    public func advancedExperience(id: String) async throws(ASCClientError) -> ASCAdvancedExperience {
        let document = try await document(
            "GET", Self.target("/v1/appClipAdvancedExperiences/\(Self.segment(id))", [("include", "headerImage,localizations")]))
        return try ASCAdvancedExperience(try single(document), in: document)
    }

    /// Creates an experience with its localizations inline (`included`); the header image must be
    /// uploaded first (`uploadAdvancedExperienceImage`).
    public func createAdvancedExperience(
        _ draft: AdvancedExperienceDraft, appClipID: String, headerImageID: String
    ) async throws(ASCClientError) -> ASCAdvancedExperience {
        let body = ASCRequestBody.createAdvancedExperience(draft, appClipID: appClipID, headerImageID: headerImageID)
        let document = try await document("POST", "/v1/appClipAdvancedExperiences", body: body)
        return try ASCAdvancedExperience(try single(document), in: document)
    }

    public func updateAdvancedExperience(id: String, _ change: AdvancedExperienceChange) async throws(ASCClientError)
        -> ASCAdvancedExperience
    {
        let document = try await document(
            "PATCH", "/v1/appClipAdvancedExperiences/\(Self.segment(id))", body: ASCRequestBody.updateAdvancedExperience(id: id, change))
        return try ASCAdvancedExperience(try single(document), in: document)
    }

    /// Removes an experience the way the API offers: `PATCH removed: true` (there is no DELETE).
    public func removeAdvancedExperience(id: String) async throws(ASCClientError) {
        let body: JSONValue = ["data": ["type": "appClipAdvancedExperiences", "id": .string(id), "attributes": ["removed": true]]]
        _ = try await call("PATCH", "/v1/appClipAdvancedExperiences/\(Self.segment(id))", body: body)
    }

    // MARK: - Images: reserve → upload operations → commit with MD5 → poll

    /// Uploads an advanced experience's header image (1800×1200 PNG or JPEG) and waits until ASC
    /// has processed it. The image belongs to no experience until one names it.
    public func uploadAdvancedExperienceImage(fileName: String, bytes: [UInt8]) async throws(ASCClientError) -> ASCImage {
        let image = try await reserveImage(
            type: "appClipAdvancedExperienceImages", fileName: fileName, size: bytes.count, relationships: nil)
        return try await finishUpload(image, bytes: bytes)
    }

    /// Uploads the header image of a default experience's localization and waits for processing.
    public func uploadHeaderImage(localizationID: String, fileName: String, bytes: [UInt8]) async throws(ASCClientError) -> ASCImage {
        let relationships: JSONValue = [
            "appClipDefaultExperienceLocalization": ASCRequestBody.linkage("appClipDefaultExperienceLocalizations", localizationID)
        ]
        let image = try await reserveImage(type: "appClipHeaderImages", fileName: fileName, size: bytes.count, relationships: relationships)
        return try await finishUpload(image, bytes: bytes)
    }

    /// Upload, commit and wait, for a reserved image (a resumed apply may hold one).
    public func finishUpload(_ image: ASCImage, bytes: [UInt8]) async throws(ASCClientError) -> ASCImage {
        try await upload(image, bytes: bytes)
        let committed: ASCImage
        do {
            committed = try await commit(image, bytes: bytes)
        } catch .cancelled {
            throw .cancelled
        } catch {
            // A commit that landed behind a failed answer is refused when sent again ("already committed"): what App
            // Store Connect holds says whether it landed, with these bytes' checksum.
            let md5: String
            do { md5 = Digest.hex(try Digest.md5(bytes)) } catch { throw .invalidResponse("MD5 failed: \(error)") }
            let current = try await self.image(type: image.type, id: image.id)
            guard current.sourceFileChecksum == md5, current.state?.known != .awaitingUpload else { throw error }
            committed = current
        }
        return try await waitUntilProcessed(committed)
    }

    /// Reserves an advanced experience's header image (no relationships: an experience names it later).
    public func reserveAdvancedExperienceImage(fileName: String, size: Int) async throws(ASCClientError) -> ASCImage {
        try await reserveImage(type: "appClipAdvancedExperienceImages", fileName: fileName, size: size, relationships: nil)
    }

    func reserveImage(type: String, fileName: String, size: Int, relationships: JSONValue?) async throws(ASCClientError) -> ASCImage {
        let body: JSONValue = [
            "data": .object([
                "type": .string(type), "attributes": ["fileName": .string(fileName), "fileSize": .integer(Int64(size))],
                "relationships": relationships,
            ])
        ]
        let image = ASCImage(try single(try await document("POST", "/v1/\(type)", body: body)))
        guard !image.uploadOperations.isEmpty else { throw .invalidResponse("image \(image.id) was reserved without upload operations") }
        return image
    }

    /// Sends every upload operation's bytes, without the JWT ("The provided upload URLs are
    /// unauthenticated and time-limited"), each retried a few times: "a failed part can be resent".
    public func upload(_ image: ASCImage, bytes: [UInt8]) async throws(ASCClientError) {
        for operation in image.uploadOperations {
            guard operation.offset >= 0, operation.length >= 0, operation.offset + operation.length <= bytes.count,
                let url = URL(string: operation.url), url.scheme == "https" || url.scheme == "http"
            else { throw .invalidResponse("image \(image.id) has an upload operation outside the file or without a URL") }
            let part = Array(bytes[operation.offset..<operation.offset + operation.length])
            let request = ASCHTTPRequest(
                method: operation.method, url: url, headers: operation.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                body: part)
            var attempt = 1
            while true {
                var status: Int?
                count(.imagePart)
                do {
                    let response = try await transport.send(request)
                    if (200..<300).contains(response.status) { break }
                    status = response.status
                } catch {
                    status = nil
                }
                guard attempt < configuration.uploadAttempts else {
                    throw .uploadFailed(imageID: image.id, offset: operation.offset, status: status)
                }
                await sleeper(configuration.policy.backoff(step: attempt, random: random) * configuration.waitScale)
                attempt += 1
            }
        }
    }

    /// Commits the upload with the MD5 of the whole file (`sourceFileChecksum`); ASC refuses a
    /// commit whose received bytes do not add up.
    public func commit(_ image: ASCImage, bytes: [UInt8]) async throws(ASCClientError) -> ASCImage {
        let checksum: String
        do { checksum = Digest.hex(try Digest.md5(bytes)) } catch { throw .invalidResponse("MD5 failed: \(error)") }
        let body: JSONValue = [
            "data": [
                "type": .string(image.type), "id": .string(image.id),
                "attributes": ["uploaded": true, "sourceFileChecksum": .string(checksum)],
            ]
        ]
        return ASCImage(try single(try await document("PATCH", "/v1/\(image.type)/\(Self.segment(image.id))", body: body)))
    }

    /// An image as App Store Connect holds it now (its state, checksum and, before commit, its upload operations).
    public func image(type: String, id: String) async throws(ASCClientError) -> ASCImage {
        ASCImage(try single(try await document("GET", "/v1/\(type)/\(Self.segment(id))")))
    }

    /// The bytes of an image App Store Connect serves (`imageAsset.templateUrl` filled in): a CDN address, fetched
    /// without the JWT, at most `limit` bytes. These are re-encoded bytes, not the file once uploaded.
    /// Only https, as Apple's CDN serves them (plain http only when the API itself is reached over http: a local fake).
    public func downloadImage(from address: String, limit: Int = 10 << 20) async throws(ASCClientError) -> [UInt8] {
        guard let url = URL(string: address), url.host != nil,
            url.scheme == "https" || (url.scheme == "http" && origin.hasPrefix("http:"))
        else {
            throw .imageUnavailable(url: address, reason: "not an https address")
        }
        let response: ASCHTTPResponse
        do { response = try await transport.send(ASCHTTPRequest(method: "GET", url: url)) } catch {
            throw .imageUnavailable(url: address, reason: error.description)
        }
        guard (200..<300).contains(response.status) else { throw .imageUnavailable(url: address, reason: "HTTP \(response.status)") }
        guard response.body.count <= limit else { throw .imageUnavailable(url: address, reason: "over \(limit) bytes") }
        return response.body
    }

    /// Reads the image until its `assetDeliveryState` is `COMPLETE` (returned) or `FAILED` (thrown). An answer that says
    /// so already (the commit's, a resumed image's) is not read again. Apple documents no processing time ("Uploading
    /// Assets to App Store Connect": poll until `COMPLETE`) and every read spends the key's hourly budget, so the first
    /// read comes once the time the slowest image of this client needed has passed (`imageWait`), and each later read
    /// when a quarter more time has passed since the commit: an image read early costs a few reads once, not one per image.
    public func waitUntilProcessed(_ image: ASCImage) async throws(ASCClientError) -> ASCImage {
        switch image.state?.known {
        case .complete?: return image
        case .failed?: throw .imageProcessingFailed(imageID: image.id, errors: image.errors)
        default: break
        }
        var current = image
        var waited = 0.0
        for poll in 0..<max(1, configuration.imagePollAttempts) {
            let wait = poll == 0 ? firstImageWait : min(configuration.imagePollInterval, max(0.25, waited / 4))
            await sleeper(wait * configuration.waitScale)
            waited += wait
            current = try await self.image(type: image.type, id: image.id)
            switch current.state?.known {
            case .complete?:
                if poll > 0 { imageNeeded(waited) }
                return current
            case .failed?: throw .imageProcessingFailed(imageID: image.id, errors: current.errors)
            default: continue
            }
        }
        throw .imageProcessingTimedOut(imageID: image.id, state: current.state?.rawValue ?? "unknown")
    }

    // MARK: - Default experiences (one per App Store version)

    /// The App Clip's default experiences with their localizations and header images.
    public func defaultExperiences(appClipID: String) async throws(ASCClientError) -> [ASCDefaultExperience] {
        let pages = try await pages(
            Self.target(
                "/v1/appClips/\(Self.segment(appClipID))/appClipDefaultExperiences",
                [
                    ("include", "releaseWithAppStoreVersion,appClipDefaultExperienceLocalizations"),
                    ("limit", "\(configuration.pageLimit)"),
                    ("limit[appClipDefaultExperienceLocalizations]", "50"),
                ]))
        var experiences: [ASCDefaultExperience] = []
        for page in pages {
            for resource in page.data {
                var experience = try ASCDefaultExperience(resource, in: page)
                experience.localizations = try await defaultExperienceLocalizations(experienceID: experience.id)
                experiences.append(experience)
            }
        }
        return experiences
    }

    /// The default experience attached to an App Store version with its App Review detail, or nil when it has none.
    public func defaultExperience(appStoreVersionID: String) async throws(ASCClientError) -> ASCDefaultExperience? {
        let document: JSONAPIDocument
        do {
            document = try await self.document(
                "GET",
                Self.target(
                    "/v1/appStoreVersions/\(Self.segment(appStoreVersionID))/appClipDefaultExperience",
                    [("include", "appClipDefaultExperienceLocalizations,appClipAppStoreReviewDetail")]))
        } catch .rejected(status: 404, _, _, _) {
            return nil
        }
        var experience = try ASCDefaultExperience(try single(document), in: document)
        experience.localizations = try await defaultExperienceLocalizations(experienceID: experience.id)
        return experience
    }

    /// A default experience's localizations, each with its header image (`include=appClipHeaderImage`).
    public func defaultExperienceLocalizations(experienceID: String) async throws(ASCClientError) -> [ASCDefaultExperienceLocalization] {
        let pages = try await pages(
            Self.target(
                "/v1/appClipDefaultExperiences/\(Self.segment(experienceID))/appClipDefaultExperienceLocalizations",
                [("include", "appClipHeaderImage"), ("limit", "\(configuration.pageLimit)")]))
        var localizations: [ASCDefaultExperienceLocalization] = []
        for page in pages {
            for resource in page.data { localizations.append(try ASCDefaultExperienceLocalization(resource, in: page)) }
        }
        return localizations
    }

    /// Creates the default experience of an editable App Store version. With `templateID` (another
    /// default experience, typically the live version's), ASC copies that one's metadata: versions
    /// made through the API do not carry the live version's default experience over (fastlane's
    /// deliver works around the same gap this way).
    public func createDefaultExperience(
        appClipID: String, appStoreVersionID: String, action: AppClipAction, templateID: String? = nil
    ) async throws(ASCClientError) -> ASCDefaultExperience {
        let relationships: JSONValue = .object([
            "appClip": ASCRequestBody.linkage("appClips", appClipID),
            "releaseWithAppStoreVersion": ASCRequestBody.linkage("appStoreVersions", appStoreVersionID),
            "appClipDefaultExperienceTemplate": templateID.map { ASCRequestBody.linkage("appClipDefaultExperiences", $0) },
        ])
        let body: JSONValue = [
            "data": [
                "type": "appClipDefaultExperiences", "attributes": ["action": .string(action.rawValue)], "relationships": relationships,
            ]
        ]
        let document = try await document("POST", "/v1/appClipDefaultExperiences", body: body)
        return try ASCDefaultExperience(try single(document), in: document)
    }

    public func updateDefaultExperience(id: String, action: AppClipAction) async throws(ASCClientError) -> ASCDefaultExperience {
        let body: JSONValue = [
            "data": ["type": "appClipDefaultExperiences", "id": .string(id), "attributes": ["action": .string(action.rawValue)]]
        ]
        let document = try await document("PATCH", "/v1/appClipDefaultExperiences/\(Self.segment(id))", body: body)
        return try ASCDefaultExperience(try single(document), in: document)
    }

    /// Adds a locale (`en-US`; create-only) to a default experience.
    public func createDefaultExperienceLocalization(
        experienceID: String, locale: String, subtitle: String?
    ) async throws(ASCClientError) -> ASCDefaultExperienceLocalization {
        let body: JSONValue = [
            "data": [
                "type": "appClipDefaultExperienceLocalizations",
                "attributes": .object(["locale": .string(locale), "subtitle": subtitle.map { .string($0) }]),
                "relationships": ["appClipDefaultExperience": ASCRequestBody.linkage("appClipDefaultExperiences", experienceID)],
            ]
        ]
        return try ASCDefaultExperienceLocalization(
            try single(try await document("POST", "/v1/appClipDefaultExperienceLocalizations", body: body)), in: nil)
    }

    public func updateDefaultExperienceLocalization(id: String, subtitle: String) async throws(ASCClientError)
        -> ASCDefaultExperienceLocalization
    {
        let body: JSONValue = [
            "data": ["type": "appClipDefaultExperienceLocalizations", "id": .string(id), "attributes": ["subtitle": .string(subtitle)]]
        ]
        let document = try await document("PATCH", "/v1/appClipDefaultExperienceLocalizations/\(Self.segment(id))", body: body)
        return try ASCDefaultExperienceLocalization(try single(document), in: nil)
    }

    public func deleteDefaultExperienceLocalization(id: String) async throws(ASCClientError) {
        _ = try await call("DELETE", "/v1/appClipDefaultExperienceLocalizations/\(Self.segment(id))")
    }

    /// A default experience's image is replaced by deleting it and uploading another.
    public func deleteHeaderImage(id: String) async throws(ASCClientError) {
        _ = try await call("DELETE", "/v1/appClipHeaderImages/\(Self.segment(id))")
    }

    // MARK: - Helpers

    func single(_ document: JSONAPIDocument) throws(ASCClientError) -> JSONAPIResource {
        guard document.data.count == 1, let resource = document.data.first else {
            throw .invalidResponse("expected one resource, got \(document.data.count)")
        }
        return resource
    }

    /// An id as a path segment: ASC's ids are opaque strings; anything but unreserved characters
    /// is percent-encoded so an id cannot change the path.
    static func segment(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}
