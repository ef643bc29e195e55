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
