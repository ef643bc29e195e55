import ArgParse
import ClipApp
import ClipCore
import DoctorAndPublish
import ClipStore
import Foundation

/// doctor and publish (`DoctorCommand`, `PublishCommand`): each operation they read through runs where the command
/// runs (`Context.send`), so both ways give the same report and the same files.
extension Context {
    func doctor() throws {
        try DoctorCommand.run(
            host: parsed.value("host"), json: json, all: parsed.flag("all"), fixesFile: parsed.value("fixes"),
            acknowledged: parsed.flag("acknowledged"),
            callerOptions: ["db", "server"].flatMap { option in parsed.value(option).map { ["--\(option)", $0] } ?? [] },
            runner: { try self.send($0, $1) },
            more: {
                guard remoteServer == nil else { return [] }
                let leftovers = RestoreLeftovers.find(besides: databasePath).map { (path: $0.path, bytes: $0.bytes) }
                return try appStoreConnectFindings() + Doctor.restoreLeftovers(database: databasePath, leftovers)
            }, printer: printer)
    }

    /// Drift and pending changes of the clips linked to App Store Connect, read there when a key is given (flags or the
    /// ASC_ environment); without one, or when App Store Connect cannot be read, doctor says so and goes on.
    private func appStoreConnectFindings() throws -> [Doctor.Finding] {
        guard parsed.value("host") == nil, !(try registry().ascLinks()).isEmpty else { return [] }
        let keyGiven =
            parsed.value("key-id") != nil
            || environment.contains { ["ASC_KEY_ID", "ASC_PRIVATE_KEY_PATH", "ASC_PRIVATE_KEY"].contains($0.key) && !$0.value.isEmpty }
        guard keyGiven else {
            return [
                .init(
                    severity: .info, code: "asc.notChecked", subject: "App Store Connect",
                    message: "clips are linked to App Store Connect, but no key was given: drift was not checked",
                    fix: "set ASC_KEY_ID, ASC_ISSUER_ID and ASC_PRIVATE_KEY_PATH (or pass --key-id …) and run doctor again")
            ]
        }
        return try appStoreConnectAccess().doctorFindings(registry: try registry())
    }

    /// `publish DIR` on the database, which is opened first: opening it may create it, in DIR itself (`publish .` in
    /// an empty folder).
    func publish() throws {
        let names = parsed.value("banner-names") ?? StaticSite.BannerNames.id.rawValue
        guard let bannerNames = StaticSite.BannerNames(rawValue: names) else {
            throw CommandFailure.usage("--banner-names takes id or path")
        }
        var at = Instant(seconds: Int64(Date().timeIntervalSince1970.rounded(.down)))
        if let text = parsed.value("at") {
            do { at = try Instant.parse(text, field: "at", zone: SystemTimeZones.lookup) } catch {
                throw RegistryError.invalid(error.errors)
            }
        }
        let local = try server() == nil
        if local { _ = try registry() }
        try PublishCommand.run(
            directory: parsed.positional(0)!, listen: parsed.value("nginx-listen") ?? "443 ssl", bannerNames: bannerNames, at: at,
            database: local ? databasePath : nil,
            json: json, runner: { try self.send($0, $1) }, printer: printer)
    }
}
