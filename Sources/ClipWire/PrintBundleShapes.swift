public import StrictJSON

/// What `clipctl codes export DIR` wrote, as its `--json` prints it (docs/codes.md): the directory, how many codes and
/// files, the index's SHA-256, the files added, changed and removed, how many were left unchanged, and a note for each
/// experience that has no code.
public struct CodesExported: WireShape {
    public var directory: String
    public var codes: Int64
    public var files: Int64
    public var indexSHA256: String
    public var added: [String]
    public var changed: [String]
    public var removed: [String]
    public var unchanged: Int64
    public var notes: [String]

    public init(
        directory: String, codes: Int64, files: Int64, indexSHA256: String, added: [String], changed: [String], removed: [String],
        unchanged: Int64, notes: [String]
    ) {
        self.directory = directory
        self.codes = codes
        self.files = files
        self.indexSHA256 = indexSHA256
        self.added = added
        self.changed = changed
        self.removed = removed
        self.unchanged = unchanged
        self.notes = notes
    }

    public var json: JSONValue {
        func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
        return .object([
            "directory": .string(directory), "codes": .integer(codes), "files": .integer(files), "indexSHA256": .string(indexSHA256),
            "added": strings(added), "changed": strings(changed), "removed": strings(removed), "unchanged": .integer(unchanged),
            "notes": strings(notes),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        guard let directory = json["directory"]?.stringValue else { throw WireError("a codes export without its directory") }
        func strings(_ key: String) -> [String] { json[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        func count(_ key: String) -> Int64 { if case .integer(let n)? = json[key] { n } else { 0 } }
        self.init(
            directory: directory, codes: count("codes"), files: count("files"), indexSHA256: json["indexSHA256"]?.stringValue ?? "",
            added: strings("added"), changed: strings("changed"), removed: strings("removed"), unchanged: count("unchanged"),
            notes: strings("notes"))
    }
}
