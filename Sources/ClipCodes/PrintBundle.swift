import ClipCore
public import DoctorAndPublish
public import FileFormats
public import QRCode
import StrictJSON

/// The files of `clipctl codes export` and `GET /v1/codes/export`, for a print shop: per code and format
/// `<format>/<name>.<ext>` (`CodeFileName`), `codes.csv` for the vendor's tool when SVG is among the
/// formats (`VendorCSV`), and `index.json` listing every file with its URL, format, size, SHA-256, QR
/// version and level, and the smallest NTAG, and `manifest.csv` for the people who match codes to places (each
/// code's files, URL, experience, title and labels). Pure and deterministic: the same codes give the same bytes.
public enum PrintBundle {
    /// What marks a directory as an earlier export, which a new export may replace.
    public static let marker = StaticSite.IndexMarker(format: "clip-registry-codes", version: 1, writer: "clipctl codes export")
    public static let csvName = "codes.csv"
    public static let manifestName = "manifest.csv"
    /// The formats a bundle holds files in (hexadecimal NDEF is for a terminal, not a bundle).
    public static let formats: [CodeFormat] = [.svg, .png, .ndef]
    /// The timestamp of every entry of the bundle's ZIP archive: the earliest MS-DOS date (APPNOTE.TXT
    /// §4.4.6), so the same bundle makes the same archive.
    public static let archiveTimestamp = try! DOSTimestamp(year: 1980, month: 1, day: 1)

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case code(url: String, CodeRenderingError)
        case csv(VendorCSV.TooManyRows)
        case archive(ZIPError)
        case name(CodeNameTemplate.Missing)

        public var description: String {
            switch self {
            case .code(let url, let error): "no code for \(url): \(error)"
            case .csv(let error): error.description
            case .archive(let error): "cannot make the archive: \(error)"
            case .name(let missing): missing.description
            }
        }
    }

    /// The files for `targets`, in path order, `index.json` among them; named after their URLs, or by `naming`.
    public static func files(
        _ targets: [CodeTarget], formats: [CodeFormat], ecc: ErrorCorrectionLevel = .medium, size: CodeSize = .standard,
        naming: CodeNameTemplate? = nil
    ) throws(Failure) -> [StaticSite.File] {
        let formats = PrintBundle.formats.filter(formats.contains)
        if formats.contains(.svg), targets.count > VendorCSV.maxRows { throw .csv(VendorCSV.TooManyRows(rows: targets.count)) }
        var files: [StaticSite.File] = []
        var entries: [String: [(key: String, value: JSONValue)]] = [:]
        var csvRows: [(fileName: String, url: String)] = []
        var manifest: [(paths: [String], target: CodeTarget)] = []
        let sorted = targets.sorted(by: { $0.url < $1.url })
        let stems: [String]
        do { stems = try naming?.stems(sorted) ?? sorted.map { CodeFileName.stem(for: $0.url) } } catch { throw .name(error) }
        for (target, stem) in zip(sorted, stems) {
            manifest.append((formats.map { "\($0.rawValue)/\(stem).\($0.fileExtension)" }, target))
            for format in formats {
                let code: RenderedCode
                do { code = try CodeRenderer.render(target.url, format: format, ecc: ecc, size: size) } catch {
                    throw .code(url: target.url, error)
                }
                let name = "\(stem).\(format.fileExtension)"
                let path = "\(format.rawValue)/\(name)"
                if format == .svg { csvRows.append((name, target.url)) }
                files.append(StaticSite.File(path: path, bytes: code.bytes))
                var members: [(key: String, value: JSONValue)] = [("url", .string(target.url)), ("format", .string(format.rawValue))]
                if let id = target.experienceID { members.append(("experience", .integer(id))) }
                if let version = code.qrVersion, let level = code.errorCorrection {
                    members += [("qrVersion", .integer(Int64(version))), ("ecc", .string(level.letter))]
                }
                if format == .ndef { members.append(("ntag", code.ntag.map { .string($0.rawValue) } ?? .null)) }
                entries[path] = members
            }
        }
        if formats.contains(.svg) {
            do { files.append(StaticSite.File(path: csvName, bytes: try VendorCSV.bytes(csvRows))) } catch { throw .csv(error) }
        }
        files.append(StaticSite.File(path: manifestName, bytes: manifestBytes(manifest, formats: formats)))
        files.sort { $0.path < $1.path }
        let index: JSONValue = .object([
            (key: "format", value: .string(marker.format)),
            (key: "formatVersion", value: .integer(marker.version)),
            (key: "codes", value: .integer(Int64(targets.count))),
            (
                key: "files",
                value:
                    .array(
                        files.map { file in
                            .object(
                                [
                                    (key: "path", value: .string(file.path)), (key: "bytes", value: .integer(Int64(file.bytes.count))),
                                    (key: "sha256", value: .string(SHA256.hexDigest(file.bytes))),
                                ] + (entries[file.path] ?? []))
                        })
            ),
        ])
        let indexFile = StaticSite.File(path: StaticSite.indexName, bytes: JSONWriter.bytes(index, pretty: true) + [0x0A])
        files.insert(indexFile, at: files.firstIndex { $0.path > StaticSite.indexName } ?? files.endIndex)
        return files
    }

    /// The files as one ZIP archive (APPNOTE.TXT), deflated where that is smaller, in path order.
    public static func archive(_ files: [StaticSite.File]) throws(Failure) -> [UInt8] {
        do {
            return try ZIPWriter.archive(
                files.map { (name: $0.path, contents: $0.bytes) }, timestamp: archiveTimestamp, compression: .deflated)
        } catch { throw .archive(error) }
    }
}

extension PrintBundle {
    /// `manifest.csv` (RFC 4180, as `codes.csv`): a line per code with its file of each format, its URL, the
    /// experience's id and title, and a column per label key any code has (`label.KEY`); for people, so its
    /// free text is made safe to open in a spreadsheet (`Interchange.spreadsheetSafeCell`).
    static func manifestBytes(_ rows: [(paths: [String], target: CodeTarget)], formats: [CodeFormat]) -> [UInt8] {
        let keys = Set(rows.flatMap { $0.target.labels.keys }).sorted()
        let header = formats.map { "\($0.rawValue) file" } + ["URL", "Experience", "Title"] + keys.map { "label.\($0)" }
        var text = header.map(VendorCSV.field).joined(separator: ",") + "\r\n"
        for row in rows {
            let t = row.target
            // Free text, for a spreadsheet: a cell it would run as a formula is defused (OWASP "CSV Injection").
            let free = ([t.title ?? ""] + keys.map { t.labels[$0] ?? "" }).map(Interchange.spreadsheetSafeCell)
            let cells = row.paths + [t.url, t.experienceID.map(String.init) ?? ""] + free
            text += cells.map(VendorCSV.field).joined(separator: ",") + "\r\n"
        }
        return Array(text.utf8)
    }
}
