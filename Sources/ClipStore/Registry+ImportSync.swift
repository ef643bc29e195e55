public import ClipCore
import SQLiteDB
public import StrictJSON

/// Imports that keep the registry in step with a sheet (docs/sheets.md#keep-the-registry-in-step-with-a-sheet):
/// `update` changes the experiences the rows name by URL, `sync` also creates the new ones and lists (or removes)
/// the experiences of its scope that the sheet no longer has. One transaction, all or nothing; a dry run does the
/// whole work and rolls it back, so its outcomes are exactly those the real run would have.
extension Registry {
    /// What a sync looks at besides the rows.
    public struct SyncScope: Sendable {
        /// The experiences a sync may find missing; when it names no host, clip or label, the hosts the sheet's
        /// rows are on. Its team (a team token's) also limits the clips the rows may name.
        public var filter: ListFilter
        /// Remove the scope's experiences the sheet does not have, rather than list them.
        public var removeMissing: Bool

        public init(filter: ListFilter = ListFilter(), removeMissing: Bool = false) {
            self.filter = filter
            self.removeMissing = removeMissing
        }
    }

    /// A run of `mode` over the rows `chunks` gives. Refused, with every bad line, unless every row is good; a dry
    /// run answers the same outcomes, errors among them, and writes nothing. (A create that is not a dry run is
    /// `importExperiences(format:sheet:chunks:)`, which writes a whole file faster.)
    public func importExperiences(
        mode: ImportMode, dryRun: Bool, format: Interchange.Format, sheet: SheetOptions = SheetOptions(), scope: SyncScope = SyncScope(),
        chunks: () throws -> ArraySlice<UInt8>?
    ) throws(RegistryError) -> SyncReport {
        var sheet = sheet
        // The sheet is the truth for the columns it has: an empty cell clears what can be cleared.
        sheet.emptyCellsClear = mode != .create
        var rolledBack: SyncReport?
        // The run reads every row's experience and writes in one transaction: a page cache as large as a create
        // import's keeps those pages in memory (Registry+Interchange.swift).
        let previousCacheSize = (try? db.query("PRAGMA cache_size").first?.int("cache_size")) ?? -2000
        _ = try? db.execute("PRAGMA cache_size = -262144")
        defer { _ = try? db.execute("PRAGMA cache_size = \(previousCacheSize)") }
        do {
            return try write {
                var run = SyncRun(registry: self, mode: mode, scope: scope)
                var reader = Interchange.Reader(format: format, sheet: sheet)
                while let chunk = try chunks() { try run.take(reader.feed(chunk)) }
                try run.take(reader.finish())
                try run.finishScope()
                let report = run.report(dryRun: dryRun)
                guard !dryRun else {
                    // The store's own checks at the commit (the AASA invariant) are part of what the run would do.
                    try closeTransaction()
                    rolledBack = report
                    throw RegistryError.storage("dry run")
                }
                guard run.errors.isEmpty else { throw run.refusal() }
                return report
            }
        } catch {
            if let rolledBack { return rolledBack }
            // A dry run that the store's checks refused reports them as the run's error.
            throw error
        }
    }

    /// One update or sync inside its transaction.
    struct SyncRun {
        let registry: Registry
        let mode: ImportMode
        let scope: SyncScope
        var outcomes: [SyncReport.Outcome] = []
        var unchanged = 0
        var notes: [WriteNote] = []
        var warnings: [Interchange.LineError] = []
        var errors: [Interchange.LineError] = []
        /// The URLs the sheet's rows name, and their hosts (the scope when it names none).
        var seen: Set<String> = []
        var hosts: Set<String> = []
        /// The clips (bundle IDs) the rows name or their registered experiences have.
        var clips: Set<String> = []

        mutating func take(_ batch: Interchange.Batch) throws {
            for error in batch.errors { fail(error, url: "") }
            for line in batch.lines { try row(line) }
        }

        mutating func fail(_ error: Interchange.LineError, url: String) {
            errors.append(error)
            outcomes.append(.init(line: error.line, url: url, id: nil, action: .error, details: error.errors.map(\.description)))
        }

