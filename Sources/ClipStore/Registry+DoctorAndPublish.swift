public import ClipCore
import SQLiteDB

/// The data `clipctl doctor` cross-checks (Doctor), read in one transaction.
extension Registry {
    /// Everything, or only what touches `host`: its experiences, the clips associated with it or
    /// with experiences there, their apps and default experiences, and its AASA.
    public func doctorSnapshot(host rawHost: String? = nil) throws(RegistryError) -> Doctor.Snapshot {
        let host = try rawHost.map { (h) throws(RegistryError) in try Self.normalizeHost(h) }
        let experiences = try self.experiences(ListFilter(host: host))
        let hosts = if let host { [host] } else { try aasaHosts() }
        return try guarded {
            try db.read {
                var clips = try self.clips()
                if let host {
                    let involved = Set(experiences.map(\.clip))
                    clips = clips.filter { $0.hosts.contains(host) || involved.contains($0.appID) }
                }
                let appBundles = Set(clips.map(\.appBundleID))
                let apps = try self.apps().filter { appBundles.contains($0.bundleID) }
                let defaults = try clips.compactMap { try loadDefaultExperience($0.appID) }
                let files = try hosts.compactMap { try configuredContent($0) }.map(Doctor.HostFile.init)
                let shared = try db.query(
                    "SELECT host FROM host_team WHERE ?1 IS NULL OR host = ?1 GROUP BY host HAVING count(*) > 1", [.text(host)]
                )
                .map { try loadOwnership(try $0.string("host")) }
                return Doctor.Snapshot(
                    apps: apps, clips: clips, defaults: defaults, experiences: experiences, hosts: files, sharedHosts: shared)
            }
        }
    }
}

/// What `clipctl publish` writes, read in one transaction (StaticSite).
extension Registry {
    public struct Publication: Sendable {
        public let aasa: [(host: String, bytes: [UInt8])]
        public let banners: [StaticSite.Banner]
        /// Experiences left without a banner, and why.
        public let notes: [String]
    }

    /// Every host's AASA and a banner per active experience; fails when an AASA cannot be made.
    public func publication() throws(RegistryError) -> Publication {
        let hosts = try aasaHosts()
        return try guarded {
            try db.read {
                var aasa: [(host: String, bytes: [UInt8])] = []
                for host in hosts {
                    guard let content = try configuredContent(host) else { continue }
                    do throws(AASAGenerator.TooLarge) { aasa.append((host, try AASAGenerator.bytes(content))) } catch {
                        throw RegistryError.unprocessable(error.description)
                    }
                }
                let apps = Dictionary(try self.apps().map { ($0.bundleID, $0) }, uniquingKeysWith: { a, _ in a })
                let associated = Set(try self.clips().flatMap { c in c.hosts.map { "\(c.appID.rawValue) \($0)" } })
                var banners: [StaticSite.Banner] = []
                var notes: [String] = []
                try forEachExperience(ListFilter(status: .active)) { e in
                    // Safari shows the banner only where the host lists the clip (docs/apple-formats.md#smart-app-banner).
                    guard associated.contains("\(e.clip.rawValue) \(e.url.host)"), let parent = e.clip.bundleID.parent else {
                        notes.append("no banner for \(e.url.canonical): \(e.url.host) is not associated with \(e.clip.rawValue)")
                        return
                    }
                    let banner = try SmartBanner.make(appStoreID: apps[parent]?.appStoreID, clipBundleID: e.clip.bundleID, appArgument: nil)
                    banners.append(StaticSite.Banner(experienceID: e.id, url: e.url, metaTag: banner.metaTag))
                }
                return Publication(aasa: aasa, banners: banners, notes: notes)
            }
        }
    }
}
