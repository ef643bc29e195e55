import AppleFormats
public import ClipCore
public import DoctorAndPublish

/// The data `clipctl doctor` cross-checks (Doctor) and `clipctl publish` writes (StaticSite), each
/// read in one transaction from the bulk read's records, as a server gives them over `GET /v1/bulk`.
extension Registry {
    /// Everything, or only what touches `host` (`BulkScope`).
    public func doctorSnapshot(host rawHost: String? = nil) throws(RegistryError) -> Doctor.Snapshot {
        let host = try rawHost.map { (h) throws(RegistryError) in try Self.normalizeHost(h) }
        var snapshot = Doctor.Snapshot()
        _ = try bulkRecords(BulkScope(host: host)) { snapshot.add($0) }
        return snapshot
    }

    /// Every host's AASA and a banner per experience served at `at` (default now); fails when an AASA cannot be made.
    public func publication(at: Instant? = nil) throws(RegistryError) -> StaticSite.Publication {
        var publication = StaticSite.Publication(at: at ?? instant)
        _ = try bulkRecords(BulkScope()) { record in
            do throws(AASAGenerator.TooLarge) { try publication.add(record) } catch { throw RegistryError.unprocessable(error.description) }
        }
        return publication
    }
}