        func lineError(_ line: Int, _ error: any Error) -> Interchange.LineError {
            Interchange.LineError(line: line, errors: Registry.fieldErrors(error))
        }

        mutating func row(_ line: Interchange.Line) throws {
            let urlText = line.object["url"]?.stringValue ?? ""
            guard let url = try? NormalizedURL(urlText, allowFragment: false) else {
                // The decode names what is wrong with the URL, as a create import does.
                return fail(lineError(line.line, registry.decodeForImport(line.object, base: nil)), url: urlText)
            }
            guard seen.insert(url.canonical).inserted else {
                return fail(
                    Interchange.LineError(
                        line: line.line,
                        errors: [FieldError(field: "url", rule: "duplicate", message: "is on an earlier line of the sheet")]),
                    url: url.canonical)
            }
            hosts.insert(url.host)
            if let team = scope.filter.team, let clip = line.object["clip"]?.stringValue, let id = try? AppID(clip), id.team != team {
                return fail(
                    Interchange.LineError(
                        line: line.line,
                        errors: [
                            FieldError(
                                field: "clip", rule: "forbidden", message: "is another team's clip (this token is team \(team.rawValue)'s)")
                        ]),
                    url: url.canonical)
            }
            let existing = try registry.loadExperience(url: url)
            if let clip = line.object["clip"]?.stringValue.flatMap({ try? AppID($0) }) {
                clips.insert(clip.bundleID.rawValue)
            } else if let existing {
                clips.insert(existing.clip.bundleID.rawValue)
            }
            if let existing, let team = scope.filter.team, existing.clip.team != team {
                return fail(
                    Interchange.LineError(
                        line: line.line, errors: [FieldError(field: "url", rule: "conflict", message: "is registered by another team")]),
                    url: url.canonical)
            }
            if let existing, mode == .create {
                return fail(
                    Interchange.LineError(
                        line: line.line,
                        errors: [
                            FieldError(
                                field: "url", rule: "conflict",
                                message: "\(url.canonical) is already registered as experience \(existing.id) (--mode sync updates it)")
                        ]),
                    url: url.canonical)
            }
            guard existing != nil || mode != .update else {
                return fail(
                    Interchange.LineError(
                        line: line.line,
                        errors: [
                            FieldError(
                                field: "url", rule: "notFound",
                                message: "is not registered: an update changes registered experiences only (--mode sync creates)")
                        ]),
                    url: url.canonical)
            }
            // A row that changes nothing is decided without a write (the second run of a sheet is all such rows).
            if let existing, line.image == nil,
                ExperienceJSON.leavesUnchanged(existing, with: line.object)
                    || (try? ExperienceJSON.decode(line.object, base: existing, zones: SystemTimeZones.lookup))?.experience == existing
            {
                unchanged += 1
                return
            }
            // Each row in a savepoint: a refused row leaves nothing, and the rows after it are still checked.
            try registry.db.execute("SAVEPOINT sync_row")
            do {
                let outcome = try apply(line, existing: existing)
                try registry.db.execute("RELEASE sync_row")
                if outcome.action == .update || outcome.action == .create { outcomes.append(outcome) } else { unchanged += 1 }
            } catch {
                try registry.db.execute("ROLLBACK TO sync_row")
                try registry.db.execute("RELEASE sync_row")
                guard Registry.isRowRefusal(error) else { throw error }
                fail(lineError(line.line, error), url: url.canonical)
            }
        }

        /// Writes one row: a new experience, or the change of a registered one.
        mutating func apply(_ line: Interchange.Line, existing: AdvancedExperience?) throws -> SyncReport.Outcome {
            var (draft, rowWarnings) = try registry.decode(line.object, base: existing)
            if let image = line.image {
                notes += try registry.ensureTeam(draft.clip.team)
                _ = try registry.grantImage(image, team: draft.clip.team)
                draft.headerImage = image.sha256
            }
            if !rowWarnings.isEmpty { warnings.append(Interchange.LineError(line: line.line, errors: rowWarnings)) }
            rowWarnings = []
            guard let before = existing else {
                let (saved, created) = try registry.insert(draft, imageCarried: line.image != nil)
                notes += created
                return .init(line: line.line, url: saved.url.canonical, id: saved.id, action: .create)
            }
            let (saved, implied) = try registry.applyUpdate(draft, over: before, imageCarried: line.image != nil)
            notes += implied
            guard let saved else { return .init(line: line.line, url: before.url.canonical, id: before.id, action: .unchanged) }
            let changed = SyncReport.changedMembers(ExperienceJSON.portable(before), ExperienceJSON.portable(saved))
            return .init(line: line.line, url: saved.url.canonical, id: saved.id, action: .update, details: changed)
        }

