public import AppleFormats
public import ClipCore

/// What `clipctl publish` writes, gathered from a bulk read of the registry (`RegistryRecord`), wherever
/// the records come from: every host's AASA and a Smart App Banner per active experience.
extension StaticSite {
    public struct Publication: Sendable {
        public private(set) var aasa: [(host: String, bytes: [UInt8])] = []
        public private(set) var banners: [Banner] = []
        /// Experiences left without a banner, and why.
        public private(set) var notes: [String] = []
        private var apps: [BundleID: App] = [:]
        /// "clip host" for every association.
        private var associated: Set<String> = []
        /// The moment the site is for: an experience outside its window then has no banner (docs/schedules.md).
        public let at: Instant?

        public init(at: Instant? = nil) { self.at = at }

        /// Takes one record; the apps and clips must come before the experiences (a bulk read gives
        /// them first). Fails on a host whose AASA cannot be made.
        public mutating func add(_ record: RegistryRecord) throws(AASAGenerator.TooLarge) {
            switch record {
            case .app(let app): apps[app.bundleID] = apps[app.bundleID] ?? app
            case .clip(let clip): associated.formUnion(clip.hosts.map { "\(clip.appID.rawValue) \($0)" })
            case .host(let file): aasa.append((file.host, try file.bytes.get()))
            case .experience(let e) where e.status == .active:
                if let at, e.state(at: at) != .live {
                    let window = e.state(at: at) == .scheduled ? "starts \(e.liveFrom!)" : "ended \(e.liveUntil!)"
                    notes.append("no banner for \(e.url.canonical) at \(at): it is not served then (\(window))")
                    return
                }
                // Safari shows the banner only where the host lists the clip (docs/apple-formats.md#smart-app-banner).
                guard associated.contains("\(e.clip.rawValue) \(e.url.host)"), let parent = e.clip.bundleID.parent else {
                    notes.append("no banner for \(e.url.canonical): \(e.url.host) is not associated with \(e.clip.rawValue)")
                    return
                }
                // Without an app-argument nothing of the banner can be refused (SmartBanner.make checks only that).
                guard
                    let banner = try? SmartBanner.make(
                        appStoreID: apps[parent]?.appStoreID, clipBundleID: e.clip.bundleID, appArgument: nil)
                else { return }
                banners.append(Banner(experienceID: e.id, url: e.url, metaTag: banner.metaTag))
            case .defaultExperience, .sharedHost, .experience, .testflight: break
            }
        }
    }
}
