import ClipCodes
import ClipCore
import DoctorAndPublish
import ClipStore
import FileFormats
import Foundation
import QRCode
public import ClipWire
import StrictJSON

/// `clipctl codes export DIR`: the print bundle (`PrintBundle`) written into a directory, with the safety
/// of `publish`: DIR is absent, empty or an earlier export, is swapped in whole, and never holds the
/// database. On the database only: over HTTP, `GET /v1/codes/export` (`CodesExport`) answers the same
/// files as one ZIP archive.
public enum CodesExportDirectory: Operation {
    public static let callers = CallerRule.admin

    public struct Input: DeclaredInput {
        var directory = ""
        var host: String?
        var clip: String?
        /// The formats, QR level and size as given; the command line checked them (`CommandSteps.check`).
        var formats: String?
        var ecc: String?
        var size: String?
        var labels: [String] = []
        var name: String?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .text("dir", \.directory, "DIR", help: "the directory to write", required: true, positional: true), .bundleHost(\.host),
            .bundleClip(\.clip), .labelSelector(\.labels), .bundleFormats(\.formats), .ecc(\.ecc), .bundleSize(\.size),
            .codeNames(\.name),
        ]
    }

    public typealias Output = CodesExported

    /// At most this many paths and notes are listed one per line; the rest are counted.
    static let listedAtMost = 20

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let registry = session.registry
        var filter = Registry.ListFilter()
        if let host = input.host { filter.host = try Registry.normalizeHost(host) }
        if let clip = input.clip { filter.clip = try registry.clipID(clip) }
        filter.labels = try LabelSelector.reading(input.labels)
        let naming = try CodeNameTemplate.reading(input.name)
        let target: String
        do throws(PublishedDirectory.Failure) {
            target = try PublishedDirectory.resolve(input.directory)
            try PublishedDirectory.checkNotHoldingDatabase(target, database: registry.path, command: "codes export")
        } catch { throw failure(error) }
        let (targets, refusals) = try registry.codeTargets(filter)
        let formats = (try? Self.formats(input.formats)) ?? PrintBundle.formats
        let ecc = input.ecc.flatMap { ErrorCorrectionLevel.parse($0) } ?? .medium
        let size = input.size.flatMap { CodeSize.parse($0) } ?? .standard
        let files: [StaticSite.File]
        do { files = try PrintBundle.files(targets, formats: formats, ecc: ecc, size: size, naming: naming) } catch {
            throw OperationError.invalid("nothing written: \(error)")
        }
        let changes: StaticSite.Changes
        do throws(PublishedDirectory.Failure) {
            changes = try PublishedDirectory.write(
                files, to: target, listedAtMost: listedAtMost, marker: PrintBundle.marker, keepingUnchanged: true)
        } catch { throw failure(error) }
        let index = files.first { $0.path == StaticSite.indexName }?.bytes ?? []
        return Output(
            directory: target, codes: Int64(targets.count), files: Int64(files.count), indexSHA256: SHA256.hexDigest(index),
            added: changes.added, changed: changes.changed, removed: changes.removed, unchanged: Int64(changes.unchanged.count),
            notes: refusals)
    }

    /// DIR that cannot be written is invalid input (exit 65); a write that fails, a failure (exit 1).
    static func failure(_ failure: PublishedDirectory.Failure) -> any Error {
        switch failure {
        case .target(let message):
            InvalidArguments("invalid input", [FieldError(field: "DIR", rule: "publish.target", message: message)])
        case .io(let message): OperationError.notWritten(message)
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

    /// The command line checked as clipctl always has (exit 64): the formats, the QR level and size.
    @Sendable static func check(_ words: CommandWords) throws {
        _ = try formats(words.value(CodeOption.formats))
        _ = try CodeCommand.qrOptions(words)
    }

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) throws {
        let target = output.directory
        let formats = (try? formats(words.value(CodeOption.formats))) ?? PrintBundle.formats
        printer.line("exported \(output.codes) code(s) in \(formats.map(\.rawValue).joined(separator: ", ")) to \(target)")
        printer.line("  index:  \(target)/\(StaticSite.indexName) (sha256 \(output.indexSHA256))")
        if formats.contains(.svg) { printer.line("  vendor: \(target)/\(PrintBundle.csvName)") }
        for path in output.added.prefix(listedAtMost) { printer.line("  added:   \(path)") }
        if output.added.count > listedAtMost { printer.line("  … and \(output.added.count - listedAtMost) more added") }
        for path in output.changed.prefix(listedAtMost) { printer.line("  changed: \(path)") }
        for path in output.removed.prefix(listedAtMost) { printer.line("  removed: \(path)") }
        printer.line("  \(output.unchanged) file(s) unchanged")
        for note in output.notes.prefix(listedAtMost) { printer.err("note: \(note)\n") }
        if output.notes.count > listedAtMost { printer.err("note: … and \(output.notes.count - listedAtMost) more\n") }
    }

    public static let binding = Binding(
        Self.self, Route("", "", served: false),
        command: Command(
            ["codes", "export"],
            CommandHelp(
                "write a code per active experience and format, an index and the print vendor's CSV",
                discussion: """
                    Writes DIR/svg/<name>.svg, DIR/png/<name>.png, DIR/ndef/<name>.ndef per active experience whose host is \
                    associated with its clip, DIR/codes.csv ("SVG File Name,URL", at most 10000 codes) and DIR/index.json \
                    (each file's URL, format, bytes, SHA-256, QR version and level, NTAG). The same data gives the same bytes, \
                    and an export that changes nothing leaves DIR alone. DIR is replaced as a whole in one rename; an existing \
                    DIR must be empty or an earlier export, and must not hold the database.
                    """,
                examples: [
                    CommandExample(
                        "clipctl codes export print --host bikesrental.example --formats svg,png",
                        "Write the QR codes of a host's experiences and the print vendor's CSV to ./print")
                ]),
            steps: CommandSteps(check: check, standardErrorUnderJSON: true),
            server: ServerCall(refusal: { _ in
                "codes export reads the database itself; over HTTP, GET /v1/codes/export answers the same files as a .zip"
            }),
            present: present))
}
