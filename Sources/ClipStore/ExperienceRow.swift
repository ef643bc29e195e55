import ClipCore
import SQLiteDB
import StrictJSON

/// The SQL side of `ExperienceField` (docs/architecture.md#experience-fields): the columns of
/// `advanced_experience` that hold an experience's fields, their values in a row, and the fields
/// read back. The one mapping of every read (`Registry.experienceColumns`), insert and update, the
/// import's chunks and the read model's loader (`LoaderColumns`).
enum ExperienceRow {
    /// The fields' columns, in `ExperienceField.all` order.
    static let fieldColumns = ExperienceField.all.map(\.column)

    /// The SQL value of a field: an enumeration's raw value, a flag's 0 or 1, JSON as `JSONWriter` writes it.
    static func sqlValue(_ value: FieldValue, _ field: ExperienceField) -> SQLValue {
        switch value {
        case .none: .null
        case .code(let n): field.kind == .flag ? .bool(n == 1) : .text(field.cases[n])
        case .text(let text): .text(text)
        case .json(let json): .text(JSONWriter.string(json))
        }
    }

    /// The values of an experience's fields, in `fieldColumns` order.
    static func values(_ experience: AdvancedExperience) -> [SQLValue] {
        zip(ExperienceField.all, ExperienceField.values(of: experience)).map { sqlValue($1, $0) }
    }

    /// Sets an experience's fields from a row that has `fieldColumns` by name.
    static func read(_ row: Row, into experience: inout AdvancedExperience) throws {
        for field in ExperienceField.all {
            let value: FieldValue
            switch field.kind {
            case .enumeration:
                let text = field.isOptional ? try row.optionalString(field.column) : try row.string(field.column)
                value = try text.map { (t) throws(ValidationFailure) in try field.code(t, field: field.name) } ?? .none
            case .flag: value = .code(try row.bool(field.column) ? 1 : 0)
            case .text, .instant: value = try row.optionalString(field.column).map(FieldValue.text) ?? .none
            case .json: value = try row.optionalString(field.column).map { .json(try JSONParser.parse($0)) } ?? .none
            }
            field.set(value, in: &experience)
        }
    }
}

/// A row of the read model's loader (`LiveIndex.loadAll`) as `ExperienceColumns`: the fields'
/// columns read in place from SQLite's bytes, starting at column `first`, in `ExperienceField.all` order.
struct LoaderColumns: ExperienceColumns {
    /// Per field: its cases by their bytes, and the case last read (the enumerations' columns repeat
    /// from row to row, and a comparison of a few bytes is cheaper than hashing them: start-up's
    /// profile at a million experiences, `Hasher` and `Dictionary` lookups 3% of loading).
    struct Cases {
        let byHash: [UInt64: UInt8]
        let field: ExperienceField
        var last: [UInt8] = []
        var lastCode: UInt8 = 0xFF

        init(_ field: ExperienceField) {
            self.field = field
            byHash = Dictionary(uniqueKeysWithValues: field.cases.enumerated().map { (LiveIndex.State.hash($1.utf8), UInt8($0)) })
        }

        mutating func code(_ text: UnsafeBufferPointer<UInt8>) throws -> UInt8 {
            if lastCode != 0xFF, text.elementsEqual(last) { return lastCode }
            var code: UInt8
            if let n = byHash[LiveIndex.State.hash(text)], field.cases[Int(n)].utf8.elementsEqual(text) {
                code = n
            } else {
                guard case .code(let n) = try field.code(String(decoding: text, as: UTF8.self), field: field.name) else { throw unexpected }
                code = UInt8(n)
            }
            last = Array(text)
            lastCode = code
            return code
        }
    }

    static let unexpected = RegistryError.storage("advanced_experience has a row of unexpected column types or an unknown clip")
    /// The row being read (set for each row of the scan).
    var row: ColumnCursor!
    let first: Int32
    var cases: [Cases] = ExperienceField.all.map(Cases.init)
    /// Each field's kind and whether it may be unset (plain values: a row's reads copy no field declaration).
    let kinds = ExperienceField.all.map(\.kind)
    let optional = ExperienceField.all.map(\.isOptional)

    init(first: Int32) { self.first = first }

    mutating func code(_ position: Int) throws -> UInt8 {
        let column = first + Int32(position)
        guard kinds[position] != .flag else { return row.int64(column) != 0 ? 1 : 0 }
        guard let text = row.text(column) else {
            guard optional[position] else { throw Self.unexpected }
            return 0xFF
        }
        return try cases[position].code(text)
    }

    func withBytes(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) throws {
        let text = row.text(first + Int32(position))
        guard kinds[position] == .json, let text else { return body(text) }
        // JSON is rare (a place); parsed and written again so that answers show it as `JSONWriter` does.
        JSONWriter.bytes(try JSONParser.parse(String(decoding: text, as: UTF8.self))).withUnsafeBufferPointer { body($0) }
    }
}
