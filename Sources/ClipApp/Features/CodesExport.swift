import ClipCodes
import ClipCore
import ClipStore
import FileFormats

/// The print bundle of the experiences the caller may see, as one ZIP archive (`PrintBundle`):
/// `GET /v1/codes/export?host=&clip=&formats=&ecc=&size=`. A team token gets its own team's codes;
/// another team's clip is not found (docs/rules.md#tenancy). `clipctl codes export DIR` writes the
/// same files into a directory, on the database's machine.
public enum CodesExport: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput, CodeOptionsInput {
        var host: String?
        var clip: String?
        var formats: String?
        var ecc: String?
        var size: String?
        var labels: [String] = []
        var name: String?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .bundleHost(\.host), .bundleClip(\.clip), .labelSelector(\.labels), .bundleFormats(\.formats), .ecc(\.ecc),
            .bundleSize(\.size), .codeNames(\.name),
        ]
    }

    /// The archive, with a strong ETag of its SHA-256 (RFC 9110 §8.8.3), to be saved as `codes.zip`.
    public struct Output: OperationContentOutput {
        public var content: OperationContent
        public var headers: [(name: String, value: String)]
        public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) {
            self.content = content
            self.headers = headers
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var filter = Registry.ListFilter()
        filter.team = session.caller.team
        if let host = input.host { filter.host = try Registry.normalizeHost(host) }
        if let clip = input.clip {
            guard let id = try? session.registry.clipID(clip), filter.team == nil || filter.team == id.team else {
                throw RegistryError.notFound("clip \(clip)")
            }
            filter.clip = id
        }
        filter.labels = try LabelSelector.reading(input.labels)
        let naming = try CodeNameTemplate.reading(input.name)
        let formats = try formats(input.formats)
        // Any QR format: `ecc` and `size` apply to the bundle's QR codes and are not refused for its tags.
        let (ecc, size) = try input.options(for: .svg)
        // A bundle is one request's work for every code at once: PNGs at screen sizes only (print sizes with clipctl
        // codes export, on the database's machine).
        if formats.contains(.png), !size.isPublic {
            throw InvalidArguments(
                "over HTTP a bundle's PNGs are at most 16 pixels a module or 200mm: print sizes come from clipctl codes export",
                [FieldError(field: CodeOption.size, rule: "range", message: "at most 16 pixels a module or 200mm for a bundle's PNGs")])
        }
        let (targets, _) = try session.registry.codeTargets(filter)
        let archive: [UInt8]
        do {
            archive = try PrintBundle.archive(try PrintBundle.files(targets, formats: formats, ecc: ecc, size: size, naming: naming))
        } catch {
            throw OperationError.invalid(error.description)
        }
        return Output(
            content: OperationContent(bytes: archive, type: "application/zip"), status: 200,
            headers: [("ETag", "\"\(SHA256.hexDigest(archive))\""), ("Content-Disposition", "attachment; filename=\"codes.zip\"")])
    }

    /// `formats`: a comma-separated list of svg, png and ndef, each once; all three when not given.
    static func formats(_ list: String?) throws(InvalidArguments) -> [CodeFormat] {
        guard let list else { return PrintBundle.formats }
        var formats: [CodeFormat] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let format = CodeFormat(rawValue: String(name)), PrintBundle.formats.contains(format) else {
                throw InvalidArguments(
                    "formats is a comma-separated list of svg, png and ndef",
                    [FieldError(field: CodeOption.formats, rule: "enum", message: "expected svg, png or ndef, separated by commas")])
            }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
    }

    public static let binding = Binding(Self.self, Route("GET", "/v1/codes/export", body: .none(.ignored)))
}

extension InputField {
    /// A print bundle's filters and formats (`GET /v1/codes/export`, `clipctl codes export`).
    static func bundleHost(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .text("host", key, "HOST", help: "only experiences on this host")
    }

    static func bundleClip(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .text("clip", key, "CLIP", help: "only this clip's experiences")
    }

    static func bundleFormats(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .text(CodeOption.formats, key, "LIST", help: "comma-separated: svg, png, ndef (default all three)")
    }

    static func bundleSize(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .size(key, help: "pixels a module (default 8), or the printed width such as 30mm")
    }
}
