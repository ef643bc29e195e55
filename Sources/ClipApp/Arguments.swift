public import ClipCore
public import ClipStore

/// The named text arguments an operation's input is read from: an HTTP request's path parameters
/// and query items, or a command's positionals and options, under the same names, so that a
/// command run locally and the same command sent to a server read one input alike.
public struct Arguments: Sendable, Equatable {
    public private(set) var values: [(name: String, value: String)]

    public init(_ values: [(name: String, value: String)] = []) { self.values = values }

    /// The last value given for `name` (a repeated query item or option: the last one wins).
    public subscript(_ name: String) -> String? { values.last { $0.name == name }?.value }

    /// Every value given for `name`, in order (a command's repeated positional, a repeated query item).
    public func all(_ name: String) -> [String] { values.filter { $0.name == name }.map(\.value) }

    public mutating func append(_ name: String, _ value: String?) {
        if let value { values.append((name, value)) }
    }

    public static func == (lhs: Arguments, rhs: Arguments) -> Bool {
        lhs.values.elementsEqual(rhs.values) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// Reads an input's arguments, keeping every field error, so that a caller learns all of them at
/// once (docs/rules.md#field-errors).
public struct ArgumentReader {
    public let arguments: Arguments
    public private(set) var errors: [FieldError] = []

    public init(_ arguments: Arguments) { self.arguments = arguments }

    public mutating func fail(_ field: String, _ rule: String, _ message: String) {
        errors.append(FieldError(field: field, rule: rule, message: message))
    }

    /// A text argument; a missing required one is a field error.
    public mutating func string(_ name: String, required: Bool = false) -> String? {
        guard let value = arguments[name] else {
            if required { fail(name, "required", "is required") }
            return nil
        }
        return value
    }

    /// Every value given for `name`, in order (a repeated query item, a variadic positional).
    public mutating func strings(_ name: String) -> [String] {
        arguments.values.filter { $0.name == name }.map(\.value)
    }

    /// A whole number in `range`, written in decimal digits alone (no sign, no spaces).
    public mutating func integer(_ name: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = arguments[name] else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int64(text), range.contains(n) else {
            fail(name, "range", "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return n
    }

    /// The value `body` makes, or nil with its field errors kept.
    public mutating func attempt<T>(_ body: () throws(ValidationFailure) -> T) -> T? {
        do { return try body() } catch {
            errors += error.errors
            return nil
        }
    }

    /// Throws every error found (`RegistryError.invalid`: HTTP 422, exit 65).
    public func finish() throws(RegistryError) {
        if !errors.isEmpty { throw RegistryError.invalid(errors) }
    }
}
