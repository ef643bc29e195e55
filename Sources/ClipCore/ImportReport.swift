public import StrictJSON

/// What an import wrote: the count, what it implied (notes), and the warnings of the first lines
/// that have any (the rest counted).
public struct ImportReport: Sendable, Equatable {
    public let imported: Int
    public let notes: [WriteNote]
    /// The warnings of the first lines that have any.
    public let warnings: [Interchange.LineError]
    /// Lines with warnings beyond those.
    public let warningLinesNotListed: Int

    public init(imported: Int, notes: [WriteNote], warnings: [Interchange.LineError], warningLinesNotListed: Int) {
        self.imported = imported
        self.notes = notes
        self.warnings = warnings
        self.warningLinesNotListed = warningLinesNotListed
    }
}

/// What an import does with the sheet's rows (docs/sheets.md#keep-the-registry-in-step-with-a-sheet).
public enum ImportMode: String, Sendable, CaseIterable {
    /// Every row is a new experience; a URL already registered is refused (the first import).
    case create
    /// Every row changes the experience registered at its URL; an unknown URL is refused.
    case update
    /// New URLs are created, known ones updated, and the scope's experiences the sheet no longer
    /// has are listed (or removed, when asked).
    case sync
}

/// What an update or sync import did, or would do in a dry run, row by row.
public struct SyncReport: Sendable, Equatable {
    public struct Outcome: Sendable, Equatable {
        public enum Action: String, Sendable { case create, update, unchanged, remove, missing, error }
        /// The sheet's line; nil for an experience the sheet does not have.
        public let line: Int?
        public let url: String
        /// The experience's id; nil for a row not created.
        public let id: Int64?
        public let action: Action
        /// The members an update changes (`subtitle`, `labels.city`); an error's messages.
        public let details: [String]

        public init(line: Int?, url: String, id: Int64?, action: Action, details: [String] = []) {
            self.line = line
            self.url = url
            self.id = id
            self.action = action
            self.details = details
        }
    }

    public let mode: ImportMode
    public let dryRun: Bool
    /// Every row that is not unchanged, and the experiences the sheet no longer has, in line order (an
    /// unchanged row is counted, not listed).
    public let outcomes: [Outcome]
    /// Rows that change nothing (not listed one by one).
    public let unchanged: Int
    public let notes: [WriteNote]
    public let warnings: [Interchange.LineError]

    public init(
        mode: ImportMode, dryRun: Bool, outcomes: [Outcome], unchanged: Int, notes: [WriteNote] = [],
        warnings: [Interchange.LineError] = []
    ) {
        self.mode = mode
        self.dryRun = dryRun
        self.outcomes = outcomes
        self.unchanged = unchanged
        self.notes = notes
        self.warnings = warnings
    }

    public func count(_ action: Outcome.Action) -> Int { outcomes.count { $0.action == action } }

    /// The members `after` changes of `before`, by name; a label by its key (`labels.city`), a
    /// translation by its language (`localizations.fr`).
    public static func changedMembers(_ before: JSONValue, _ after: JSONValue) -> [String] {
        let old = before.objectMembers ?? [], new = after.objectMembers ?? []
        var names = (old.map(\.key) + new.map(\.key)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        names.removeAll { name in old.first { $0.key == name }?.value == new.first { $0.key == name }?.value }
        return names.flatMap { name -> [String] in
            guard name == "labels" || name == "localizations" else { return [name] }
            let a = old.first { $0.key == name }?.value ?? .object([]), b = new.first { $0.key == name }?.value ?? .object([])
            return changedMembers(a, b).map { "\(name).\($0)" }
        }
    }
}