        /// The scope's experiences that no row named: listed, or removed.
        mutating func finishScope() throws {
            guard mode == .sync else { return }
            // The hosts the rows are on (or the one named) and the clips they name, narrowed by the clip and labels
            // named (docs/sheets.md): another clip's experiences on a shared host are never the sheet's to remove.
            let filter = scope.filter
            var missing: [(id: Int64, url: String)] = []
            try registry.forEachExperienceURL(filter) { id, url, host, clip in
                if !seen.contains(url) && (filter.host != nil || hosts.contains(host)) && clips.contains(clip) { missing.append((id, url)) }
            }
            for (id, url) in missing {
                if scope.removeMissing {
                    _ = try registry.remove(String(id))
                    outcomes.append(.init(line: nil, url: url, id: id, action: .remove))
                } else {
                    outcomes.append(.init(line: nil, url: url, id: id, action: .missing))
                }
            }
        }

        func report(dryRun: Bool) -> SyncReport {
            SyncReport(mode: mode, dryRun: dryRun, outcomes: outcomes, unchanged: unchanged, notes: notes, warnings: warnings)
        }

        func refusal() -> RegistryError {
            .invalidImport(errors.sorted { $0.line < $1.line })
        }
    }

    /// The change an update makes to `before` inside the caller's transaction, as `update` writes it: nil
    /// when it changes nothing (no version, no change record), with the notes of what it implied.
    func applyUpdate(_ updated: AdvancedExperience, over before: AdvancedExperience, imageCarried: Bool) throws -> (
        AdvancedExperience?, [WriteNote]
    ) {
        var notes: [WriteNote] = []
        if updated.clip != before.clip { notes += try ensureClip(updated.clip) }
        if updated.clip != before.clip || updated.url.host != before.url.host {
            notes += try ensureDomain(clip: updated.clip, host: updated.url.host)
        }
        try checkUnique(updated.url, except: before.id)
        try checkImage(updated.headerImage, team: updated.clip.team, carried: imageCarried)
        // A write that changes nothing makes no version and no change record (docs/rules.md#updates-and-versions).
        guard updated != before else { return (nil, notes) }
        if updated.status == .deactivated, before.status != .deactivated {
            notes.append(.deactivated(updated.clip, linkedToAppStoreConnect: try storedLink(updated.clip) != nil))
        }
        return (try save(updated, before: before, action: Self.changeAction(before, updated)), notes)
    }

    func decodeForImport(_ object: JSONValue, base: AdvancedExperience?) -> any Error {
        do {
            _ = try ExperienceJSON.decode(object, base: base, zones: SystemTimeZones.lookup)
            return ValidationFailure(field: "url", rule: "url", message: "is not an invocation URL")
        } catch { return error }
    }

    /// The field errors of a refused row.
    static func fieldErrors(_ error: any Error) -> [FieldError] {
        switch error {
        case let failure as ValidationFailure: return failure.errors
        case RegistryError.invalid(let errors): return errors
        case RegistryError.conflict(let message, _): return [FieldError(field: "url", rule: "conflict", message: message)]
        case RegistryError.notFound(let what): return [FieldError(field: "(line)", rule: "notFound", message: "not found: \(what)")]
        case RegistryError.hostRefused(let refusal):
            return [FieldError(field: "url", rule: HostOwnership.Refusal.rule, message: refusal.description)]
        default: return [FieldError(field: "(line)", rule: "invalid", message: "\(error)")]
        }
    }

