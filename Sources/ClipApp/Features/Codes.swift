public import ClipCodes
import ClipCore
import ClipStore
import ClipWire
import FileFormats
import QRCode
import StrictJSON

/// The QR code or NFC tag of an experience: `GET /v1/experiences/{id}/code.svg|code.png|tag.ndef`
/// (a team token sees its own team's experiences; another's is not found, docs/rules.md#tenancy), and
/// `clipctl code URL|ID`, which runs one of these routes for an id and `GET /v1/codes` for a URL.
public protocol ExperienceCodeRoute: Operation where Input == CodeInput, Output == CodeOutput {
    static var format: CodeFormat { get }
}

extension ExperienceCodeRoute {
    public static var callers: CallerRule { .token }

    public static func run(_ input: CodeInput, in session: Session) throws -> CodeOutput {
        let experience = try Experiences.visible(input.id, in: session)
        let (ecc, size) = try input.options(for: format)
        return try CodeOutput(session.registry.codeTarget(experience: experience), format, ecc, size)
    }
}

public enum ExperienceSVGCode: ExperienceCodeRoute {
    public static let format = CodeFormat.svg
    public static let binding = Binding(Self.self, Route("GET", "/v1/experiences/{id}/code.svg"))
}

public enum ExperiencePNGCode: ExperienceCodeRoute {
    public static let format = CodeFormat.png
    public static let binding = Binding(Self.self, Route("GET", "/v1/experiences/{id}/code.png"))
}

public enum ExperienceNDEFTag: ExperienceCodeRoute {
    public static let format = CodeFormat.ndef
    public static let binding = Binding(Self.self, Route("GET", "/v1/experiences/{id}/tag.ndef"))
}

/// The experience's code: its id (`{id}`) and the QR options as given.
public struct CodeInput: DeclaredInput, CodeOptionsInput {
    var id = ""
    var ecc: String?
    var size: String?
    public init() {}
    public static let fields: [InputField<CodeInput>] = [
        .text("id", \.id, in: .path, "ID", help: "the experience id"), .ecc(\.ecc), .size(\.size),
    ]
}

/// An input with a code's QR options as given (`ecc`, `size`), which the code's route checks for its format.
protocol CodeOptionsInput {
    var ecc: String? { get }
    var size: String? { get }
}

extension CodeOptionsInput {
    /// `ecc` and `size`, checked; given for a code that is not a QR code, refused (`CodeFormat.qrOptionsRule`).
    func options(for format: CodeFormat) throws(InvalidArguments) -> (ErrorCorrectionLevel, CodeSize) {
        var errors: [FieldError] = []
        if !format.isQRCode {
            for (field, value) in [(CodeOption.ecc, ecc), (CodeOption.size, size)] where value != nil {
                errors.append(FieldError(field: field, rule: "not-applicable", message: CodeFormat.qrOptionsRule))
            }
        }
        var level = ErrorCorrectionLevel.medium
        if let ecc {
            if let parsed = ErrorCorrectionLevel.parse(ecc) {
                level = parsed
            } else {
                errors.append(FieldError(field: CodeOption.ecc, rule: "enum", message: "expected L, M, Q or H"))
            }
        }
        var width = CodeSize.standard
        if let size {
            if let parsed = CodeSize.parse(size) {
                width = parsed
            } else {
                errors.append(FieldError(field: CodeOption.size, rule: "range", message: "expected \(CodeSize.rule)"))
            }
        }
        guard errors.isEmpty else { throw InvalidArguments("the code options are invalid", errors) }
        return (level, width)
    }
}

/// The names of a code's options, as every code route and command spells them: the QR options, and a bundle's formats.
enum CodeOption {
    static let ecc = "ecc"
    static let size = "size"
    static let formats = "formats"
}

extension InputField {
    /// `ecc`: a QR code's error correction level as given (`CodeOptionsInput.options`).
    static func ecc(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .text(CodeOption.ecc, key, "L|M|Q|H", help: "QR error correction level", default: "M")
    }

    /// `size`: a QR code's pixels a module, or its printed width, as given.
    static func size(
        _ key: any WritableKeyPath<Input, String?> & Sendable,
        help: String = "pixels a module (1–100, default 8), or the printed width such as 30mm (10–1000)"
    ) -> InputField {
        .text(CodeOption.size, key, "N|Nmm", help: help)
    }
}

