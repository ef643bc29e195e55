import StrictJSON

/// How a CSV import reads a sheet that people keep, not only the files `export` writes
/// (docs/sheets.md#import-a-sheet): what the columns are called and what the rows lack.
public struct SheetOptions: Sendable, Equatable {
    /// A sheet's column and the import's column it holds (`--map 'Title (EN)=title'`), before any other rule.
    public var map: [(sheet: String, column: String)]
    /// Sheet columns kept as labels, their keys made from the names (`Labels.key(fromColumn:)`).
    public var labelsFrom: [String]
    /// Every column the import does not know is kept as a label, rather than refused.
    public var unknownColumnsAsLabels: Bool
    /// The clip of a row without one.
    public var defaultClip: String?
    /// An empty cell clears its field (a label, the category, the place, the header image), as an
    /// update or sync from a sheet reads it; a create leaves the field at its default.
    public var emptyCellsClear = false

    public init(
        map: [(sheet: String, column: String)] = [], labelsFrom: [String] = [], unknownColumnsAsLabels: Bool = false,
        defaultClip: String? = nil
    ) {
        self.map = map
        self.labelsFrom = labelsFrom
        self.unknownColumnsAsLabels = unknownColumnsAsLabels
        self.defaultClip = defaultClip
    }

    public static func == (a: SheetOptions, b: SheetOptions) -> Bool {
        a.map.elementsEqual(b.map, by: { $0 == $1 }) && a.labelsFrom == b.labelsFrom
            && a.unknownColumnsAsLabels == b.unknownColumnsAsLabels && a.defaultClip == b.defaultClip
            && a.emptyCellsClear == b.emptyCellsClear
    }

    /// `--map` terms, `SHEET=COLUMN` each (the last `=` ends the sheet's name, which may hold one).
    public static func mapping(_ terms: [String], field: String = "map") throws(ValidationFailure) -> [(sheet: String, column: String)] {
        var map: [(sheet: String, column: String)] = []
        var errors: [FieldError] = []
        for term in terms {
            guard let equals = term.lastIndex(of: "="), equals != term.startIndex, term.index(after: equals) != term.endIndex else {
                errors.append(FieldError(field: field, rule: "map", message: "\"\(term.truncatedForMessage)\" is not SHEET COLUMN=COLUMN"))
                continue
            }
            let column = String(term[term.index(after: equals)...])
            guard SheetColumns.isColumn(column) else {
                errors.append(
                    FieldError(
                        field: field, rule: "map",
                        message: "\"\(column.truncatedForMessage)\" is not a column an import reads (\(SheetColumns.namesInHelp))"))
                continue
            }
            map.append((sheet: String(term[..<equals]), column: column))
        }
        guard errors.isEmpty else { throw ValidationFailure(errors) }
        return map
    }
}

/// The columns of a sheet as the import reads them: each header cell named in the import's own
/// vocabulary (`Interchange.csvColumns`, `label.KEY`, and the flat columns `title.LANG`, `subtitle.LANG`,
/// `latitude`, `longitude`, `address`), by `--map`, then by name ignoring case, then by the aliases
/// below, then as a label when asked (docs/sheets.md#import-a-sheet).
public enum SheetColumns {
    /// Flat columns: a card's text in one language, and a place from its parts.
    public static let flatPlaceColumns = ["latitude", "longitude", "address"]

    /// Names people give the import's columns, compared ignoring case, spaces, `-` and `_`.
    static let aliases: [String: String] = [
        "invocationurl": "url", "link": "url", "experienceurl": "url",
        "appclip": "clip", "clipid": "clip", "appclipid": "clip", "bundleid": "clip",
        "defaultlanguage": "language", "lang": "language",
        "businesscategory": "category",
        "calltoaction": "action", "verb": "action",
        "lat": "latitude", "lng": "longitude", "lon": "longitude", "long": "longitude",
        "fulladdress": "address", "streetaddress": "address",
        "headerimagesha256": "headerImage", "image": "headerImage",
    ]

    static var namesInHelp: String { "url, clip, title, subtitle, …, label.KEY, title.LANG, subtitle.LANG, latitude, longitude, address" }

    /// A name an import reads as it is (`--map`'s right-hand side).
    public static func isColumn(_ name: String) -> Bool {
        Interchange.isKnownColumn(name) || flatPlaceColumns.contains(name) || cardLanguage(name) != nil
    }

