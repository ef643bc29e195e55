import ClipCodes
import ClipCore
import ClipStore
import FileFormats
import Foundation
import HTTP1
import QRCode
import StrictJSON

/// The code of a URL and print bundles (`ClipCodes`).
extension ClipAPI {
    func registerCodeRoutes() {
        // An experience's code.svg, code.png and tag.ndef are operations (ClipApp/Features/Codes.swift).
        // Public: the URL is printed for anyone to scan; the answer says no more than resolve does.
        add("GET", "/v1/codes", .open) { api, c in try api.urlCode(c) }
        add("GET", "/v1/codes/export", .token) { api, c in try api.codesExport(c) }
    }

    func urlCode(_ c: Context) throws -> HTTPResponse {
        guard let url = c.query("url"), !url.isEmpty else {
            throw Problem(
                status: 400, detail: "give the invocation URL as ?url=",
                errors: [FieldError(field: "url", rule: "required", message: "is required")])
        }
        let formatText = c.query("format") ?? "svg"
        guard let format = CodeFormat(rawValue: formatText), PrintBundle.formats.contains(format) else {
            throw Problem(
                status: 422, detail: "format is svg, png or ndef",
                errors: [FieldError(field: "format", rule: "enum", message: "expected svg, png or ndef")])
        }
        let (ecc, size) = try Self.codeOptions(c, for: format)
        if format == .png, !size.isPublic, try !Self.carriesValidToken(c) {
            throw Problem(
                status: 422, detail: "\(CodeSize.publicRule): print sizes come from /v1/experiences/{id}/code.png or clipctl code",
                errors: [FieldError(field: "size", rule: "range", message: CodeSize.publicRule)])
        }
        switch try c.registry.codeTarget(url: url) {
        case .success(let target): return try Self.codeResponse(c, target, format, ecc, size)
        case .failure(let refusal): throw Self.problem(refusal)
        }
    }

    /// The print bundle of the experiences the caller may see, as one ZIP archive.
    func codesExport(_ c: Context) throws -> HTTPResponse {
        var filter = Registry.ListFilter()
        filter.team = try c.caller.team
        if let host = c.query("host") { filter.host = try Registry.normalizeHost(host) }
        if let clip = c.query("clip") {
            // Another team's clip answers as one that does not exist (docs/rules.md#tenancy).
            guard let id = try? c.registry.clipID(clip), filter.team == nil || filter.team == id.team else {
                throw Problem.notFound("not found: clip \(clip)")
            }
            filter.clip = id
        }
        var formats = PrintBundle.formats
        if let list = c.query("formats") {
            formats = []
            for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let format = CodeFormat(rawValue: String(name)), PrintBundle.formats.contains(format) else {
                    throw Problem(
                        status: 422, detail: "formats is a comma-separated list of svg, png and ndef",
                        errors: [FieldError(field: "formats", rule: "enum", message: "expected svg, png or ndef, separated by commas")])
                }
                if !formats.contains(format) { formats.append(format) }
            }
        }
        let (ecc, size) = try Self.codeOptions(c)
        // A bundle is one request's work for every code at once: PNGs at screen sizes only (print sizes with clipctl
        // codes export, on the database's machine).
        if formats.contains(.png), !size.isPublic {
            throw Problem(
                status: 422,
                detail: "over HTTP a bundle's PNGs are at most 16 pixels a module or 200mm: print sizes come from clipctl codes export",
                errors: [FieldError(field: "size", rule: "range", message: "at most 16 pixels a module or 200mm for a bundle's PNGs")])
        }
        let (targets, _) = try c.registry.codeTargets(filter)
        let archive: [UInt8]
        do { archive = try PrintBundle.archive(try PrintBundle.files(targets, formats: formats, ecc: ecc, size: size)) } catch {
            throw Problem(status: 422, detail: error.description)
        }
        return Self.bytesResponse(
            c, archive, contentType: "application/zip",
            extra: [("Content-Disposition", "attachment; filename=\"codes.zip\"")])
    }

    /// Whether a request to a public route carries a live bearer token (which public routes otherwise ignore): what
    /// anyone may ask is then lifted to what a token may, as on the token routes.
    static func carriesValidToken(_ c: Context) throws -> Bool {
        guard let secret = ClipAPI.bearerSecret(c.request) else { return false }
        return try c.registry.authenticate(secret) != nil
    }

    /// `ecc` and `size` from the query, checked; with one code of a `format` that is not a QR code, refused.
    static func codeOptions(_ c: Context, for format: CodeFormat? = nil) throws -> (ErrorCorrectionLevel, CodeSize) {
        var errors: [FieldError] = []
        if let format, !format.isQRCode {
            for field in ["ecc", "size"] where c.query(field) != nil {
                errors.append(FieldError(field: field, rule: "not-applicable", message: CodeFormat.qrOptionsRule))
            }
        }
        var ecc = ErrorCorrectionLevel.medium
        if let text = c.query("ecc") {
            if let level = ErrorCorrectionLevel.parse(text) {
                ecc = level
            } else {
                errors.append(FieldError(field: "ecc", rule: "enum", message: "expected L, M, Q or H"))
            }
        }
        var size = CodeSize.standard
        if let text = c.query("size") {
            if let parsed = CodeSize.parse(text) {
                size = parsed
            } else {
                errors.append(FieldError(field: "size", rule: "range", message: "expected \(CodeSize.rule)"))
            }
        }
        guard errors.isEmpty else { throw Problem(status: 422, detail: "the code options are invalid", errors: errors) }
        return (ecc, size)
    }

    /// A URL that opens nothing is 404; one that cannot be used as it is (deactivated, host not associated,
    /// not an invocation URL), 422.
    static func problem(_ refusal: CodeTarget.Refusal) -> Problem {
        Problem(status: refusal.isNotFound ? 404 : 422, detail: "no code: \(refusal)")
    }

    static func codeResponse(
        _ c: Context, _ target: CodeTarget, _ format: CodeFormat, _ ecc: ErrorCorrectionLevel, _ size: CodeSize
    ) throws -> HTTPResponse {
        let code: RenderedCode
        do { code = try CodeRenderer.render(target.url, format: format, ecc: ecc, size: size) } catch {
            throw Problem(status: 422, detail: "no code: \(error)")
        }
        var extra = [("Content-Disposition", "inline; filename=\"\(CodeFileName.stem(for: target.url)).\(format.fileExtension)\"")]
        if let version = code.qrVersion, let level = code.errorCorrection {
            extra += [("Code-QR-Version", "\(version)"), ("Code-ECC", level.letter)]
        }
        if let tag = code.ntag { extra.append(("Code-NTAG", tag.rawValue)) }
        return bytesResponse(c, code.bytes, contentType: format.mediaType, extra: extra)
    }

    /// Bytes with a strong ETag of their SHA-256 (RFC 9110 §8.8.3); the route's policy answers 304 (ClipAPI.cached).
    static func bytesResponse(
        _ c: Context, _ bytes: [UInt8], contentType: String, extra: [(String, String)]
    ) -> HTTPResponse {
        let tag = "\"\(SHA256.hexDigest(bytes))\""
        let headers: [(String, String)] = [("Content-Type", contentType), ("ETag", tag)]
        return HTTPResponse(status: 200, headers: HTTPHeaders(headers + extra), body: bytes)
    }
}
