public import ClipCore
import Dispatch
import Foundation
import Locking
import SQLiteDB
import StrictJSON

/// Import and export (docs/rules.md#import-and-export): NDJSON or CSV, one experience per line; an import is one
/// transaction: all lines land or none, and every bad line is reported with its number.
extension Registry {
    public typealias ImportReport = ClipCore.ImportReport

    /// Imports `text` (already in memory: an HTTP body, a test).
    public func importExperiences(_ text: String, format: Interchange.Format, progress: (Int) -> Void = { _ in }) throws(RegistryError)
        -> ImportReport
    {
        try importExperiences(Array(text.utf8), format: format, progress: progress)
    }

    public func importExperiences(_ bytes: [UInt8], format: Interchange.Format, progress: (Int) -> Void = { _ in }) throws(RegistryError)
        -> ImportReport
    {
        var offset = 0
        return try importExperiences(
            format: format,
            chunks: {
                guard offset < bytes.count else { return nil }
                let end = min(bytes.count, offset + Self.importChunkBytes)
                defer { offset = end }
                return bytes[offset..<end]
            }, progress: progress)
    }

    /// Bytes read at a time, and lines decoded (in parallel) then written at a time: memory stays
    /// bounded by these, not by the file.
    public static let importChunkBytes = 1 << 20
    /// Warnings are advice: a file where every line has one keeps only the first lines' in memory.
    public static let listedWarningLines = 1_000
    /// A file whose lines keep failing is refused once this many have errors, not read to its end
    /// (docs/guide.md#import-and-export): the refusal, its memory and its answer stay bounded.
    public static let refusedErrorLines = 1_000
    static let importBatchLines = 8_192
    /// Bytes handed to the reader at a time: at most this many lines join the pending batch at once.
    static let importFeedBytes = 16 * 1024

    /// Imports the bytes `chunks` gives, one chunk per call until nil, in one transaction: lines
    /// are decoded and inserted batch by batch as they are read, and unless every line is good
    /// the transaction rolls back. `progress(lines)` is called after each batch.
    ///
    /// Parsing and decoding (pure work) run on other threads while this one writes the previous
    /// batch: they were a fifth of the import's time on the writing thread (perf, 100k lines:
    /// JSON parsing 6.5%, `ExperienceJSON.decode` 15% of samples), and SQLite's inserts, the rest,
    /// can only run on the connection's thread.
    /// `sheet`: how a CSV sheet's columns are named and what its rows lack (docs/sheets.md#import-a-sheet).
    public func importExperiences(
        format: Interchange.Format, sheet: SheetOptions = SheetOptions(), chunks: () throws -> ArraySlice<UInt8>?,
        progress: (Int) -> Void = { _ in }
    ) throws(RegistryError) -> ImportReport {
        // One transaction for the whole file: its pages stay in the page cache (up to 256 MiB)
        // instead of spilling to the WAL before the commit (pragma cache_size). Only for the
        // import: a server's pooled connection must not keep that much afterwards.
        let previousCacheSize = (try? db.query("PRAGMA cache_size").first?.int("cache_size")) ?? -2000
        _ = try? db.execute("PRAGMA cache_size = -262144")
        defer { _ = try? db.execute("PRAGMA cache_size = \(previousCacheSize)") }
        return try write {
            let at = timestamp()
            timestampOfImport = at
            defer { timestampOfImport = nil }
            // The id the next line's experience gets if every line is good (AUTOINCREMENT: one more
            // than the largest id the table has had, https://sqlite.org/autoinc.html), for the
            // change records written ahead (PreparedChangeRecord).
            var run = ImportRun(registry: self, at: at, nextID: try nextExperienceID())
            var reader = Interchange.Reader(format: format, defersParsing: true, sheet: sheet)
            while let chunk = try chunks() {
                // Fed a piece at a time, so that a batch holds about `importBatchLines` lines however short
                // they are (a chunk of two-byte lines is half a million of them, each with its error).
                var start = chunk.startIndex
                while start < chunk.endIndex {
                    let end = min(chunk.endIndex, start + Registry.importFeedBytes)
                    try run.take(reader.feed(chunk[start..<end]), progress)
                    if run.errors.count >= Registry.refusedErrorLines { throw run.refusal(stopped: true) }
                    start = end
                }
            }
            try run.take(reader.finish(), progress)
            if run.pendingCount > 0 || !run.pending.errors.isEmpty { try run.handOver(progress) }
            if let last = run.inFlight { try run.write(last, progress) }
            guard run.errors.isEmpty else { throw run.refusal(stopped: false) }
            return ImportReport(
                imported: run.imported, notes: run.notes, warnings: run.warnings, warningLinesNotListed: run.warningLinesNotListed)
        }
    }

