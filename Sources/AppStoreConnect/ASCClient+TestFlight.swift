import Foundation
import StrictJSON

// TestFlight's App Clip invocations (App Store Connect API 4.4.1: `betaAppClipInvocations`,
// `betaAppClipInvocationLocalizations`, `buildBundles/{id}/betaAppClipInvocations`; ../shared/docs/asc-api.md §7.7).
// A build is found by `GET /v1/builds` (outside the App Clip subset: scripts/fake-asc/PROVENANCE.md).

/// A build with its App Clip's build bundle, when it has one.
public struct ASCBuild: Equatable, Sendable {
    public var id: String
    /// CFBundleVersion.
    public var version: String
    public var uploadedDate: String?
    public var processingState: String?
    /// The `buildBundles` resource whose `bundleType` is `APP_CLIP`.
    public var appClipBundleID: String?

    public init(id: String, version: String, uploadedDate: String? = nil, processingState: String? = nil, appClipBundleID: String? = nil) {
        self.id = id
        self.version = version
        self.uploadedDate = uploadedDate
        self.processingState = processingState
        self.appClipBundleID = appClipBundleID
    }
}

/// One of a build's App Clip invocations: a URL and its title per locale.
public struct ASCBetaInvocation: Equatable, Sendable {
    public struct Localization: Equatable, Sendable {
        public var id: String
        public var locale: String
        public var title: String
        public init(id: String, locale: String, title: String) {
            self.id = id
            self.locale = locale
            self.title = title
        }
    }
    public var id: String
    public var url: String
    public var localizations: [Localization]

    public init(id: String, url: String, localizations: [Localization]) {
        self.id = id
        self.url = url
        self.localizations = localizations
    }
}

extension ASCClient {
    /// The app's builds, newest upload first, each with its App Clip build bundle; `version` narrows to one
    /// CFBundleVersion, `id` to one build.
    public func builds(appID: String, version: String? = nil, id: String? = nil, limit: Int = 10) async throws(ASCClientError) -> [ASCBuild]
    {
        var query = [("filter[app]", appID), ("sort", "-uploadedDate"), ("include", "buildBundles"), ("limit", "\(limit)")]
        if let version { query.append(("filter[version]", version)) }
        if let id { query.append(("filter[id]", id)) }
        let page = try await document("GET", Self.target("/v1/builds", query))
        return page.data.map { resource in
            let bundles = (resource.toMany["buildBundles"] ?? []).compactMap { page.included($0) }
            return ASCBuild(
                id: resource.id, version: resource.string("version") ?? "", uploadedDate: resource.string("uploadedDate"),
                processingState: resource.string("processingState"),
                appClipBundleID: bundles.first { $0.string("bundleType") == "APP_CLIP" }?.id)
        }
    }

    /// The invocations of an App Clip build bundle with their localizations.
    public func betaInvocations(buildBundleID: String) async throws(ASCClientError) -> [ASCBetaInvocation] {
        let pages = try await pages(
            Self.target(
                "/v1/buildBundles/\(Self.segment(buildBundleID))/betaAppClipInvocations",
                [
                    ("include", "betaAppClipInvocationLocalizations"), ("limit", "\(configuration.pageLimit)"),
                    ("limit[betaAppClipInvocationLocalizations]", "50"),
                ]))
        var invocations: [ASCBetaInvocation] = []
        for page in pages {
            for resource in page.data {
                let localizations = (resource.toMany["betaAppClipInvocationLocalizations"] ?? []).compactMap { page.included($0) }.map {
                    ASCBetaInvocation.Localization(id: $0.id, locale: $0.string("locale") ?? "", title: $0.string("title") ?? "")
                }
                invocations.append(ASCBetaInvocation(id: resource.id, url: resource.string("url") ?? "", localizations: localizations))
            }
        }
        return invocations
    }

    /// Creates an invocation with its localizations inline (`included`: the relationship is required, §7.7).
    public func createBetaInvocation(buildBundleID: String, url: String, titles: [(locale: String, title: String)])
        async throws(ASCClientError) -> String
    {
        let included: [JSONValue] = titles.enumerated().map { index, t in
            [
                "type": "betaAppClipInvocationLocalizations", "id": .string("${local-\(index)}"),
                "attributes": ["locale": .string(t.locale), "title": .string(t.title)],
            ]
        }
        let linkage = JSONValue.array(
            titles.indices.map { ["type": "betaAppClipInvocationLocalizations", "id": .string("${local-\($0)}")] })
        let body: JSONValue = [
            "data": [
                "type": "betaAppClipInvocations", "attributes": ["url": .string(url)],
                "relationships": [
                    "buildBundle": ["data": ["type": "buildBundles", "id": .string(buildBundleID)]],
                    "betaAppClipInvocationLocalizations": ["data": linkage],
                ],
            ],
            "included": .array(included),
        ]
        return try single(try await document("POST", "/v1/betaAppClipInvocations", body: body)).id
    }

    public func deleteBetaInvocation(id: String) async throws(ASCClientError) {
        _ = try await call("DELETE", "/v1/betaAppClipInvocations/\(Self.segment(id))")
    }

    public func createBetaInvocationLocalization(invocationID: String, locale: String, title: String) async throws(ASCClientError) {
        let body: JSONValue = [
            "data": [
                "type": "betaAppClipInvocationLocalizations", "attributes": ["locale": .string(locale), "title": .string(title)],
                "relationships": ["betaAppClipInvocation": ["data": ["type": "betaAppClipInvocations", "id": .string(invocationID)]]],
            ]
        ]
        _ = try await call("POST", "/v1/betaAppClipInvocationLocalizations", body: body)
    }

    public func updateBetaInvocationLocalization(id: String, title: String) async throws(ASCClientError) {
        let body: JSONValue = [
            "data": ["type": "betaAppClipInvocationLocalizations", "id": .string(id), "attributes": ["title": .string(title)]]
        ]
        _ = try await call("PATCH", "/v1/betaAppClipInvocationLocalizations/\(Self.segment(id))", body: body)
    }

    public func deleteBetaInvocationLocalization(id: String) async throws(ASCClientError) {
        _ = try await call("DELETE", "/v1/betaAppClipInvocationLocalizations/\(Self.segment(id))")
    }
}