    /// A refusal of the row alone (its input, a conflict), which the rows after it do not share.
    static func isRowRefusal(_ error: any Error) -> Bool {
        switch error {
        case is ValidationFailure: return true
        case let error as RegistryError:
            switch error {
            case .invalid, .conflict, .notFound, .hostRefused: return true
            default: return false
            }
        default: return false
        }
    }
}

/// Bulk changes by selector (docs/sheets.md#selectors): one patch over every experience a selector
/// matches, in one transaction.
extension Registry {
    /// The list filter of `selector` for a caller of `team` (nil: every team): its clip looked up, its host normalized.
    public func filter(_ selector: ExperienceSelector, team: TeamID?) throws(RegistryError) -> ListFilter {
        var filter = ListFilter(team: team, labels: selector.labels)
        filter.status = selector.status
        if let host = selector.host { filter.host = try Self.normalizeHost(host) }
        if let clip = selector.clip {
            let id = try clipID(clip)
            guard team == nil || id.team == team else { throw RegistryError.notFound("clip \(clip)") }
            filter.clip = id
        }
        return filter
    }

    /// Applies `patch` (an experience's partial JSON, as PATCH takes it) to every experience `filter`
    /// matches, with `image` stored once and used by them all. Refused, changing nothing, when `expect`
    /// is not the count matched or when the patch is refused for one of them; a dry run answers the
    /// same outcomes and writes nothing.
    public func update(
        matching filter: ListFilter, with patch: JSONValue, image: [UInt8]? = nil, expect: Int? = nil, dryRun: Bool = false
    ) throws(RegistryError) -> SyncReport {
        if patch["url"] != nil {
            throw RegistryError.invalid([
                FieldError(field: "url", rule: "selector.url", message: "cannot be given to many experiences at once: update one by id")
            ])
        }
        var header: HeaderImage?
        if let image {
            do { header = try HeaderImage(bytes: image) } catch { throw RegistryError.from(error) }
        }
        var patch = patch
        if let header, case .object(var members) = patch {
            members.removeAll { $0.key == ExperienceField.headerImage.name }
            members.append((key: ExperienceField.headerImage.name, value: .string(header.sha256)))
            patch = .object(members)
        }
        let changes = patch
        var rolledBack: SyncReport?
        do {
            return try write {
                let targets = try experiences(filter)
                if let expect, targets.count != expect { throw RegistryError.selectionMismatch(expected: expect, actual: targets.count) }
                var outcomes: [SyncReport.Outcome] = []
                var notes: [WriteNote] = []
                var warnings: [Interchange.LineError] = []
                var unchanged = 0
                for before in targets {
                    let draft: AdvancedExperience, advice: [FieldError]
                    do { (draft, advice) = try decode(changes, base: before) } catch let RegistryError.invalid(errors) {
                        // Which experience the change cannot be made to, since the change is the same for every one.
                        throw RegistryError.invalid(
                            errors.map {
                                FieldError(
                                    field: $0.field, rule: $0.rule,
                                    message: "\($0.message) (experience \(before.id), \(before.url.canonical); nothing was changed)")
                            })
                    }
                    if !advice.isEmpty { warnings.append(Interchange.LineError(line: 0, errors: advice)) }
                    if let header { _ = try grantImage(header, team: draft.clip.team) }
                    let (saved, implied) = try applyUpdate(draft, over: before, imageCarried: header != nil)
                    notes += implied.filter { !notes.contains($0) }
                    guard let saved else {
                        unchanged += 1
                        continue
                    }
                    let changed = SyncReport.changedMembers(ExperienceJSON.portable(before), ExperienceJSON.portable(saved))
                    outcomes.append(.init(line: nil, url: saved.url.canonical, id: saved.id, action: .update, details: changed))
                }
                let report = SyncReport(
                    mode: .update, dryRun: dryRun, outcomes: outcomes, unchanged: unchanged, notes: notes,
                    warnings: warnings.isEmpty ? [] : [warnings[0]])
                guard !dryRun else {
                    try closeTransaction()
                    rolledBack = report
                    throw RegistryError.storage("dry run")
                }
                return report
            }
        } catch {
            if let rolledBack { return rolledBack }
            throw error
        }
    }
}
