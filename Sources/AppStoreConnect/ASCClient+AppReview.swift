import StrictJSON

// The App Clip's App Review detail (App Store Connect API 4.4.1: `appClipAppStoreReviewDetails`; ../shared/docs/asc-api.md
// §7.6 item 4): the invocation URLs App Review opens the App Clip with, one detail per default experience.

/// `appClipAppStoreReviewDetails`: the URLs App Review uses to open the App Clip of an App Store version.
public struct ASCAppClipReviewDetail: Equatable, Sendable {
    public var id: String
    /// `invocationUrls`, in App Store Connect's order; empty when null.
    public var invocationURLs: [String]

    public init(id: String, invocationURLs: [String]) {
        self.id = id
        self.invocationURLs = invocationURLs
    }

    init(_ resource: JSONAPIResource) {
        id = resource.id
        invocationURLs = (resource.attributes["invocationUrls"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

extension ASCClient {
    /// Gives a default experience its App Review detail: "to provide the default App Clip experience's invocation URL to
    /// App Review" (Apple, `POST /v1/appClipAppStoreReviewDetails`).
    public func createAppClipReviewDetail(defaultExperienceID: String, invocationURLs: [String]) async throws(ASCClientError)
        -> ASCAppClipReviewDetail
    {
        let body: JSONValue = [
            "data": [
                "type": "appClipAppStoreReviewDetails", "attributes": ["invocationUrls": .array(invocationURLs.map { .string($0) })],
                "relationships": ["appClipDefaultExperience": ASCRequestBody.linkage("appClipDefaultExperiences", defaultExperienceID)],
            ]
        ]
        return ASCAppClipReviewDetail(try single(try await document("POST", "/v1/appClipAppStoreReviewDetails", body: body)))
    }

    public func updateAppClipReviewDetail(id: String, invocationURLs: [String]) async throws(ASCClientError) -> ASCAppClipReviewDetail {
        let body: JSONValue = [
            "data": [
                "type": "appClipAppStoreReviewDetails", "id": .string(id),
                "attributes": ["invocationUrls": .array(invocationURLs.map { .string($0) })],
            ]
        ]
        return ASCAppClipReviewDetail(
            try single(try await document("PATCH", "/v1/appClipAppStoreReviewDetails/\(Self.segment(id))", body: body)))
    }
}
