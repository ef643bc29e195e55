import ClipCodes
import FileFormats
import QRCode
import ClipCore
import CardPreview
import ClipApp
import ClipStore
import ClipWire
import StrictJSON

/// What `clipctl`'s commands need, as typed values: the local database and a remote server
/// (`--server`) answer the same values, and the commands print them with ClipWire's encoders,
/// so both print the same output.
protocol Backend {
    /// Imports the bytes `chunks` gives (one chunk per call, nil at the end); `progress(lines)`.
    func importFile(
        format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?,
        progress: @escaping (Int) -> Void
    ) throws -> ImportReport
    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws
}

/// The local SQLite database.
struct LocalBackend: Backend {
    let registry: Registry

    func importFile(
        format: Interchange.Format, chunks: () throws -> ArraySlice<UInt8>?,
        progress: @escaping (Int) -> Void
    ) throws -> ImportReport {
        try registry.importExperiences(format: format, chunks: chunks, progress: progress)
    }

    func export(format: Interchange.Format, spreadsheetSafe: Bool, emit: (String) throws -> Void) throws {
        try registry.export(format: format, spreadsheetSafe: spreadsheetSafe, emit: emit)
    }

}
