import ClipCore
import Dispatch
import Foundation
import SQLiteDB
import StrictJSON

/// Import and export (design §4.1): NDJSON or CSV, one experience per line; an import is one
/// transaction: all lines land or none, and every bad line is reported with its number.
extension Registry {
    public struct ImportReport: Sendable {
        public let imported: Int
        public let notes: [String]
        public let warnings: [Interchange.LineError]
    }

    /// Imports `text`. `progress(done, total)` is called as lines are written.
    public func importExperiences(_ text: String, format: Interchange.Format, progress: (Int, Int) -> Void = { _, _ in }) throws(RegistryError) -> ImportReport {
        let (lines, parseErrors) = Interchange.lines(text, format: format)
        var lineErrors = parseErrors
        var warnings: [Interchange.LineError] = []
        var drafts: [(line: Int, experience: AdvancedExperience)] = []
        var firstLineOfURL: [String: Int] = [:]
        for (line, decoded) in zip(lines, Self.decodeInParallel(lines)) {
            do {
                let (experience, lineWarnings) = try decoded.get()
                if let first = firstLineOfURL[experience.url.canonical] {
                    lineErrors.append(.init(line: line.line, errors: [FieldError(field: "url", rule: "duplicate", message: "\(experience.url.canonical) is already on line \(first)")]))
                    continue
                }
                firstLineOfURL[experience.url.canonical] = line.line
                if !lineWarnings.isEmpty { warnings.append(.init(line: line.line, errors: lineWarnings)) }
                drafts.append((line.line, experience))
            } catch {
                lineErrors.append(.init(line: line.line, errors: error.errors))
            }
        }
        if drafts.isEmpty && lineErrors.isEmpty {
            throw RegistryError.invalidImport([.init(line: 1, errors: [FieldError(field: "(file)", rule: "empty", message: "holds no experience")])])
        }
        let valid = drafts
        let known = lineErrors
        // One transaction for the whole file: its pages stay in the page cache (up to 256 MiB)
        // instead of spilling to the WAL before the commit (pragma cache_size). Only for the
        // import: a server's pooled connection must not keep that much afterwards.
        let previousCacheSize = (try? db.query("PRAGMA cache_size").first?.int("cache_size")) ?? -2000
        try? db.execute("PRAGMA cache_size = -262144")
        defer { try? db.execute("PRAGMA cache_size = \(previousCacheSize)") }
        return try write {
            var errors = known
            var notes: [String] = []
            // Clips and associations that earlier lines created or found.
            var ensured: Set<String> = []
            for (index, draft) in valid.enumerated() {
                // No savepoint per line: once a line fails the whole import rolls back, so what a
                // failed line left half done only lets the remaining lines be checked as well.
                do {
                    let (saved, lineNotes) = try insert(draft.experience, ensured: ensured)
                    ensured.insert(saved.clip.rawValue)
                    ensured.insert(saved.clip.rawValue + " " + saved.url.host)
                    notes += lineNotes
                } catch {
                    errors.append(.init(line: draft.line, errors: Self.lineErrors(error)))
                }
                if (index + 1) % 1000 == 0 || index + 1 == valid.count { progress(index + 1, valid.count) }
            }
            guard errors.isEmpty else { throw RegistryError.invalidImport(errors.sorted { $0.line < $1.line }) }
            try checkGeneratedApplinks(hosts: Set(valid.map(\.experience.url.host)))
            return ImportReport(imported: valid.count, notes: notes, warnings: warnings)
        }
    }

    /// Decodes and validates the lines on every core (pure work, no I/O); results in line order.
    static func decodeInParallel(_ lines: [Interchange.Line]) -> [Result<(AdvancedExperience, [FieldError]), ValidationFailure>] {
        let chunks = lines.count < 2_000 ? 1 : ProcessInfo.processInfo.activeProcessorCount
        let size = (lines.count + chunks - 1) / max(chunks, 1)
        let decoded = DecodedChunks(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = (chunk * size)..<min(lines.count, (chunk + 1) * size)
            decoded.set(chunk, range.map { i in Result { () throws(ValidationFailure) in try ExperienceJSON.decode(lines[i].object) } })
        }
        return decoded.joined()
    }

    /// The chunks' results, each stored once by its own worker.
    final class DecodedChunks: @unchecked Sendable {
        typealias Decoded = Result<(AdvancedExperience, [FieldError]), ValidationFailure>
        private let lock = NSLock()
        private var chunks: [[Decoded]]
        init(count: Int) { chunks = Array(repeating: [], count: count) }
        func set(_ chunk: Int, _ results: [Decoded]) { lock.withLock { chunks[chunk] = results } }
        func joined() -> [Decoded] { lock.withLock { chunks.flatMap { $0 } } }
    }

    static func lineErrors(_ error: any Error) -> [FieldError] {
        switch error {
        case let failure as ValidationFailure: failure.errors
        case RegistryError.invalid(let errors): errors
        case RegistryError.conflict(let message, let existing?): [FieldError(field: "url", rule: "duplicate", message: message + " (experience \(existing))")]
        case RegistryError.conflict(let message, nil): [FieldError(field: "clip", rule: "conflict", message: message)]
        // An import may come from a team token: the line says the host is taken, not by whom.
        case RegistryError.hostRefused(let refusal): [FieldError(field: "url", rule: HostOwnership.Refusal.rule, message: refusal.teamMessage)]
        case let registry as RegistryError: [FieldError(field: "(line)", rule: "invalid", message: registry.description)]
        default: [FieldError(field: "(line)", rule: "invalid", message: "\(error)")]
        }
    }

    /// Writes every experience (not removed), ordered by URL, as lines of `format` to `emit`.
    /// The output has no ids or timestamps, so that an import of it exports the same bytes.
    public func export(format: Interchange.Format, filter: ListFilter = ListFilter(), emit: (String) throws -> Void) throws(RegistryError) {
        if format == .csv { do { try emit(Interchange.csvHeader) } catch { throw RegistryError.storage("\(error)") } }
        try forEachExperience(filter) { e in
            try emit(format == .csv ? Interchange.csv(e) : Interchange.ndjson(e))
        }
    }
}
