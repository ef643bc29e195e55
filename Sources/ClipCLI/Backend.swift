import ClipCodes
import FileFormats
import QRCode
import ClipCore
import CardPreview
import ClipApp
import ClipStore
import ClipWire
import StrictJSON

/// What `clipctl`'s commands need, as typed values: the local database and a remote server
/// (`--server`) answer the same values, and the commands print them with ClipWire's encoders,
/// so both print the same output.
protocol Backend {
    func register(_ body: JSONValue, image: [UInt8]?) throws -> WriteOutcome<AdvancedExperience>
    func experiences(clip: String?, host: String?, status: String?) throws -> [AdvancedExperience]
    func experience(_ reference: String) throws -> AdvancedExperience
    func update(_ reference: String, _ body: JSONValue, image: [UInt8]?) throws -> WriteOutcome<AdvancedExperience>
    func setStatus(_ reference: String, _ status: ExperienceStatus) throws -> WriteOutcome<AdvancedExperience>
    /// The experience as it was before its removal.
    func remove(_ reference: String) throws -> AdvancedExperience
    /// The resolution, a miss included; its explanation when `explain`.
    func resolve(_ url: String, language: String?, explain: Bool) throws -> ResolveAnswer
    func aasa(host: String) throws -> [UInt8]
    func banner(url: String, appArgument: String?, clip: String?) throws -> PageBanner
    /// The card preview of `url` as one self-contained HTML file (`CardPreviewFile`).
    func cardPreview(url: String, language: String?) throws -> CardPreviewFile
    /// Imports the bytes `chunks` gives (one chunk per call, nil at the end); `progress(lines)`.
    func importFile(
        format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?,
        progress: @escaping (Int) -> Void
    ) throws -> ImportReport
    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws
    /// Creates the clip (and its team and app) unless it exists.
    func addClip(_ clip: AppID) throws -> WriteOutcome<Clip>
    func clip(_ reference: String) throws -> Clip
    func removeClip(_ reference: String) throws
    func addDomain(clip: String, host: String) throws -> WriteOutcome<DomainAssociation>
    func removeDomain(clip: String, host: String) throws
    func domains(host: String?) throws -> [DomainAssociation]
    /// Who holds each host, or one host.
    func hostOwnerships(host: String?) throws -> [HostOwnership]
    /// claim, share or unshare `host` for `team`: the ownership afterwards, with notes.
    func assignHost(_ change: HostAssignment, host: String, team: TeamID) throws -> WriteOutcome<HostOwnership>
    func setDefault(clip: AppID, action: Action, localizations: [String: String], image: [UInt8]?) throws -> WriteOutcome<DefaultExperience>
    func defaultExperience(clip: String) throws -> DefaultExperience
    func removeDefault(clip: String) throws
    func setApplinks(
        host: String, app: BundleID, components: JSONValue, defaults: JSONValue?,
        position: Int?
    ) throws -> WriteOutcome<ApplinksDetails>
    func removeApplinks(host: String, app: BundleID) throws
    /// The notes of the change (a free host becoming the team's).
    /// The host's settings as stored (their JSON, as the API answers them), with the notes.
    func setApplinksSettings(host: String, defaults: JSONValue?, substitutionVariables: JSONValue?) throws -> WriteOutcome<JSONValue>
    /// The experience URLs the generated applinks do not give to their app.
    func setApplinksFromExperiences(host: String, _ enabled: Bool) throws -> WriteOutcome<[ExperienceApplinks.Miss]>
    /// The notes of an addition (a free host becoming the team's).
    func webcredentials(add: Bool, host: String, app: BundleID) throws -> WriteOutcome<Void>
    /// At most `limit` records after `since`, and the id to pass as `since` for the rest (nil: none left).
    /// The registry's records in bulk (`RegistryRecord`), all of them or what touches `host`, for doctor and publish.
    func forEachRecord(host: String?, _ body: (RegistryRecord) throws -> Void) throws
    /// The QR code or NDEF message of an experience (by id) or of an invocation URL; refused when it opens no card.
    func code(_ reference: String, format: CodeFormat, ecc: ErrorCorrectionLevel, size: CodeSize) throws -> CodeAnswer
}

/// A code's bytes and what stderr says about them.
struct CodeAnswer {
    let bytes: [UInt8]
    let qrVersion: Int?
    let errorCorrection: String?
    let ntag: String?
}

enum HostAssignment: String { case claim, share, unshare }

/// The local SQLite database.
struct LocalBackend: Backend {
    let registry: Registry

    func register(_ body: JSONValue, image: [UInt8]?) throws -> WriteOutcome<AdvancedExperience> {
        try registry.register(body, image: image)
    }

    func experiences(clip: String?, host: String?, status: String?) throws -> [AdvancedExperience] {
        var filter = Registry.ListFilter()
        if let clip { filter.clip = try registry.clipID(clip) }
        if let host { filter.host = try Registry.normalizeHost(host) }
        if let status {
            do { filter.status = try ExperienceStatus.parse(status.uppercased(), field: "status") } catch {
                throw RegistryError.invalid(error.errors)
            }
        }
        return try registry.experiences(filter)
    }

    func experience(_ reference: String) throws -> AdvancedExperience { try registry.experience(reference) }

    func update(_ reference: String, _ body: JSONValue, image: [UInt8]?) throws -> WriteOutcome<AdvancedExperience> {
        try registry.update(reference, with: body, image: image)
    }

    func setStatus(_ reference: String, _ status: ExperienceStatus) throws -> WriteOutcome<AdvancedExperience> {
        try registry.setStatus(reference, status)
    }

    func remove(_ reference: String) throws -> AdvancedExperience { try registry.remove(reference).value }

