public import ClipCore
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
        let (slug, lossless) = slug(body)
        let budget = maxLength - longestExtension
        if lossless && slug.count <= budget { return slug }
        let digest = String(SHA256.hexDigest(Array(url.utf8)).prefix(hashLength))
        return String(slug.prefix(budget - 1 - hashLength)) + "~" + digest
    }

    /// `text` in the characters a name keeps (a–z, 0–9, ".", "-"; "/" as "_"), and whether nothing was lost.
    static func slug(_ text: String) -> (slug: String, lossless: Bool) {
        var slug = ""
        var lossless = true
        for scalar in text.unicodeScalars {
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
        return (slug, lossless)
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

/// File names from a template (`--name '{station}'`, docs/codes.md#file-names): `{KEY}` is the experience's
/// label KEY, `{id}` its id and `{host}` its host; the rest is kept. The result is written as `CodeFileName`
/// writes URLs (a–z, 0–9, `.` and `-`, lower case), and names two codes would share get their URL's digest.
public struct CodeNameTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable { case text(String), field(String) }
    let parts: [Part]

    public struct Missing: Error, Sendable, Equatable, CustomStringConvertible {
        public let url: String
        public let field: String
        public init(url: String, field: String) {
            self.url = url
            self.field = field
        }
        public var description: String { "\(url) has no label \(field) for the file name: label it, or name files otherwise" }
    }

    public init(_ template: String) throws(ValidationFailure) {
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ValidationFailure(field: "name", rule: "name.template", message: "has a { without its }")
            }
            let field = String(rest[rest.index(after: open)..<close])
            guard field == "id" || field == "host" || Labels.key(field) != nil else {
                throw ValidationFailure(field: "name", rule: "name.template", message: "{\(field)} is not a label key, {id} or {host}")
            }
            parts.append(.field(Labels.key(field) ?? field))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        guard parts.contains(where: { if case .field = $0 { true } else { false } }) else {
            throw ValidationFailure(field: "name", rule: "name.template", message: "names no field: give {KEY} of a label, {id} or {host}")
        }
        self.parts = parts
    }

    /// The name of `target`'s files, before it is made safe and unique.
    func raw(_ target: CodeTarget) throws(Missing) -> String {
        var name = ""
        for part in parts {
            switch part {
            case .text(let text): name += text
            case .field("id") where target.experienceID != nil: name += String(target.experienceID!)
            case .field("host"): name += URLParts.host(of: target.url)
            case .field(let key):
                guard let value = target.labels[key] else { throw Missing(url: target.url, field: key) }
                name += value
            }
        }
        return name
    }

    /// Every target's file stem, in `targets` order: safe, and unique (a name shared gets each URL's digest).
    public func stems(_ targets: [CodeTarget]) throws(Missing) -> [String] {
        var safe: [String] = []
        for target in targets { safe.append(CodeFileName.slug(try raw(target).lowercased()).slug) }
        var counts: [String: Int] = [:]
        for stem in safe { counts[stem, default: 0] += 1 }
        return zip(safe, targets).map { stem, target in
            let budget = CodeFileName.maxLength - CodeFileName.longestExtension
            guard counts[stem] == 1, !stem.isEmpty, stem.count <= budget else {
                let digest = String(SHA256.hexDigest(Array(target.url.utf8)).prefix(CodeFileName.hashLength))
                return String(stem.prefix(budget - 1 - CodeFileName.hashLength)) + "~" + digest
            }
            return stem
        }
    }
}

enum URLParts {
    /// The host of an https URL as the registry writes it.
    static func host(of url: String) -> String {
        let rest = url.hasPrefix("https://") ? url.dropFirst("https://".count) : Substring(url)
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" })
    }
}
