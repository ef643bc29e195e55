import ArgParse
import ClipCodes
import ClipCore
import DoctorAndPublish
import ClipStore
import FileFormats
import Foundation
import QRCode
public import StrictJSON

/// `clipctl codes export DIR`: the print bundle (`PrintBundle`) written into a directory, with the safety
/// of `publish`: DIR is absent, empty or an earlier export, is swapped in whole, and never holds the
/// database. On the database only: over HTTP, `GET /v1/codes/export` (`CodesExport`) answers the same
/// files as one ZIP archive.
public enum CodesExportDirectory: Operation {
    public static let callers = CallerRule.admin

    public struct Input: OperationInput {
        public var arguments: Arguments
        var directory: String
        var host: String?
        var clip: String?
        var formats: [CodeFormat]
        var ecc: ErrorCorrectionLevel
        var size: CodeSize
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            directory = reader.string("dir") ?? ""
            host = reader.string("host")
            clip = reader.string("clip")
            // Checked by the command line already (`formats(_:)`, `options(_:)`).
            let (formatList, eccText, sizeText) = (reader.string("formats"), reader.string("ecc"), reader.string("size"))
            formats = (try? CodesExportDirectory.formats(formatList)) ?? PrintBundle.formats
            ecc = eccText.flatMap { ErrorCorrectionLevel.parse($0) } ?? .medium
            size = sizeText.flatMap { CodeSize.parse($0) } ?? .standard
        }
    }

    /// What was written, as `--json` prints it.
    public struct Output: OperationOutput {
        public var json: JSONValue
        public init(json: JSONValue) { self.json = json }
    }

    /// At most this many paths and notes are listed one per line; the rest are counted.
    static let listedAtMost = 20

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let registry = session.registry
        var filter = Registry.ListFilter()
        if let host = input.host { filter.host = try Registry.normalizeHost(host) }
        if let clip = input.clip { filter.clip = try registry.clipID(clip) }
        let target: String
        do throws(PublishedDirectory.Failure) {
            target = try PublishedDirectory.resolve(input.directory)
            try PublishedDirectory.checkNotHoldingDatabase(target, database: registry.path, command: "codes export")
        } catch { throw failure(error) }
        let (targets, refusals) = try registry.codeTargets(filter)
        let files: [StaticSite.File]
        do { files = try PrintBundle.files(targets, formats: input.formats, ecc: input.ecc, size: input.size) } catch {
            throw OperationFailure(status: 422, detail: "nothing written: \(error)", exitCode: 65)
        }
        let changes: StaticSite.Changes
        do throws(PublishedDirectory.Failure) {
            changes = try PublishedDirectory.write(
                files, to: target, listedAtMost: listedAtMost, marker: PrintBundle.marker, keepingUnchanged: true)
        } catch { throw failure(error) }
        let index = files.first { $0.path == StaticSite.indexName }?.bytes ?? []
        return Output(
            json: .object([
                "directory": .string(target), "codes": .integer(Int64(targets.count)), "files": .integer(Int64(files.count)),
                "indexSHA256": .string(SHA256.hexDigest(index)),
                "added": .array(changes.added.map(JSONValue.string)), "changed": .array(changes.changed.map(JSONValue.string)),
                "removed": .array(changes.removed.map(JSONValue.string)), "unchanged": .integer(Int64(changes.unchanged.count)),
                "notes": .array(refusals.map(JSONValue.string)),
            ]))
    }

    /// DIR that cannot be written is invalid input (exit 65); a write that fails, a failure (exit 1).
    static func failure(_ failure: PublishedDirectory.Failure) -> any Error {
        switch failure {
        case .target(let message):
            InvalidArguments("invalid input", [FieldError(field: "DIR", rule: "publish.target", message: message)])
        case .io(let message): OperationFailure(status: 500, detail: message, exitCode: 1)
        }
    }

    /// `--formats`: a comma-separated list of svg, png and ndef (spaces and case aside), each once; all three when not given.
    static func formats(_ list: String?) throws(CommandUsageError) -> [CodeFormat] {
        guard let list else { return PrintBundle.formats }
        var formats: [CodeFormat] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let format = CodeFormat(rawValue: name.lowercased()), PrintBundle.formats.contains(format) else {
                throw CommandUsageError("--formats is a comma-separated list of svg, png and ndef (got \(list))")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
    }

    /// The command line checked as clipctl always has (exit 64), then the operation's arguments in one spelling.
    static func arguments(_ line: CommandLine, _ arguments: inout Arguments) throws {
        let parsed = line.parsed
        let formats = try formats(parsed.value("formats"))
        let (ecc, size) = try CodeCommand.qrOptions(parsed)
        arguments.append("dir", parsed.positionals.first)
        arguments.append("host", parsed.value("host"))
        arguments.append("clip", parsed.value("clip"))
        arguments.append("formats", formats.map(\.rawValue).joined(separator: ","))
        arguments.append("ecc", ecc.letter)
        arguments.append("size", size.text)
    }

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) throws {
        let json = output.json
        func strings(_ key: String) -> [String] { json[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        func count(_ key: String) -> Int64 { if case .integer(let n)? = json[key] { n } else { 0 } }
        let target = json["directory"]?.stringValue ?? ""
        let formats = (try? formats(parsed.value("formats"))) ?? PrintBundle.formats
        let added = strings("added")
        printer.line("exported \(count("codes")) code(s) in \(formats.map(\.rawValue).joined(separator: ", ")) to \(target)")
        printer.line("  index:  \(target)/\(StaticSite.indexName) (sha256 \(json["indexSHA256"]?.stringValue ?? ""))")
        if formats.contains(.svg) { printer.line("  vendor: \(target)/\(PrintBundle.csvName)") }
        for path in added.prefix(listedAtMost) { printer.line("  added:   \(path)") }
        if added.count > listedAtMost { printer.line("  … and \(added.count - listedAtMost) more added") }
        for path in strings("changed").prefix(listedAtMost) { printer.line("  changed: \(path)") }
        for path in strings("removed").prefix(listedAtMost) { printer.line("  removed: \(path)") }
        printer.line("  \(count("unchanged")) file(s) unchanged")
        let notes = strings("notes")
        for note in notes.prefix(listedAtMost) { printer.err("note: \(note)\n") }
        if notes.count > listedAtMost { printer.err("note: … and \(notes.count - listedAtMost) more\n") }
    }

    public static let binding = Binding(
        Self.self, "", "",
        command: CommandSpec(
            "export", summary: "write a code per active experience and format, an index and the print vendor's CSV",
            discussion: """
                Writes DIR/svg/<name>.svg, DIR/png/<name>.png, DIR/ndef/<name>.ndef per active experience whose host is \
                associated with its clip, DIR/codes.csv ("SVG File Name,URL", at most 10000 codes) and DIR/index.json \
                (each file's URL, format, bytes, SHA-256, QR version and level, NTAG). The same data gives the same bytes, \
                and an export that changes nothing leaves DIR alone. DIR is replaced as a whole in one rename; an existing \
                DIR must be empty or an earlier export, and must not hold the database.
                """,
            positionals: [PositionalSpec("DIR", help: "the directory to write")],
            options: [
                .option("host", value: "HOST", help: "only experiences on this host"),
                .option("clip", value: "CLIP", help: "only this clip's experiences"),
                .option("formats", value: "LIST", help: "comma-separated: svg, png, ndef (default all three)"),
                .option("ecc", value: "L|M|Q|H", help: "QR error correction level (default M)"),
                .option("size", value: "N|Nmm", help: "pixels a module (default 8), or the printed width such as 30mm"),
            ],
            examples: [
                Example(
                    "clipctl codes export print --host bikesrental.example --formats svg,png",
                    "Write the QR codes of a host's experiences and the print vendor's CSV to ./print")
            ]),
        under: ["codes"], servesRoute: false, commandInput: arguments, standardErrorUnderJSON: true,
        serverCall: ServerCall(refusal: { _ in
            "codes export reads the database itself; over HTTP, GET /v1/codes/export answers the same files as a .zip"
        }),
        present: present)
}