    /// One import inside its transaction: the lines read and not yet handed over, the batch being
    /// prepared on other threads, and what the lines written so far gave (rows, refusals, warnings,
    /// notes, and the clips, associations and images they brought).
    struct ImportRun {
        let registry: Registry
        let at: String
        var nextID: Int64
        var errors: [Interchange.LineError] = []
        var warnings: [Interchange.LineError] = []
        var warningLinesNotListed = 0
        var notes: [WriteNote] = []
        var firstLineOfURL: [String: Int] = [:]
        // Clips and associations that earlier lines created or found.
        var ensured: Set<String> = []
        // "TEAM sha256" of the images the file's lines carry, by the team of their line.
        var carriedImages: Set<String> = []
        var imported = 0, seen = 0
        // Lines prepared for insertion, inserted `importChunkRows` at a time (Registry+ImportChunk.swift).
        var chunk: [PreparedExperience] = []
        var pending = Interchange.Batch()
        var pendingCount = 0
        // The batch being parsed and decoded while the previous one is written.
        var inFlight: PreparingBatch?

        init(registry: Registry, at: String, nextID: Int64) {
            self.registry = registry
            self.at = at
            self.nextID = nextID
        }

        /// The import refused for its lines' errors, the first `refusedErrorLines` of them, then a last
        /// entry saying what was not listed: the rest of the file when it was not read to its end
        /// (`stopped`), or how many more lines have errors.
        func refusal(stopped: Bool) -> RegistryError {
            let sorted = errors.sorted { $0.line < $1.line }
            guard stopped || sorted.count > Registry.refusedErrorLines else { return .invalidImport(sorted) }
            let listed = Array(sorted.prefix(Registry.refusedErrorLines))
            let more = sorted.count - listed.count
            let rest =
                stopped
                ? FieldError(
                    field: "file", rule: "import.stopped",
                    message:
                        "\(Registry.refusedErrorLines) or more lines have errors: the rest of the file was not read; fix these and import again"
                )
                : FieldError(field: "file", rule: "import.moreErrors", message: "\(more) more lines have errors, not listed")
            return .invalidImport(listed + [.init(line: listed.last?.line ?? 0, errors: [rest])])
        }

        /// Adds the lines the reader gave to the pending ones; hands them over once they make a batch.
        mutating func take(_ batch: Interchange.Batch, _ progress: (Int) -> Void) throws {
            pending.errors += batch.errors
            pending.lines += batch.lines
            pending.unparsed += batch.unparsed
            pendingCount += batch.lines.count + batch.unparsed.count
            if pendingCount >= Registry.importBatchLines { try handOver(progress) }
        }

        /// Starts preparing the pending lines, then writes the batch prepared before them.
        mutating func handOver(_ progress: (Int) -> Void) throws {
            let next = PreparingBatch(pending, count: pendingCount, firstID: nextID, at: at)
            nextID += Int64(pendingCount)
            pending = Interchange.Batch()
            pendingCount = 0
            if let previous = inFlight { try write(previous, progress) }
            inFlight = next
        }

        /// Writes a prepared batch, then frees it on another thread: freeing its experiences on
        /// this one was 6% of its perf samples (100k-line import; allocated by the preparing
        /// threads, they are theirs to free). This thread's copy ends with the statement that
        /// writes it, so the batch's last reference is the one `discard` drops.
        mutating func write(_ batch: PreparingBatch, _ progress: (Int) -> Void) throws {
            try writeBatch(batch.wait(), progress)
            DispatchQueue.global().async { batch.discard() }
        }

        /// A batch's refusals, its header images, then its lines in order; `progress` is told the lines read so far.
        mutating func writeBatch(_ batch: PreparedBatch, _ progress: (Int) -> Void) throws {
            errors += batch.errors
            // The batch's header images first, so a line may name an image a later line of its
            // team carries (checkImage: bringing the bytes is what lets a team use an image).
            for line in batch.lines {
                guard let image = line.image else { continue }
                do { try registry.storeImage(image) } catch {
                    errors.append(.init(line: line.line, errors: try Registry.lineErrors(error)))
                }
                if let team = line.imageTeam { carriedImages.insert("\(team.rawValue) \(image.sha256)") }
            }
            for line in batch.lines {
                guard let experience = accepted(line) else { continue }
                try prepare(experience, line: line)
            }
            try flush()
            seen += batch.count
            progress(seen)
        }