/// A code's bytes, with a strong ETag of their SHA-256 (RFC 9110 §8.8.3), a file name, and what the
/// code is: its QR version and level, or the smallest NTAG21x that holds the message.
public struct CodeOutput: OperationContentOutput {
    public var content: OperationContent
    public var qrVersion: Int?
    public var errorCorrection: String?
    public var ntag: String?
    public var headers: [(name: String, value: String)]

    init(
        _ decision: Result<CodeTarget, CodeTarget.Refusal>, _ format: CodeFormat, _ ecc: ErrorCorrectionLevel, _ size: CodeSize
    ) throws(OperationError) {
        let target: CodeTarget
        switch decision {
        case .success(let t): target = t
        // A URL that opens nothing is 404; one that cannot be used as it is (deactivated, host not associated,
        // not an invocation URL), 422.
        case .failure(let refusal): throw refusal.isNotFound ? .notFound("no code: \(refusal)") : .invalid("no code: \(refusal)")
        }
        let code: RenderedCode
        do { code = try CodeRenderer.render(target.url, format: format, ecc: ecc, size: size) } catch {
            throw .invalid("no code: \(error)")
        }
        content = OperationContent(bytes: code.bytes, type: format.mediaType)
        qrVersion = code.qrVersion
        errorCorrection = code.errorCorrection?.letter
        ntag = code.ntag?.rawValue
        headers = [
            ("ETag", "\"\(SHA256.hexDigest(code.bytes))\""),
            ("Content-Disposition", "inline; filename=\"\(CodeFileName.stem(for: target.url)).\(format.fileExtension)\""),
        ]
        if let version = qrVersion, let level = errorCorrection { headers += [("Code-QR-Version", "\(version)"), ("Code-ECC", level)] }
        if let ntag { headers.append(("Code-NTAG", ntag)) }
    }

    public init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) {
        self.content = content
        self.headers = headers
        func field(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        qrVersion = field("code-qr-version").flatMap { Int($0) }
        errorCorrection = field("code-ecc")
        ntag = field("code-ntag")
    }
}

/// The code of an invocation URL: `GET /v1/codes?url=…&format=svg|png|ndef`, and `clipctl code URL|ID`.
/// Public: the URL is printed for anyone to scan, and the answer says no more than resolve does. A live
/// token it carries lifts the PNG size limit (`Session.carriesValidToken`); on a database, the command's
/// caller has no limit.
public enum URLCode: Operation {
    public static let callers = CallerRule.open

    /// The URL and the code's format and QR options, as given; the command's words as `clipctl code` reads them
    /// (`CodeCommand.arguments`: an id goes to the experience's route instead).
    public struct Input: DeclaredInput, CodeOptionsInput {
        var url: String?
        var format: String?
        var ecc: String?
        var size: String?
        public init() {}
        static let url = InputField.positional("url", \Input.url, "URL|ID", help: "an invocation URL (https) or an experience id")
        static let format = InputField.text(
            "format", \Input.format, "FORMAT", help: "svg (default), png, ndef (raw NDEF message) or ndef-hex")
        public static let fields: [InputField<Input>] = [url, format, .ecc(\.ecc), .size(\.size)]
    }

    public static func run(_ input: Input, in session: Session) throws -> CodeOutput {
        guard let url = input.url, !url.isEmpty else {
            throw OperationError.malformed(
                "give the invocation URL as ?url=",
                errors: [FieldError(field: Input.url.facts.name, rule: "required", message: "is required")])
        }
        guard let format = CodeFormat(rawValue: input.format ?? "svg"), PrintBundle.formats.contains(format) else {
            throw InvalidArguments(
                "format is svg, png or ndef",
                [FieldError(field: Input.format.facts.name, rule: "enum", message: "expected svg, png or ndef")])
        }
        let (ecc, size) = try input.options(for: format)
        if format == .png, !size.isPublic, session.caller == .anyone, try !(session.carriesValidToken?() ?? false) {
            throw InvalidArguments(
                "\(CodeSize.publicRule): print sizes come from /v1/experiences/{id}/code.png or clipctl code",
                [FieldError(field: CodeOption.size, rule: "range", message: CodeSize.publicRule)])
        }
        return try CodeOutput(session.registry.codeTarget(url: url), format, ecc, size)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/codes", body: .none(.ignored)),
        command: Command(
            ["code"], CodeCommand.help, options: [CodeCommand.output],
            steps: CommandSteps(input: CodeCommand.arguments, route: CodeCommand.route), json: .presented,
            present: CodeCommand.present))
}
