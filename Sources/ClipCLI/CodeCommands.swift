import ArgParse
import ClipCodes
import ClipCore
import ClipStore
import ClipWire
import FileFormats
import Foundation
import QRCode
import StrictJSON

/// `code` (one QR code or NFC tag) and `codes export` (a print bundle).
extension Context {
    func code() throws {
        let reference = parsed.positional(0)!
        let formatText = parsed.value("format") ?? "svg"
        guard let format = CodeFormat(rawValue: formatText.lowercased()) else {
            throw CommandFailure.usage("--format is svg, png, ndef or ndef-hex (got \(formatText))")
        }
        if !format.isQRCode, parsed.value("ecc") != nil || parsed.value("size") != nil {
            throw CommandFailure.usage("--\(CodeFormat.qrOptionsRule) (got --format \(format.rawValue))")
        }
        let (ecc, size) = try codeOptions()
        let output = parsed.value("output")
        if format.isBinary && output == nil {
            // Bytes are never written to standard output: a terminal would show garbage, and a pipe is what -o FILE is for.
            throw CommandFailure.usage("--format \(format.rawValue) writes bytes, not text: give -o FILE")
        }
        let answer = try backend().code(reference, format: format, ecc: ecc, size: size)
        let facts: String
        if let version = answer.qrVersion {
            let modules = QRCode.size(version: version)
            facts = "QR code version \(version), error correction \(answer.errorCorrection ?? ecc.letter), \(modules)×\(modules) modules"
        } else {
            let tag = answer.ntag.map { "the smallest NTAG that holds it: \($0)" } ?? "no NTAG21x holds it"
            facts = "NDEF message of \((format == .ndefHex ? answer.bytes.count / 2 : answer.bytes.count)) bytes; \(tag)"
        }
        // With --json, one object either way: the file written, or the text itself (an SVG or NDEF hex).
        func described(_ place: (key: String, value: JSONValue)) -> JSONValue {
            let facts: [(key: String, value: JSONValue?)] = [
                ("format", .string(format.rawValue)), ("bytes", .integer(Int64(answer.bytes.count))),
                ("sha256", .string(SHA256.hexDigest(answer.bytes))), ("qrVersion", answer.qrVersion.map { .integer(Int64($0)) }),
                ("ecc", answer.errorCorrection.map(JSONValue.string)), ("ntag", answer.ntag.map(JSONValue.string)),
            ]
            return .object([place] + facts.compactMap { key, value in value.map { (key: key, value: $0) } })
        }
        if let output {
            do { try DurableFiles.replaceWhole(output, with: answer.bytes) } catch {
                throw CommandFailure(code: ExitCode.failure, message: "\(error)")
            }
            if json { printJSON(described((key: "file", value: .string(output)))) } else { io.err("wrote \(output): \(facts)\n") }
            return
        }
        let text = String(decoding: answer.bytes, as: UTF8.self)
        if json {
            printJSON(described((key: "text", value: .string(text))))
            return
        }
        io.out(text)
        io.err("\(facts)\n")
    }

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