        /// The line's experience, its warnings noted; nil, with the line's errors noted, when it was
        /// refused or its URL is already on an earlier line.
        mutating func accepted(_ line: PreparedLine) -> AdvancedExperience? {
            let experience: AdvancedExperience
            do {
                let (e, lineWarnings) = try line.decoded.get()
                experience = e
                if !lineWarnings.isEmpty {
                    if warnings.count < Registry.listedWarningLines {
                        warnings.append(.init(line: line.line, errors: lineWarnings))
                    } else {
                        warningLinesNotListed += 1
                    }
                }
            } catch {
                errors.append(.init(line: line.line, errors: error.errors))
                return nil
            }
            if let first = firstLineOfURL[experience.url.canonical] {
                errors.append(
                    .init(
                        line: line.line,
                        errors: [
                            FieldError(field: "url", rule: "duplicate", message: "\(experience.url.canonical) is already on line \(first)")
                        ]))
                return nil
            }
            firstLineOfURL[experience.url.canonical] = line.line
            return experience
        }

        /// Creates or finds the line's clip and association, and queues its row for the next chunk.
        /// No savepoint per line: once a line fails the whole import rolls back, so what a failed
        /// line left half done only lets the remaining lines be checked as well.
        mutating func prepare(_ experience: AdvancedExperience, line: PreparedLine) throws {
            do {
                let clipKey = experience.clip.rawValue, domainKey = clipKey + " " + experience.url.host
                // What prepareInsert may create is created after every earlier line's row, as
                // when each line was inserted whole in turn (the change records keep that order).
                if !ensured.contains(clipKey) || !ensured.contains(domainKey) { try flush() }
                let carried =
                    experience.headerImage.map { carriedImages.contains("\(experience.clip.team.rawValue) \($0)") } ?? false
                let (clip, lineNotes) = try registry.prepareInsert(experience, ensured: ensured, imageCarried: carried)
                // Known from here on, even if the row itself is then refused: its clip and
                // association exist, so the next line's prepareInsert would only find them.
                ensured.insert(clipKey)
                ensured.insert(domainKey)
                chunk.append(
                    PreparedExperience(
                        line: line.line, draft: experience, clip: clip, notes: lineNotes, changeRecord: line.changeRecord))
                if chunk.count == Registry.importChunkRows { try flush() }
            } catch {
                errors.append(.init(line: line.line, errors: try Registry.lineErrors(error)))
            }
        }

        /// Inserts the prepared lines: a full chunk at once, unless a row of it is refused, then
        /// (and for a partial chunk) line by line.
        mutating func flush() throws {
            defer { chunk.removeAll(keepingCapacity: true) }
            if chunk.count == Registry.importChunkRows, try registry.insertChunk(chunk) != nil {
                for row in chunk { notes += row.notes }
                imported += chunk.count
                return
            }
            for row in chunk {
                do {
                    _ = try registry.insertPrepared(row.draft, clip: row.clip)
                    notes += row.notes
                    imported += 1
                } catch {
                    errors.append(.init(line: row.line, errors: try Registry.lineErrors(error)))
                }
            }
        }
    }

    /// A batch of lines parsed and decoded: the lines that are JSON objects, each with its decoded
    /// experience or refusal, and the lines that could not be read.
    struct PreparedBatch: Sendable {
        var lines: [PreparedLine] = []
        var errors: [Interchange.LineError] = []
        /// Lines read (good or not), for progress.
        var count = 0

        init() {}

        /// Parses the unparsed lines and decodes every line, on every core but the writer's (pure
        /// work, no I/O); results in line order. The `n`th line read (from 0) would be stored with
        /// id `firstID + n` at time `at` if every line were good: its change record is written for
        /// that (`PreparedLine.changeRecord`).
        init(_ batch: Interchange.Batch, count: Int, firstID: Int64, at: String) {
            self.count = count
            errors = batch.errors
            let workers = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
            let chunkCount = batch.unparsed.count + batch.lines.count < 2_000 ? 1 : workers
            // Each worker parses a slice of the unparsed lines and decodes it; the parsed lines
            // (CSV: already parsed by the reader) are decoded by the first.
            let size = (batch.unparsed.count + chunkCount - 1) / chunkCount
            let results = Locked([[Chunk]](repeating: [], count: chunkCount))
            DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
                var out: [Chunk] = []
                // The position of the chunk's first line among the batch's lines read.
                let first = chunk == 0 ? 0 : batch.lines.count + chunk * size
                if chunk == 0 {
                    for line in batch.lines { out.append(.line(PreparedLine(line, id: firstID + Int64(out.count), at: at))) }
                }
                for i in (chunk * size)..<min(batch.unparsed.count, (chunk + 1) * size) {
                    let id = firstID + Int64(first + out.count)
                    switch batch.unparsed[i].parse() {
                    case .success(let line): out.append(.line(PreparedLine(line, id: id, at: at)))
                    case .failure(let error): out.append(.error(error))
                    }
                }
                results.withLock { $0[chunk] = out }
            }
            let all = results.withLock { $0.flatMap { $0 } }
            lines.reserveCapacity(all.count)
            for item in all {
                switch item {
                case .line(let line): lines.append(line)
                case .error(let error): errors.append(error)
                }
            }
        }

