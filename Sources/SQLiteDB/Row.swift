/// One result row. Typed getters throw `RowError` when a column is missing or holds another type,
/// so that a schema drift is an error, not a silently wrong value.
public struct Row: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public subscript(_ column: String) -> SQLValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    private func value(_ column: String) throws -> SQLValue {
        guard let value = self[column] else { throw RowError(column: column, problem: "no such column") }
        return value
    }

    public func int(_ column: String) throws -> Int {
        guard case .integer(let n) = try value(column) else { throw RowError(column: column, problem: "not an integer") }
        return Int(n)
    }

    public func optionalInt(_ column: String) throws -> Int? {
        switch try value(column) {
        case .null: return nil
        case .integer(let n): return Int(n)
        default: throw RowError(column: column, problem: "not an integer")
        }
    }

    public func bool(_ column: String) throws -> Bool { try int(column) != 0 }

    public func string(_ column: String) throws -> String {
        guard case .text(let s) = try value(column) else { throw RowError(column: column, problem: "not text") }
        return s
    }

    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let s): return s
        default: throw RowError(column: column, problem: "not text")
        }
    }

    public func blob(_ column: String) throws -> [UInt8] {
        switch try value(column) {
        case .blob(let b): return b
        case .null: return []
        default: throw RowError(column: column, problem: "not a blob")
        }
    }
}

public struct RowError: Error, CustomStringConvertible, Sendable {
    public let column: String
    public let problem: String
    public var description: String { "column \(column): \(problem)" }
}
