public import ClipCore

/// One record of a registry read in bulk: what `clipctl doctor` cross-checks and `clipctl publish`
/// writes, read from the database or page by page from a server (`GET /v1/bulk`). A read gives
/// the apps, clips, default experiences, hosts and shared hosts first, the experiences last.
public enum RegistryRecord: Sendable, Equatable {
    /// An app that has clips.
    case app(App)
    case clip(Clip)
    case defaultExperience(DefaultExperience)
    /// A host that has an AASA, with the file.
    case host(Doctor.HostFile)
    /// A host that more than one team holds.
    case sharedHost(HostOwnership)
    /// An experience that is not removed, in URL order.
    case experience(AdvancedExperience)
    /// A clip's chosen TestFlight invocations, for each clip linked to App Store Connect or with some chosen.
    case testflight(TestFlightChoice)
}