    func resolve(_ url: String, language: String?, explain: Bool) throws -> ResolveAnswer {
        let resolution = try registry.resolve(url, language: language)
        do { return try ResolutionJSON.answer(json: resolution.json(explain: explain)) } catch {
            throw CommandFailure(code: ExitCode.failure, message: "internal error: \(error)")
        }
    }

    func aasa(host: String) throws -> [UInt8] { try registry.aasa(host: host) }

    func code(_ reference: String, format: CodeFormat, ecc: ErrorCorrectionLevel, size: CodeSize) throws -> CodeAnswer {
        let decision: Result<CodeTarget, CodeTarget.Refusal>
        if let id = Int64(reference), id > 0, String(id) == reference {
            decision = try registry.codeTarget(experience: try registry.experience(reference))
        } else {
            decision = try registry.codeTarget(url: reference)
        }
        let target: CodeTarget
        switch decision {
        case .success(let t): target = t
        case .failure(let refusal):
            // As over HTTP: a URL that opens nothing is not found (404, exit 1); one that cannot be used as it is, 422 (exit 65).
            throw CommandFailure(code: refusal.isNotFound ? ExitCode.failure : ExitCode.invalidInput, message: "no code: \(refusal)")
        }
        do {
            let code = try CodeRenderer.render(target.url, format: format, ecc: ecc, size: size)
            return CodeAnswer(
                bytes: code.bytes, qrVersion: code.qrVersion, errorCorrection: code.errorCorrection?.letter, ntag: code.ntag?.rawValue)
        } catch { throw CommandFailure(code: ExitCode.invalidInput, message: "no code: \(error)") }
    }

    func banner(url: String, appArgument: String?, clip: String?) throws -> PageBanner {
        try registry.banner(pageURL: url, appArgument: appArgument, clip: clip)
    }

    func cardPreview(url: String, language: String?) throws -> CardPreviewFile {
        let input = try CardPreviewSource.input(
            registry: registry, url: url, language: language, acceptLanguage: nil, images: .inline, codesOrigin: nil)
        let page = CardPreviewPage.render(input)
        return CardPreviewFile(html: page.html, showsCard: page.kind != .noMatch, reason: input.resolution.reason)
    }

    func importFile(
        format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?,
        progress: @escaping (Int) -> Void
    ) throws -> ImportReport {
        try registry.importExperiences(format: format, chunks: chunks, progress: progress)
    }

    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws {
        try registry.export(format: format, spreadsheetSafe: spreadsheetSafe, emit: emit)
    }

    func addClip(_ clip: AppID) throws -> WriteOutcome<Clip> { try registry.addClip(clip) }
    func clip(_ reference: String) throws -> Clip { try registry.clip(reference) }
    func removeClip(_ reference: String) throws { try registry.removeClip(reference) }
    func addDomain(clip: String, host: String) throws -> WriteOutcome<DomainAssociation> { try registry.addDomain(clip: clip, host: host) }
    func removeDomain(clip: String, host: String) throws { try registry.removeDomain(clip: clip, host: host) }
    func domains(host: String?) throws -> [DomainAssociation] {
        try registry.domains(host: host).map { DomainAssociation(clip: $0.clip, host: $0.host) }
    }
    func hostOwnerships(host: String?) throws -> [HostOwnership] { try registry.hostOwnerships(host: host) }

    func assignHost(_ change: HostAssignment, host: String, team: TeamID) throws -> WriteOutcome<HostOwnership> {
        switch change {
        case .claim: try registry.claimHost(host, team: team)
        case .share: try registry.shareHost(host, team: team)
        case .unshare: try registry.unshareHost(host, team: team)
        }
    }

    func setDefault(
        clip: AppID, action: Action, localizations: [String: String],
        image: [UInt8]?
    ) throws -> WriteOutcome<DefaultExperience> {
        try registry.setDefaultExperience(clip: clip, action: action, localizations: localizations, image: image)
    }

    func defaultExperience(clip: String) throws -> DefaultExperience { try registry.defaultExperience(clip: clip) }
    func removeDefault(clip: String) throws { try registry.removeDefaultExperience(clip: clip) }

    func setApplinks(
        host: String, app: BundleID, components: JSONValue, defaults: JSONValue?,
        position: Int?
    ) throws -> WriteOutcome<ApplinksDetails> {
        try registry.setApplinks(host: host, app: app, components: components, defaults: defaults, position: position)
    }

    func removeApplinks(host: String, app: BundleID) throws { try registry.removeApplinks(host: host, app: app) }

    func setApplinksSettings(host: String, defaults: JSONValue?, substitutionVariables: JSONValue?) throws -> WriteOutcome<JSONValue> {
        let stored = try registry.setApplinksSettings(host: host, defaults: defaults, substitutionVariables: substitutionVariables)
        return WriteOutcome(CatalogJSON.applinksSettings(stored.value), notes: stored.notes)
    }

    func setApplinksFromExperiences(host: String, _ enabled: Bool) throws -> WriteOutcome<[ExperienceApplinks.Miss]> {
        try registry.setApplinksFromExperiences(host: host, enabled)
    }

    func webcredentials(add: Bool, host: String, app: BundleID) throws -> WriteOutcome<Void> {
        guard add else {
            try registry.removeWebcredentials(host: host, app: app)
            return WriteOutcome(())
        }
        return try registry.addWebcredentials(host: host, app: app)
    }

    /// One read transaction.
    func forEachRecord(host: String?, _ body: (RegistryRecord) throws -> Void) throws {
        let scope = Registry.BulkScope(host: try host.map { try Registry.normalizeHost($0) })
        _ = try registry.bulkRecords(scope, body)
    }

}
