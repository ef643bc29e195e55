/// One SQLite value in one of its five storage classes (https://sqlite.org/datatype3.html).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// `.text(value)`, or `.null` when `value` is nil.
    public static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// `.integer(value)`, or `.null` when `value` is nil.
    public static func int(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    public static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}
