public import ClipCore
public import DoctorAndPublish
import SQLiteDB

/// The registry read in bulk, as `RegistryRecord`s: what `clipctl doctor` and `clipctl publish` read, from the
/// database at once or page by page over `GET /v1/bulk`, one read transaction a page.
extension Registry {
    /// What a bulk read covers: a team's data or everyone's, all of it or only what touches one host.
    public struct BulkScope: Sendable, Equatable {
        /// Only this team's apps, clips, default experiences, experiences and the hosts it holds.
        public var team: TeamID?
        /// Only what touches this host (normalized): its experiences, the clips associated with it
        /// or with experiences there, their apps and default experiences, and its AASA.
        public var host: String?
        public init(team: TeamID? = nil, host: String? = nil) {
            self.team = team
            self.host = host
        }
    }

    /// The sections of a bulk read, in the order it gives them.
    public enum BulkSection: String, Sendable, CaseIterable, Comparable {
        case apps, clips, defaults, hosts, sharedHosts, experiences, testflight
        var order: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (a: Self, b: Self) -> Bool { a.order < b.order }
    }

    /// Where a bulk read goes on: after the record keyed `after` in `section` (an app's bundle ID,
    /// a clip's App ID, a host, an experience's URL). Records are ordered by their key, so a record
    /// added behind a position is not given, and none is given twice.
    public struct BulkPosition: Sendable, Equatable {
        public var section: BulkSection
        public var after: String
        public init(section: BulkSection, after: String) {
            self.section = section
            self.after = after
        }
    }

    /// At most this many AASA bytes in one page (a host's file is up to 128 KB): a page stops after the host that passes it.
    static let bulkPageAASABytes = 4 << 20

    /// The records of `scope` from `start` (nil: the beginning) on, to `body`, at most `limit` of
    /// them, in one read transaction; the position to go on from, nil when none are left.
    public func bulkRecords(
        _ scope: BulkScope, from start: BulkPosition? = nil, limit: Int = .max, _ body: (RegistryRecord) throws -> Void
    ) throws(RegistryError) -> BulkPosition? {
        try guarded {
            try db.read { () throws -> BulkPosition? in
                var given = 0, aasaBytes = 0
                var last: BulkPosition?
                let first = start?.section ?? .apps
                /// Gives the record; false once the page is full.
                func give(_ record: RegistryRecord, _ section: BulkSection, _ key: String) throws -> Bool {
                    try body(record)
                    given += 1
                    last = BulkPosition(section: section, after: key)
                    if case .host(let file) = record { aasaBytes += (try? file.bytes.get().count) ?? 0 }
                    return given < limit && aasaBytes < Self.bulkPageAASABytes
                }
                func after(_ section: BulkSection) -> String? { start?.section == section ? start?.after : nil }

                let clips = first <= .defaults || first == .testflight ? try bulkClips(scope) : []
                for section in BulkSection.allCases where section >= first {
                    switch section {
                    case .apps:
                        let bundles = Set(clips.map(\.appBundleID))
                        for app in try apps(team: scope.team)
                        where bundles.contains(app.bundleID) && app.bundleID.rawValue > after(.apps) ?? "" {
                            guard try give(.app(app), .apps, app.bundleID.rawValue) else { return last }
                        }
                    case .clips:
                        for clip in clips where clip.appID.rawValue > after(.clips) ?? "" {
                            guard try give(.clip(clip), .clips, clip.appID.rawValue) else { return last }
                        }
                    case .defaults:
                        for clip in clips where clip.appID.rawValue > after(.defaults) ?? "" {
                            guard let d = try loadDefaultExperience(clip.appID) else { continue }
                            guard try give(.defaultExperience(d), .defaults, clip.appID.rawValue) else { return last }
                        }
                    case .hosts:
                        for host in try bulkHosts(scope) where host > after(.hosts) ?? "" {
                            guard let content = try configuredContent(host) else { continue }
                            guard try give(.host(Doctor.HostFile(content: content)), .hosts, host) else { return last }
                        }
                    case .sharedHosts:
                        let rows = try db.query(
                            """
                            SELECT host FROM host_team WHERE (?1 IS NULL OR host = ?1) AND host > ?2
                              AND (?3 IS NULL OR host IN (SELECT host FROM host_team WHERE team_id = ?3))
                            GROUP BY host HAVING count(*) > 1 ORDER BY host
                            """, [.text(scope.host), .text(after(.sharedHosts) ?? ""), .text(scope.team?.rawValue)])
                        for row in rows {
                            var ownership = try loadOwnership(try row.string("host"))
                            // A team sees its own hold only, as GET /v1/domains answers it.
                            if let team = scope.team {
                                ownership = HostOwnership(host: ownership.host, holders: ownership.holders.filter { $0.team == team })
                            }
                            guard try give(.sharedHost(ownership), .sharedHosts, ownership.host) else { return last }
                        }
                    case .experiences:
                        var full = false
                        let filter = ListFilter(
                            host: scope.host, team: scope.team, afterURL: after(.experiences), limit: limit == .max ? nil : limit - given)
                        try forEachExperience(filter) { e in
                            if !full { full = try !give(.experience(e), .experiences, e.url.canonical) }
                        }
                        if full { return last }
                    case .testflight:
                        for clip in clips where clip.appID.rawValue > after(.testflight) ?? "" {
                            guard let choice = try testFlightChoice(clip.appID) else { continue }
                            guard try give(.testflight(choice), .testflight, clip.appID.rawValue) else { return last }
                        }
                    }
                }
                return nil
            }
        }
    }

    /// A clip's chosen TestFlight invocations, when it is linked to App Store Connect or has some chosen (the doctor's
    /// checks need nothing of the others).
    func testFlightChoice(_ clip: AppID) throws -> TestFlightChoice? {
        let linked = try !db.query("SELECT 1 FROM asc_clip_link WHERE clip_bundle_id = ?", [.text(clip.bundleID.rawValue)]).isEmpty
        let invocations = try testFlightInvocations(clip: clip.rawValue)
        guard linked || !invocations.isEmpty else { return nil }
        return TestFlightChoice(clip: clip, linked: linked, invocations: invocations)
    }

    /// The clips in scope, by App ID.
    func bulkClips(_ scope: BulkScope) throws -> [Clip] {
        var clips = try self.clips(team: scope.team)
        if let host = scope.host {
            let involved = Set(
                try db.query(
                    "SELECT DISTINCT clip_bundle_id FROM advanced_experience WHERE host = ? AND removed_at IS NULL", [.text(host)]
                ).map { try $0.string("clip_bundle_id") })
            clips = clips.filter { $0.hosts.contains(host) || involved.contains($0.appID.bundleID.rawValue) }
        }
        return clips.sorted { $0.appID.rawValue < $1.appID.rawValue }
    }

    /// The hosts in scope that may have an AASA, in order.
    func bulkHosts(_ scope: BulkScope) throws -> [String] {
        var hosts = if let host = scope.host { [host] } else { try aasaHosts() }
        if let team = scope.team {
            let held = Set(
                try db.query("SELECT host FROM host_team WHERE team_id = ?", [.text(team.rawValue)]).map { try $0.string("host") })
            hosts = hosts.filter(held.contains)
        }
        return hosts.sorted()
    }
}
