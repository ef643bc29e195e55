import ClipCodes
import ClipCore
import ClipStore
import FileFormats
import QRCode
import StrictJSON

/// `clipctl code URL|ID`: an experience's route for an id, `GET /v1/codes` for a URL; `ndef-hex` is the
/// NDEF message's bytes in hexadecimal, made here from the route's bytes.
enum CodeCommand {
    static let help = CommandHelp(
        "make the QR code or NFC tag of an experience or of an invocation URL",
        discussion: """
            A code is made only for a URL that opens an App Clip card: an active experience's, or one that resolves to an \
            active experience or to the default experience of a clip associated with the host; otherwise it says why and \
            writes nothing. SVG and hex go to standard output without -o; PNG and NDEF need -o. FILE is written whole \
            (a temporary file renamed), never through a symbolic link. Standard error says the QR version or the smallest NTAG.
            """,
        examples: [
            CommandExample(
                "clipctl code https://bikesrental.example/rent --format png --size 30mm -o rent.png",
                "Make a QR code 30 mm wide for printing"),
            CommandExample("clipctl code 1 --format ndef-hex", "Print the NFC tag bytes of experience 1 in hexadecimal"),
        ])

    /// `-o FILE`: where the code is written, whole.
    static let output = FieldFacts.option("output", "FILE", help: "write to FILE", short: "o")

    /// Whether the reference is meant as an experience id (`ExperienceReference`): `01` then goes to the experience's
    /// route, which finds none, as every command that names an experience does; anything else is a URL.
    static func isExperienceID(_ reference: String) -> Bool {
        ExperienceReference.isMeantAsID(reference)
    }

    /// `--format`, as the command takes it (`ndef-hex` included); nil when it names none.
    static func format(_ words: CommandWords) -> CodeFormat? {
        CodeFormat(rawValue: (words.value(URLCode.Input.format.facts.name) ?? "svg").lowercased())
    }

    /// The format a server makes: `ndef-hex` is made here from `ndef`'s bytes.
    static func wireFormat(_ words: CommandWords) -> CodeFormat {
        let format = format(words) ?? .svg
        return format == .ndefHex ? .ndef : format
    }

    static func route(_ words: CommandWords) -> Binding? {
        guard isExperienceID(words.positionals.first ?? "") else { return nil }
        switch wireFormat(words) {
        case .png: return ExperiencePNGCode.binding
        case .ndef, .ndefHex: return ExperienceNDEFTag.binding
        case .svg: return ExperienceSVGCode.binding
        }
    }

    /// `--ecc` (default M) and `--size` (default standard) as a QR code's command reads them (exit 64).
    static func qrOptions(_ words: CommandWords) throws -> (ecc: ErrorCorrectionLevel, size: CodeSize) {
        let eccText = words.value(CodeOption.ecc) ?? "M"
        guard let ecc = ErrorCorrectionLevel.parse(eccText) else { throw CommandUsageError("--ecc is L, M, Q or H (got \(eccText))") }
        guard let sizeText = words.value(CodeOption.size) else { return (ecc, .standard) }
        guard let size = CodeSize.parse(sizeText) else { throw CommandUsageError("--size is \(CodeSize.rule) (got \(sizeText))") }
        return (ecc, size)
    }

    /// The command line checked as clipctl always has (exit 64), then the arguments of the route the reference chooses:
    /// an experience's id or an invocation URL, the format a server makes, and the QR options spelt one way.
    static func arguments(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let words = line.parsed
        let formatText = words.value(URLCode.Input.format.facts.name) ?? "svg"
        guard let format = format(words) else { throw CommandUsageError("--format is svg, png, ndef or ndef-hex (got \(formatText))") }
        if !format.isQRCode, words.value(CodeOption.ecc) != nil || words.value(CodeOption.size) != nil {
            throw CommandUsageError("--\(CodeFormat.qrOptionsRule) (got --format \(format.rawValue))")
        }
        let (ecc, size) = try qrOptions(words)
        if format.isBinary && words.value(output.name) == nil {
            // Bytes are never written to standard output: a terminal would show garbage, and a pipe is what -o FILE is for.
            throw CommandUsageError("--format \(format.rawValue) writes bytes, not text: give -o FILE")
        }
        let reference = words.positionals.first ?? ""
        let wire = wireFormat(words)
        let qr: (ecc: String?, size: String?) = wire.isQRCode ? (ecc.letter, size.text) : (nil, nil)
        if isExperienceID(reference) {
            var code = CodeInput()
            (code.id, code.ecc, code.size) = (reference, qr.ecc, qr.size)
            arguments = code.arguments
        } else {
            var code = URLCode.Input()
            (code.url, code.format, code.ecc, code.size) = (reference, wire.rawValue, qr.ecc, qr.size)
            arguments = code.arguments
        }
        arguments.accept = wire.mediaType
    }

    /// The code written to `-o FILE` (whole, never through a symbolic link) or printed; standard error says what it is.
    /// With `--json`, one object either way: the file written, or the text itself (an SVG or NDEF hex).
    static func present(_ output: CodeOutput, _ words: CommandWords, _ printer: Printer) throws {
        let format = format(words) ?? .svg
        var bytes = output.content.bytes
        if format == .ndefHex { bytes = Array((Hexadecimal.string(bytes) + "\n").utf8) }
        let facts: String
        if let version = output.qrVersion {
            let modules = QRCode.size(version: version)
            let level = output.errorCorrection ?? ErrorCorrectionLevel.parse(words.value(CodeOption.ecc) ?? "M")?.letter ?? "M"
            facts = "QR code version \(version), error correction \(level), \(modules)×\(modules) modules"
        } else {
            let tag = output.ntag.map { "the smallest NTAG that holds it: \($0)" } ?? "no NTAG21x holds it"
            facts = "NDEF message of \((format == .ndefHex ? bytes.count / 2 : bytes.count)) bytes; \(tag)"
        }
        // `--json`: what was made, the file written or the text, then the code's facts (members without a value left out).
        func described(_ place: String, _ value: String) -> String {
            JSONWriter.string(
                .object([
                    place: .string(value), "format": .string(format.rawValue), "bytes": .integer(Int64(bytes.count)),
                    "sha256": .string(SHA256.hexDigest(bytes)), "qrVersion": output.qrVersion.map { .integer(Int64($0)) },
                    "ecc": output.errorCorrection.map(JSONValue.string), "ntag": output.ntag.map(JSONValue.string),
                ]), pretty: true)
        }
        let json = words.flag("json")
        if let path = words.value(Self.output.name) {
            do { try DurableFiles.replaceWhole(path, with: bytes) } catch { throw OperationError.notWritten("\(error)") }
            if json { printer.line(described("file", path)) } else { printer.err("wrote \(path): \(facts)\n") }
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if json { return printer.line(described("text", text)) }
        printer.out(text)
        printer.err("\(facts)\n")
    }
}
