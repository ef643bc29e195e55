import ArgParse
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// import, export (the other experience commands are operations: ClipApp/Features/Experiences.swift).
extension Context {
    func format(for path: String?) throws -> Interchange.Format {
        if let name = parsed.value("format") {
            guard let format = Interchange.Format(rawValue: name.lowercased()) else {
                throw CommandFailure.usage("--format is ndjson or csv, not \(name)")
            }
            return format
        }
        return path?.lowercased().hasSuffix(".csv") == true ? .csv : .ndjson
    }

    func importFile() throws {
        let path = parsed.positional(0)!
        let format = try format(for: path)
        // A file is read in chunks as the import goes (memory bounded by a chunk, not the file);
        // standard input is read whole.
        var chunks: () throws -> ArraySlice<UInt8>?
        var total = 0
        let read = Counter()
        if path == "-" {
            var input: [UInt8]? = io.readStandardInput()
            total = input?.count ?? 0
            chunks = {
                defer { input = nil };
                return input.map {
                    read.add($0.count); return $0[...]
                }
            }
        } else {
            let file: RegularFile
            do { file = try RegularFile(path, what: "import file") } catch { throw Self.unreadable(error) }
            total = file.size
            chunks = {
                let data = try file.read(upTo: Registry.importChunkBytes)
                read.add(data.count)
                return data.isEmpty ? nil : data[...]
            }
        }
        let showProgress = io.standardErrorIsTerminal && !json
        let io = self.io
        let report = try backend().importFile(format: format, chunks: chunks) { lines in
            if showProgress { io.err("\rimporting: \(lines) lines, \(total > 0 ? read.value * 100 / total : 100)%") }
        }
        if showProgress { io.err("\n") }
        if json { printJSON(ImportReportJSON.report(report)); return }
        let imported = report.imported
        warn(report.warnings.flatMap(\.fieldErrors))
        if report.warningLinesNotListed > 0 { io.err("warning: … and warnings on \(report.warningLinesNotListed) more lines\n") }
        print("imported \(imported) experience\(imported == 1 ? "" : "s") in one transaction")
        printNotes(report.notes)
    }

    func export() throws {
        let format = try format(for: nil)
        let safe = parsed.flag("spreadsheet-safe")
        if safe && format != .csv { throw CommandFailure.usage("--spreadsheet-safe applies to --format csv") }
        let backend = try backend()
        if let output = parsed.value("output") {
            // Written to a temporary file and renamed, so that a failed export leaves no half file.
            var text = ""
            try backend.export(format: format, spreadsheetSafe: safe) { text += $0 + "\n" }
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw CommandFailure(code: ExitCode.failure, message: "cannot write \(output): \(error.localizedDescription)")
            }
            return
        }
        try backend.export(format: format, spreadsheetSafe: safe) { io.out($0 + "\n") }
    }

    /// Bytes read so far, for the progress line.
    final class Counter {
        private(set) var value = 0
        func add(_ n: Int) { value += n }
    }
}
