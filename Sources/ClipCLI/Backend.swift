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

/// The local SQLite database.
struct LocalBackend: Backend {
    let registry: Registry

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

}
