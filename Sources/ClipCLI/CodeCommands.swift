import ArgParse
import ClipCodes
import ClipCore
import ClipStore
import ClipWire
import FileFormats
import Foundation
import QRCode
import StrictJSON

/// `codes export` (a print bundle).
extension Context {
    /// `--ecc` and `--size`, checked.
    func codeOptions() throws -> (ErrorCorrectionLevel, CodeSize) {
        let eccText = parsed.value("ecc") ?? "M"
        guard let ecc = ErrorCorrectionLevel.parse(eccText) else { throw CommandFailure.usage("--ecc is L, M, Q or H (got \(eccText))") }
        var size = CodeSize.standard
        if let sizeText = parsed.value("size") {
            guard let parsedSize = CodeSize.parse(sizeText) else {
                throw CommandFailure.usage("--size is \(CodeSize.rule) (got \(sizeText))")
            }
            size = parsedSize
        }
        return (ecc, size)
    }

    /// `codes export DIR`: the print bundle (`PrintBundle`), with the safety of `publish`: DIR is absent, empty or an
    /// earlier export, is swapped in whole, and never holds the database.
    func codesExport() throws {
        if remoteServer != nil {
            throw CommandFailure.usage(
                "codes export reads the database itself; over HTTP, GET /v1/codes/export answers the same files as a .zip")
        }
        var formats = PrintBundle.formats
        if let list = parsed.value("formats") {
            formats = []
            for name in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let format = CodeFormat(rawValue: name.lowercased()), PrintBundle.formats.contains(format) else {
                    throw CommandFailure.usage("--formats is a comma-separated list of svg, png and ndef (got \(list))")
                }
                if !formats.contains(format) { formats.append(format) }
            }
        }
        let (ecc, size) = try codeOptions()
        let registry = try registry()
        var filter = Registry.ListFilter()
        if let host = parsed.value("host") { filter.host = try Registry.normalizeHost(host) }
        if let clip = parsed.value("clip") { filter.clip = try registry.clipID(clip) }
        let target: String
        do throws(PublishedDirectory.Failure) {
            target = try PublishedDirectory.resolve(parsed.positional(0)!)
            try PublishedDirectory.checkNotHoldingDatabase(target, database: databasePath, command: "codes export")
        } catch { throw Self.publishFailure(error) }
        let (targets, refusals) = try registry.codeTargets(filter)
        let files: [StaticSite.File]
        do { files = try PrintBundle.files(targets, formats: formats, ecc: ecc, size: size) } catch {
            throw CommandFailure(code: ExitCode.invalidInput, message: "nothing written: \(error)")
        }
        let changes: StaticSite.Changes
        do throws(PublishedDirectory.Failure) {
            changes = try PublishedDirectory.write(
                files, to: target, listedAtMost: Self.listedAtMost, marker: PrintBundle.marker, keepingUnchanged: true)
        } catch { throw Self.publishFailure(error) }
        let index = files.first { $0.path == StaticSite.indexName }!
        if json {
            printJSON(
                .object([
                    "directory": .string(target), "codes": .integer(Int64(targets.count)), "files": .integer(Int64(files.count)),
                    "indexSHA256": .string(SHA256.hexDigest(index.bytes)),
                    "added": .array(changes.added.map(JSONValue.string)), "changed": .array(changes.changed.map(JSONValue.string)),
                    "removed": .array(changes.removed.map(JSONValue.string)), "unchanged": .integer(Int64(changes.unchanged.count)),
                    "notes": .array(refusals.map(JSONValue.string)),
                ]))
        } else {
            print("exported \(targets.count) code(s) in \(formats.map(\.rawValue).joined(separator: ", ")) to \(target)")
            print("  index:  \(target)/\(StaticSite.indexName) (sha256 \(SHA256.hexDigest(index.bytes)))")
            if formats.contains(.svg) { print("  vendor: \(target)/\(PrintBundle.csvName)") }
            for path in changes.added.prefix(Self.listedAtMost) { print("  added:   \(path)") }
            if changes.added.count > Self.listedAtMost { print("  … and \(changes.added.count - Self.listedAtMost) more added") }
            for path in changes.changed.prefix(Self.listedAtMost) { print("  changed: \(path)") }
            for path in changes.removed.prefix(Self.listedAtMost) { print("  removed: \(path)") }
            print("  \(changes.unchanged.count) file(s) unchanged")
        }
        for note in refusals.prefix(Self.listedAtMost) { io.err("note: \(note)\n") }
        if refusals.count > Self.listedAtMost { io.err("note: … and \(refusals.count - Self.listedAtMost) more\n") }
    }
}