        enum Chunk: Sendable {
            case line(PreparedLine)
            case error(Interchange.LineError)
        }
    }

    /// A line decoded, with what the writer needs of it, and without its JSON tree: the tree is
    /// freed on the preparing thread (perf, 100k-line import: freeing each batch's trees on the
    /// writing thread was 6% of its samples).
    struct PreparedLine: Sendable {
        var line: Int
        /// The header image the line carries, and the team of its clip (nil unless a valid clip).
        var image: HeaderImage?
        var imageTeam: TeamID?
        var decoded: Result<(AdvancedExperience, [FieldError]), ValidationFailure>
        /// The change record of the experience as it would be stored with a predicted id.
        var changeRecord: PreparedChangeRecord?

        init(_ line: Interchange.Line, id: Int64, at: String) {
            self.line = line.line
            image = line.image
            imageTeam = line.image == nil ? nil : line.object["clip"]?.stringValue.flatMap { try? AppID($0) }?.team
            decoded = Result { () throws(ValidationFailure) in try ExperienceJSON.decode(line.object, zones: SystemTimeZones.lookup) }
            if case .success(let (experience, _)) = decoded {
                changeRecord = PreparedChangeRecord(experience, id: id, at: at)
            }
        }
    }

    /// A batch being prepared on another thread (`PreparedBatch`), waited for with `wait()`.
    final class PreparingBatch: Sendable {
        private let result = Locked<PreparedBatch?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ batch: Interchange.Batch, count: Int, firstID: Int64, at: String) {
            DispatchQueue.global().async { [self] in
                let prepared = PreparedBatch(batch, count: count, firstID: firstID, at: at)
                result.withLock { $0 = prepared }
                done.signal()
            }
        }

        func wait() -> PreparedBatch {
            done.wait()
            return result.withLock { $0 ?? PreparedBatch() }
        }

        /// Lets go of the prepared batch (once waited for).
        func discard() { result.withLock { $0 = nil } }
    }

    /// What a line's own content was refused for. Anything else (the database interrupted, busy, read-only, failing,
    /// or any SQLite error) is no fault of the line: it is rethrown and ends the whole import, which rolls back.
    static func lineErrors(_ error: any Error) throws -> [FieldError] {
        switch error {
        case let failure as ValidationFailure: return failure.errors
        case RegistryError.invalid(let errors): return errors
        case RegistryError.conflict(let message, _?):
            return [FieldError(field: "url", rule: "duplicate", message: message)]
        case RegistryError.conflict(let message, nil): return [FieldError(field: "clip", rule: "conflict", message: message)]
        // An import may come from a team token: the line says the host is taken, not by whom.
        case RegistryError.hostRefused(let refusal):
            return [FieldError(field: "url", rule: HostOwnership.Refusal.rule, message: refusal.teamMessage)]
        case RegistryError.notFound, RegistryError.unprocessable:
            return [FieldError(field: "(line)", rule: "invalid", message: "\(error)")]
        default: throw error
        }
    }

    /// Writes every experience (not removed), ordered by URL, as lines of `format` to `emit`.
    /// The output has no ids or timestamps, so that an import of it exports the same bytes.
    /// With `spreadsheetSafe` (CSV only), cells a spreadsheet would run as formulas are defused.
    public func export(
        format: Interchange.Format, spreadsheetSafe: Bool = false, filter: ListFilter = ListFilter(), emit: (String) throws -> Void
    ) throws(RegistryError) {
        let labelKeys = format == .csv ? try self.labelKeys(filter) : []
        if format == .csv { do { try emit(Interchange.csvHeader(labelKeys: labelKeys)) } catch { throw RegistryError.storage("\(error)") } }
        // Each header image travels with the first line of each team that names it
        // (Interchange.carryingImage): a team may use an image only when it brings its bytes.
        var carried: Set<String> = []
        try forEachExperience(filter) { e in
            var imageData: [UInt8]?
            if let sha = e.headerImage, carried.insert("\(e.clip.team.rawValue) \(sha)").inserted { imageData = try headerImage(sha).bytes }
            try emit(
                format == .csv
                    ? Interchange.csv(e, imageData: imageData, labelKeys: labelKeys, spreadsheetSafe: spreadsheetSafe)
                    : Interchange.ndjson(e, imageData: imageData))
        }
    }
}
