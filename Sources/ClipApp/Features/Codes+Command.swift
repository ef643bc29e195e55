import ArgParse
import ClipCodes
import ClipCore
import ClipStore
import FileFormats
import QRCode
import StrictJSON

/// `clipctl code URL|ID`: an experience's route for an id, `GET /v1/codes` for a URL; `ndef-hex` is the
/// NDEF message's bytes in hexadecimal, made here from the route's bytes.
enum CodeCommand {
    static let spec = CommandSpec(
        "code", summary: "make the QR code or NFC tag of an experience or of an invocation URL",
        discussion: """
            A code is made only for a URL that opens an App Clip card: an active experience's, or one that resolves to an \
            active experience or to the default experience of a clip associated with the host; otherwise it says why and \
            writes nothing. SVG and hex go to standard output without -o; PNG and NDEF need -o. FILE is written whole \
            (a temporary file renamed), never through a symbolic link. Standard error says the QR version or the smallest NTAG.
            """,
        positionals: [PositionalSpec("URL|ID", help: "an invocation URL (https) or an experience id")],
        options: [
            .option("format", value: "FORMAT", help: "svg (default), png, ndef (raw NDEF message) or ndef-hex"),
            .option("ecc", value: "L|M|Q|H", help: "QR error correction level (default M)"),
            .option("size", value: "N|Nmm", help: "pixels a module (1–100, default 8), or the printed width such as 30mm (10–1000)"),
            .option("output", short: "o", value: "FILE", help: "write to FILE"),
        ],
        examples: [
            Example(
                "clipctl code https://bikesrental.example/rent --format png --size 30mm -o rent.png",
                "Make a QR code 30 mm wide for printing"),
            Example("clipctl code 1 --format ndef-hex", "Print the NFC tag bytes of experience 1 in hexadecimal"),
        ])

    /// Whether the reference is meant as an experience id (`ExperienceReference`): `01` then goes to the experience's
    /// route, which finds none, as every command that names an experience does; anything else is a URL.
    static func isExperienceID(_ reference: String) -> Bool {
        ExperienceReference.isMeantAsID(reference)
    }

    /// `--format`, as the command takes it (`ndef-hex` included); nil when it names none.
    static func format(_ parsed: CommandWords) -> CodeFormat? { CodeFormat(rawValue: (parsed.value("format") ?? "svg").lowercased()) }

    /// The format a server makes: `ndef-hex` is made here from `ndef`'s bytes.
    static func wireFormat(_ parsed: CommandWords) -> CodeFormat {
        let format = format(parsed) ?? .svg
        return format == .ndefHex ? .ndef : format
    }

    static func route(_ parsed: CommandWords) -> Binding? {
        guard isExperienceID(parsed.positionals.first ?? "") else { return nil }
        switch wireFormat(parsed) {
        case .png: return ExperiencePNGCode.binding
        case .ndef, .ndefHex: return ExperienceNDEFTag.binding
        case .svg: return ExperienceSVGCode.binding
        }
    }

    /// `--ecc` (default M) and `--size` (default standard) as a QR code's command reads them (exit 64).
    static func qrOptions(_ parsed: CommandWords) throws -> (ecc: ErrorCorrectionLevel, size: CodeSize) {
        let eccText = parsed.value("ecc") ?? "M"
        guard let ecc = ErrorCorrectionLevel.parse(eccText) else { throw CommandUsageError("--ecc is L, M, Q or H (got \(eccText))") }
        guard let sizeText = parsed.value("size") else { return (ecc, .standard) }
        guard let size = CodeSize.parse(sizeText) else { throw CommandUsageError("--size is \(CodeSize.rule) (got \(sizeText))") }
        return (ecc, size)
    }

    /// The command line checked as clipctl always has (exit 64), then the route's arguments.
    static func arguments(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        let formatText = parsed.value("format") ?? "svg"
        guard let format = format(parsed) else { throw CommandUsageError("--format is svg, png, ndef or ndef-hex (got \(formatText))") }
        if !format.isQRCode, parsed.value("ecc") != nil || parsed.value("size") != nil {
            throw CommandUsageError("--\(CodeFormat.qrOptionsRule) (got --format \(format.rawValue))")
        }
        let (ecc, size) = try qrOptions(parsed)
        if format.isBinary && parsed.value("output") == nil {
            // Bytes are never written to standard output: a terminal would show garbage, and a pipe is what -o FILE is for.
            throw CommandUsageError("--format \(format.rawValue) writes bytes, not text: give -o FILE")
        }
        let reference = parsed.positionals.first ?? ""
        let wire = wireFormat(parsed)
        if isExperienceID(reference) {
            arguments.append("id", reference)
        } else {
            arguments.append("url", reference)
            arguments.append("format", wire.rawValue)
        }
        if wire.isQRCode {
            arguments.append("ecc", ecc.letter)
            arguments.append("size", size.text)
        }
        arguments.accept = wire.mediaType
    }

    /// The code written to `-o FILE` (whole, never through a symbolic link) or printed; standard error says what it is.
    /// With `--json`, one object either way: the file written, or the text itself (an SVG or NDEF hex).
    static func present(_ output: CodeOutput, _ parsed: CommandWords, _ printer: Printer) throws {
        let format = format(parsed) ?? .svg
        var bytes = output.content.bytes
        if format == .ndefHex { bytes = Array((Hexadecimal.string(bytes) + "\n").utf8) }
        let facts: String
        if let version = output.qrVersion {
            let modules = QRCode.size(version: version)
            let level = output.errorCorrection ?? ErrorCorrectionLevel.parse(parsed.value("ecc") ?? "M")?.letter ?? "M"
            facts = "QR code version \(version), error correction \(level), \(modules)×\(modules) modules"
        } else {
            let tag = output.ntag.map { "the smallest NTAG that holds it: \($0)" } ?? "no NTAG21x holds it"
            facts = "NDEF message of \((format == .ndefHex ? bytes.count / 2 : bytes.count)) bytes; \(tag)"
        }
        func described(_ place: (key: String, value: JSONValue)) -> String {
            let members: [(key: String, value: JSONValue?)] = [
                ("format", .string(format.rawValue)), ("bytes", .integer(Int64(bytes.count))), ("sha256", .string(SHA256.hexDigest(bytes))),
                ("qrVersion", output.qrVersion.map { .integer(Int64($0)) }), ("ecc", output.errorCorrection.map(JSONValue.string)),
                ("ntag", output.ntag.map(JSONValue.string)),
            ]
            return JSONWriter.string(
                .object([place] + members.compactMap { key, value in value.map { (key: key, value: $0) } }), pretty: true)
        }
        let json = parsed.flag("json")
        if let path = parsed.value("output") {
            do { try DurableFiles.replaceWhole(path, with: bytes) } catch { throw CommandExitStatus(code: 1, message: "\(error)") }
            if json { printer.line(described((key: "file", value: .string(path)))) } else { printer.err("wrote \(path): \(facts)\n") }
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if json { return printer.line(described((key: "text", value: .string(text)))) }
        printer.out(text)
        printer.err("\(facts)\n")
    }
}
