import ClipCore
import FileFormats

/// File names for the codes of a print bundle: deterministic, unique, and safe on every file system a
/// print shop may unpack them on.
public enum CodeFileName {
    /// At most this many characters, extension included: the file-name limit of Apple's App Clip Code
    /// guidelines for print (developer.apple.com, Human Interface Guidelines, App Clip Codes).
    public static let maxLength = 188
    /// The hexadecimal characters of SHA-256 that tell two URLs apart when their names alone would not.
    static let hashLength = 12
    /// The longest extension used (".ndef").
    static let longestExtension = 5

    /// The name, without extension, of the files of `url`: the URL after "https://", with "/" written
    /// "_" and every character other than a–z, 0–9, "." and "-" written "-", runs of "-" kept to one.
    /// When that loses anything (any other character was in the URL, or the name had to be shortened),
    /// "~" and the first 12 hexadecimal digits of the URL's SHA-256 follow, so two URLs never share a
    /// name: an unchanged name stands for exactly one URL (only "/" becomes "_", and "_" is never kept),
    /// and a changed one carries its URL's digest. Lower case only, so a case-insensitive file system
    /// keeps them apart too; never starts with "." or "-" (a hidden file, an option to a command).
    public static func stem(for url: String) -> String {
        let body = url.hasPrefix("https://") ? String(url.dropFirst("https://".count)) : url
        var slug = ""
        var lossless = true
        for scalar in body.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", ".", "-": slug.unicodeScalars.append(scalar)
            case "/": slug += "_"
            default:
                lossless = false
                if !slug.hasSuffix("-") { slug += "-" }
            }
        }
        while slug.hasPrefix(".") || slug.hasPrefix("-") {
            slug.removeFirst()
            lossless = false
        }
        if slug.isEmpty {
            slug = "code"
            lossless = false
        }
        let budget = maxLength - longestExtension
        if lossless && slug.count <= budget { return slug }
        let digest = String(SHA256.hexDigest(Array(url.utf8)).prefix(hashLength))
        return String(slug.prefix(budget - 1 - hashLength)) + "~" + digest
    }
}

/// The CSV file a print shop's App Clip Code tool takes: one line per code, "SVG File Name,URL".
public enum VendorCSV {
    /// At most this many codes in one file: the batch we keep to for a print vendor's tool. More is
    /// refused with the count: the caller narrows the export (--host, --clip) rather than this tool
    /// splitting it into parts a shop has to put back together.
    public static let maxRows = 10_000
    public static let header = ["SVG File Name", "URL"]

    public struct TooManyRows: Error, Sendable, Equatable, CustomStringConvertible {
        public let rows: Int
        public init(rows: Int) { self.rows = rows }
        public var description: String {
            "\(rows) codes; the print vendor's CSV holds at most \(VendorCSV.maxRows): export fewer at a time (--host or --clip)"
        }
    }

    /// The CSV (RFC 4180: CRLF after every record, header first; a field with a comma, a double quote,
    /// CR or LF in double quotes, its double quotes doubled).
    public static func bytes(_ rows: [(fileName: String, url: String)]) throws(TooManyRows) -> [UInt8] {
        guard rows.count <= maxRows else { throw TooManyRows(rows: rows.count) }
        var text = header.map(field).joined(separator: ",") + "\r\n"
        for row in rows { text += field(row.fileName) + "," + field(row.url) + "\r\n" }
        return Array(text.utf8)
    }

    /// One RFC 4180 field (§2, rules 5–7).
    public static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return value }
        var quoted = "\""
        for character in value { quoted += character == "\"" ? "\"\"" : String(character) }
        return quoted + "\""
    }
}
