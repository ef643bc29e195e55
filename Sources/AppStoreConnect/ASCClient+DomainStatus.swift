import StrictJSON

// Apple's own verdict on an App Clip build's associated domains (App Store Connect API 4.4.1:
// `GET /v1/buildBundles/{id}/appClipDomainCacheStatus` and `…/appClipDomainDebugStatus`, schema
// `AppClipDomainStatus`; ../shared/docs/asc-api.md §7.8). In App Store Connect's pages these are a build's
// "Cache Status" and "Load Debug Status" (apple-spec.md §6.2).

/// One reading of an App Clip build bundle's associated domains.
public struct ASCDomainStatus: Equatable, Sendable {
    /// `cache`: what Apple's CDN holds and devices get; `debug`: Apple's fresh fetch of each site.
    public enum Kind: String, Sendable, CaseIterable {
        case cache, debug
        var path: String { self == .cache ? "appClipDomainCacheStatus" : "appClipDomainDebugStatus" }
    }

    public struct Domain: Equatable, Sendable {
        public var domain: String
        public var isValid: Bool?
        public var lastUpdatedDate: String?
        /// Apple's `errorCode`, verbatim (a value the specification does not list is kept).
        public var errorCode: String?
        public init(domain: String, isValid: Bool?, lastUpdatedDate: String?, errorCode: String?) {
            self.domain = domain
            self.isValid = isValid
            self.lastUpdatedDate = lastUpdatedDate
            self.errorCode = errorCode
        }
    }

    public var lastUpdatedDate: String?
    public var domains: [Domain]
    public init(lastUpdatedDate: String?, domains: [Domain]) {
        self.lastUpdatedDate = lastUpdatedDate
        self.domains = domains
    }
}

extension ASCClient {
    /// The build bundle's domain status of `kind`; nil when App Store Connect has none for it (404).
    public func domainStatus(buildBundleID: String, kind: ASCDomainStatus.Kind) async throws(ASCClientError) -> ASCDomainStatus? {
        let document: JSONAPIDocument
        do {
            document = try await self.document("GET", "/v1/buildBundles/\(Self.segment(buildBundleID))/\(kind.path)")
        } catch .rejected(status: 404, _, _, _) {
            return nil
        }
        let resource = try single(document)
        let domains = (resource.attributes["domains"]?.arrayValue ?? []).compactMap { item -> ASCDomainStatus.Domain? in
            guard let domain = item["domain"]?.stringValue else { return nil }
            return ASCDomainStatus.Domain(
                domain: domain, isValid: item["isValid"]?.boolValue, lastUpdatedDate: item["lastUpdatedDate"]?.stringValue,
                errorCode: item["errorCode"]?.stringValue)
        }
        return ASCDomainStatus(lastUpdatedDate: resource.string("lastUpdatedDate"), domains: domains)
    }
}
