import ClipCore
import SQLiteDB
import StrictJSON
import Foundation

/// One host's row of the propagation watch (Migrations/0011_aasa_propagation.sql,
/// docs/operations.md#has-my-change-reached-iphones).
public struct AASAPropagation: Sendable, Equatable {
    public var host: String
    /// The SHA-256 (hex) of the generated AASA bytes followed; empty once the host has no AASA.
    public var digest: String
    /// When the watch first saw this content, in milliseconds since 1970.
    public var changedAtMs: Int64
    public var checks: Int
    /// nil: nothing left to check.
    public var nextCheckMs: Int64?
    /// Seconds from the change to the first check that found the site (Apple's CDN) serving it.
    public var siteDelaySeconds: Int64?
    public var cdnDelaySeconds: Int64?
    public var gaveUp: Bool

    public init(
        host: String, digest: String, changedAtMs: Int64, checks: Int = 0, nextCheckMs: Int64?, siteDelaySeconds: Int64? = nil,
        cdnDelaySeconds: Int64? = nil, gaveUp: Bool = false
    ) {
        self.host = host
        self.digest = digest
        self.changedAtMs = changedAtMs
        self.checks = checks
        self.nextCheckMs = nextCheckMs
        self.siteDelaySeconds = siteDelaySeconds
        self.cdnDelaySeconds = cdnDelaySeconds
        self.gaveUp = gaveUp
    }
}

extension Registry {
    /// Every host's row, by host.
    public func propagations() throws(RegistryError) -> [AASAPropagation] {
        try guarded { try db.query("SELECT * FROM aasa_propagation ORDER BY host").map(Self.readPropagation) }
    }

    public func propagation(host: String) throws(RegistryError) -> AASAPropagation? {
        try guarded { try db.query("SELECT * FROM aasa_propagation WHERE host = ?", [.text(host)]).first.map(Self.readPropagation) }
    }

    /// A mark that moves with every recorded change (and a restore): the watch reads the files again only then.
    public func changeMark() throws(RegistryError) -> String {
        try guarded {
            // The newest and the oldest id, one B-tree seek each (a count(*) read every record: 50 M
            // instructions a pass at 100k records, docs/performance.md); records go only from the oldest end.
            let row = try db.query(
                "SELECT (SELECT coalesce(max(id), 0) FROM change_record) AS newest, (SELECT coalesce(min(id), 0) FROM change_record) AS oldest"
            ).first
            return "\(try row?.int("newest") ?? 0)/\(try row?.int("oldest") ?? 0)"
        }
    }

    /// Saves `rows` in one transaction (a change noted for many hosts at once: one commit, not one per host).
    public func savePropagations(_ rows: [AASAPropagation]) throws(RegistryError) {
        try write { for row in rows { try insertPropagation(row) } }
    }

    /// Saves `row`; in the same transaction an `aasa.propagated` event for each place in `propagated`,
    /// for the teams that hold the host (as `aasa.changed`).
    public func savePropagation(_ row: AASAPropagation, propagated: [(place: String, delaySeconds: Int64)], etag: String?)
        throws(RegistryError)
    {
        try write {
            try insertPropagation(row)
            guard !propagated.isEmpty else { return }
            let teams = try db.query(
                "SELECT team_id FROM host_team WHERE host = ? ORDER BY role = 'owner' DESC, team_id", [.text(row.host)]
            ).map { try TeamID(try $0.string("team_id")) }
            let changedAt = timestamp(Date(timeIntervalSince1970: Double(row.changedAtMs) / 1000))
            for p in propagated {
                try emitWebhookEvent(
                    .aasaPropagated, teams: teams,
                    data: WebhookPayload.aasaPropagated(
                        host: row.host, place: p.place, delaySeconds: p.delaySeconds, changedAt: changedAt, etag: etag))
            }
        }
    }

    private func insertPropagation(_ row: AASAPropagation) throws {
        try db.execute(
            """
            INSERT OR REPLACE INTO aasa_propagation(host, digest, changed_at_ms, checks, next_check_ms, site_delay_s, cdn_delay_s, gave_up)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(row.host), .text(row.digest), .integer(row.changedAtMs), .integer(Int64(row.checks)),
                row.nextCheckMs.map(SQLValue.integer) ?? .null, row.siteDelaySeconds.map(SQLValue.integer) ?? .null,
                row.cdnDelaySeconds.map(SQLValue.integer) ?? .null, .integer(row.gaveUp ? 1 : 0),
            ])
    }

    /// The delays recorded, for `/metrics`: site and Apple's CDN.
    public func propagationDelays() throws(RegistryError) -> (site: [Int64], cdn: [Int64]) {
        try guarded {
            let rows = try db.query("SELECT site_delay_s, cdn_delay_s FROM aasa_propagation")
            return (
                try rows.compactMap { try $0.optionalInt("site_delay_s").map(Int64.init) },
                try rows.compactMap { try $0.optionalInt("cdn_delay_s").map(Int64.init) }
            )
        }
    }

    static func readPropagation(_ row: Row) throws -> AASAPropagation {
        AASAPropagation(
            host: try row.string("host"), digest: try row.string("digest"), changedAtMs: Int64(try row.int("changed_at_ms")),
            checks: try row.int("checks"), nextCheckMs: try row.optionalInt("next_check_ms").map(Int64.init),
            siteDelaySeconds: try row.optionalInt("site_delay_s").map(Int64.init),
            cdnDelaySeconds: try row.optionalInt("cdn_delay_s").map(Int64.init), gaveUp: try row.bool("gave_up"))
    }
}
