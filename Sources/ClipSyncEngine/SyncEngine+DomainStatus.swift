public import AppStoreConnect
public import ClipCore
import ClipStore

/// Apple's own verdict on a clip's associated domains (docs/operations.md#app-store-connect-and-apples-own-verdict): the domain statuses of
/// the newest build whose App Clip App Store Connect holds, as `clipctl verify` shows them.
extension SyncEngine {
    /// What App Store Connect says of one linked clip's newest App Clip build.
    public struct DomainStatuses: Sendable, Equatable {
        public var clip: AppID
        /// The newest of the app's builds with an App Clip build bundle; nil when none of the newest has one.
        public var build: ASCBuild?
        /// By kind; nil: App Store Connect has no status of that kind for the build bundle (404).
        public var cache: ASCDomainStatus?
        public var debug: ASCDomainStatus?
        public init(clip: AppID, build: ASCBuild?, cache: ASCDomainStatus? = nil, debug: ASCDomainStatus? = nil) {
            self.clip = clip
            self.build = build
            self.cache = cache
            self.debug = debug
        }
    }

    /// How many of the newest builds are looked through for one with an App Clip.
    static let buildsSearched = 10

    /// The domain statuses of `link`'s newest App Clip build: one read of the builds and two of the statuses.
    public func domainStatuses(_ link: AppStoreConnectLink) throws(SyncFailure) -> DomainStatuses {
        let client = self.client, appID = link.ascAppID
        return try call { () async throws(ASCClientError) -> DomainStatuses in
            let builds = try await client.builds(appID: appID, limit: Self.buildsSearched)
            guard let build = builds.first(where: { $0.appClipBundleID != nil }), let bundle = build.appClipBundleID else {
                return DomainStatuses(clip: link.clip, build: nil)
            }
            return DomainStatuses(
                clip: link.clip, build: build, cache: try await client.domainStatus(buildBundleID: bundle, kind: .cache),
                debug: try await client.domainStatus(buildBundleID: bundle, kind: .debug))
        }
    }
}