    /// The language of a flat card column (`title.fr`: `title`, fr), or nil.
    public static func cardLanguage(_ name: String) -> (part: String, language: Language)? {
        for part in ["title", "subtitle"] where name.hasPrefix(part + ".") {
            let tag = String(name.dropFirst(part.count + 1))
            guard let language = try? Language.parse(tag, field: name) else { return nil }
            return (part, language)
        }
        return nil
    }

    /// The header's columns in the import's vocabulary, or every problem with it.
    public static func resolve(_ header: [String], _ options: SheetOptions) -> Result<[String], ValidationFailure> {
        var columns: [String] = []
        var errors: [FieldError] = []
        var firstHolder: [String: String] = [:]
        for cell in header {
            guard let column = column(for: cell, options) else {
                errors.append(unknown(cell))
                continue
            }
            if let first = firstHolder[column] {
                errors.append(
                    FieldError(
                        field: cell, rule: "duplicate",
                        message: first == cell ? "is named twice" : "is the same column as \(first) (\(column))"))
                continue
            }
            firstHolder[column] = cell
            columns.append(column)
        }
        // What the options name must be in the sheet, once: a misspelt --map or --labels-from would be a silent no-op.
        let cells = Set(header.map(folded))
        var mapped: Set<String> = []
        for (sheet, _) in options.map {
            if !cells.contains(folded(sheet)) {
                errors.append(FieldError(field: "map", rule: "absent", message: "the sheet has no column \"\(sheet.truncatedForMessage)\""))
            } else if !mapped.insert(folded(sheet)).inserted {
                errors.append(
                    FieldError(field: "map", rule: "duplicate", message: "maps the column \"\(sheet.truncatedForMessage)\" twice"))
            }
        }
        for name in options.labelsFrom where !cells.contains(folded(name)) {
            errors.append(
                FieldError(field: "labels-from", rule: "absent", message: "the sheet has no column \"\(name.truncatedForMessage)\""))
        }
        if columns.contains("place"), let flat = columns.first(where: { flatPlaceColumns.contains($0) }) {
            errors.append(
                FieldError(field: flat, rule: "place.columns", message: "gives a place beside the place column: give one or the other"))
        }
        return errors.isEmpty ? .success(columns) : .failure(ValidationFailure(errors))
    }

    /// One header cell's column, or nil when it is unknown.
    static func column(for cell: String, _ options: SheetOptions) -> String? {
        let name = trimmed(cell)
        if let mapped = options.map.first(where: { folded($0.sheet) == folded(name) }) { return mapped.column }
        if let exact = canonical(name) {
            // `label.City` is `label.city`, so that two spellings of one label are one column, named twice.
            guard let key = Interchange.labelKey(column: exact) else { return exact }
            return Interchange.labelColumnPrefix + key
        }
        if options.labelsFrom.contains(where: { folded($0) == folded(name) }) || options.unknownColumnsAsLabels {
            return Labels.key(fromColumn: name).map { Interchange.labelColumnPrefix + $0 }
        }
        return nil
    }

    /// A name in the import's vocabulary: as it is, ignoring case, as an alias, or as `Title (FR)`.
    static func canonical(_ name: String) -> String? {
        if isColumn(name) { return name }
        let key = folded(name)
        let known = Interchange.csvColumns + ["labels"] + flatPlaceColumns
        if let match = known.first(where: { folded($0) == key }) { return match }
        if let alias = aliases[key] { return alias }
        if name.lowercased().hasPrefix(Interchange.labelColumnPrefix) {
            return Labels.key(String(name.dropFirst(Interchange.labelColumnPrefix.count))).map { Interchange.labelColumnPrefix + $0 }
        }
        // `Title (FR)`, `Subtitle FR`, `title_fr`, `Title.fr`: a card's text in one language.
        let lower = name.lowercased()
        for part in ["subtitle", "title"] where lower.hasPrefix(part) {
            let rest = lower.dropFirst(part.count).filter { !" ()._-".contains($0) }
            guard !rest.isEmpty, let language = try? Language.parse(String(rest), field: name) else { continue }
            return "\(part).\(language.tag)"
        }
        return nil
    }

    static func unknown(_ cell: String) -> FieldError {
        let key = folded(cell)
        let near = (Interchange.csvColumns + flatPlaceColumns).min { distance(folded($0), key) < distance(folded($1), key) }
        let hint = near.flatMap { distance(folded($0), key) <= 2 ? " (did you mean \($0)?)" : nil } ?? ""
        return FieldError(
            field: cell, rule: "unknown",
            message:
                "is not a known column\(hint): name it with --map 'COLUMN=NAME', keep it as a label with --labels-from or --unknown-columns label, or remove it (known: \(namesInHelp))"
        )
    }

    static func trimmed(_ s: String) -> String {
        String(s.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    /// Lower case, without spaces, `-` and `_`: how aliases and names are compared.
    static func folded(_ s: String) -> String { String(s.lowercased().filter { !" -_".contains($0) }) }

    /// Levenshtein distance, for "did you mean" (short names only).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// One CSV record as the JSON object an import decodes (`ExperienceJSON.decode`), its columns already
/// in the import's vocabulary (`SheetColumns.resolve`).
enum SheetRow {
    static func members(_ columns: [String], _ cells: [String], _ sheet: SheetOptions) -> (
        members: [(key: String, value: JSONValue)], problems: [FieldError]
    ) {
        let language = zip(columns, cells).first { $0.0 == ExperienceField.language.name }.flatMap { try? Language.parse($0.1, field: "") }
        var row = Reading(sheet: sheet, language: language ?? .EN)
        for (name, cell) in zip(columns, cells) { row.take(name, cell) }
        return row.finished()
    }

    /// A record's cells read one by one into members, then put together (`finished`).
    struct Reading {
        let sheet: SheetOptions
        /// The row's language, whose flat card columns (`Title (EN)` on an `en` row) are its `title` and `subtitle`.
        let language: Language
        var members: [(key: String, value: JSONValue)] = []
        var problems: [FieldError] = []
        /// An empty label cell removes the label (a JSON Merge Patch's null: `Labels.merge`).
        var labels: [(key: String, value: JSONValue)] = []
        var cards: [Language: [(key: String, value: JSONValue)]] = [:]
        var place: [String: String] = [:]
        var emptyPlaceCells = false

        mutating func take(_ name: String, _ cell: String) {
            if let key = Interchange.labelKey(column: name) {
                labels.append((key: key, value: cell.isEmpty ? .null : .string(cell)))
            } else if cell.isEmpty {
                if sheet.emptyCellsClear, ExperienceField.named[name]?.onNull == .clears || name == "place" {
                    members.append((key: name, value: .null))
                }
                if SheetColumns.flatPlaceColumns.contains(name) { emptyPlaceCells = true }
            } else if let (part, cardLanguage) = SheetColumns.cardLanguage(name) {
                if cardLanguage == language {
                    members.append((key: part, value: .string(cell)))
                } else {
                    cards[cardLanguage, default: []].append((key: part, value: .string(cell)))
                }
            } else if SheetColumns.flatPlaceColumns.contains(name) {
                place[name] = cell
            } else {
                typed(name, cell)
            }
        }

        /// A cell by the kind of its field (`ExperienceField`); `localizations` and `labels` are JSON too.
        mutating func typed(_ name: String, _ cell: String) {
            let field = ExperienceField.named[name]
            switch field?.kind ?? (name == "localizations" || name == "labels" ? .json : .text) {
            case .flag:
                switch cell.lowercased() {
                case "true", "yes", "1": members.append((key: name, value: true))
                case "false", "no", "0": members.append((key: name, value: false))
                default:
                    problems.append(
                        FieldError(field: name, rule: "type", message: "expected true or false, got \"\(cell.truncatedForMessage)\""))
                }
            case .enumeration:
                // A sheet's `active` is the registry's ACTIVE; a near miss is refused by the field's rule, with a suggestion.
                let spelled = field?.cases.first { $0.lowercased() == cell.lowercased() } ?? cell
                members.append((key: name, value: .string(spelled)))
            case .json:
                do {
                    let value = try JSONParser.parse(cell)
                    guard name == "labels" else { return members.append((key: name, value: value)) }
                    guard let given = value.objectMembers else {
                        return problems.append(FieldError(field: name, rule: "type", message: "must be a JSON object of labels"))
                    }
                    // The `labels` cell first, then the label columns over it, as one patch.
                    labels = given + labels
                } catch {
                    problems.append(
                        FieldError(field: name, rule: "json", message: "malformed JSON: \(error.message) at column \(error.column)"))
                }
            case .text, .instant: members.append((key: name, value: .string(cell)))
            }
        }

        /// The members with the clip given for the row, the flat cards, place and labels each as one member.
        func finished() -> (members: [(key: String, value: JSONValue)], problems: [FieldError]) {
            var members = members, problems = problems
            if !members.contains(where: { $0.key == "clip" }), let clip = sheet.defaultClip {
                members.append((key: "clip", value: .string(clip)))
            }
            if !cards.isEmpty {
                let languages = cards.sorted { $0.key < $1.key }.map { (key: $0.key.tag, value: JSONValue.object($0.value)) }
                members.append((key: "localizations", value: .object(languages)))
            }
            if !place.isEmpty {
                let (value, errors) = SheetRow.flatPlace(place)
                problems += errors
                members.append((key: "place", value: value))
            } else if emptyPlaceCells, sheet.emptyCellsClear {
                // The sheet is the truth for the columns it has (docs/sheets.md): its place cells all empty clear the place.
                members.append((key: "place", value: .null))
            }
            if !labels.isEmpty { members.append((key: "labels", value: .object(SheetRow.deduplicated(labels)))) }
            // One member given by two columns (`title` beside the row's `Title (EN)`, a `localizations` cell beside flat
            // cards) is refused, since one would be dropped; an empty cell beside one that gives the member is no conflict.
            let valued = Set(members.filter { !$0.value.isNull }.map(\.key))
            members.removeAll { $0.value.isNull && valued.contains($0.key) }
            var given: Set<String> = []
            for (key, _) in members where !given.insert(key).inserted {
                problems.append(
                    FieldError(
                        field: key, rule: "duplicate",
                        message: "is given by two columns of this row; keep one (docs/sheets.md#import-a-sheet)"))
            }
            return (members, problems)
        }
    }

    /// The last value of each key (a label column over the `labels` cell).
    static func deduplicated(_ labels: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
        var last: [String: Int] = [:]
        for (i, label) in labels.enumerated() { last[Labels.key(label.key) ?? label.key] = i }
        return labels.enumerated().filter { last[Labels.key($0.element.key) ?? $0.element.key] == $0.offset }.map(\.element)
    }

    /// A place from flat columns: `address` as its full address (its lines joined by ", "), `latitude` and `longitude` as its
    /// display point (docs/apple-formats.md#place).
    static func flatPlace(_ cells: [String: String]) -> (JSONValue, [FieldError]) {
        var members: [(key: String, value: JSONValue)] = []
        var errors: [FieldError] = []
        if let address = cells["address"] {
            // A sheet's address cell often holds line breaks; a full address is one line (TextLimits), its lines joined by ", ".
            let lines = address.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map { SheetColumns.trimmed(String($0)) }
            members.append(
                (key: "mainAddress", value: .object([("fullAddress", .string(lines.filter { !$0.isEmpty }.joined(separator: ", ")))])))
        }
        var coordinates: [(key: String, value: JSONValue)] = []
        for name in ["latitude", "longitude"] {
            guard let cell = cells[name] else { continue }
            // Decimal degrees only (a decimal comma read as a point): `Double` alone would take `0x10`, `inf` or `1e3`.
            let text = cell.replacingComma()
            let decimal = text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B }
            guard decimal, let number = Double(text), number.isFinite else {
                errors.append(
                    FieldError(field: name, rule: "type", message: "expected a number in degrees, got \"\(cell.truncatedForMessage)\""))
                continue
            }
            coordinates.append((key: name, value: .double(number)))
        }
        if cells["latitude"] != nil || cells["longitude"] != nil {
            if coordinates.count == 1, errors.isEmpty {
                errors.append(FieldError(field: "latitude", rule: "place.coordinates", message: "needs both latitude and longitude"))
            }
            members.append((key: "displayPoint", value: .object([("coordinates", .object(coordinates))])))
        }
        return (.object(members), errors)
    }
}

extension String {
    /// A decimal comma read as a point (`48,8566`: a sheet in a French locale).
    fileprivate func replacingComma() -> String { split(separator: ",", omittingEmptySubsequences: false).joined(separator: ".") }
}
