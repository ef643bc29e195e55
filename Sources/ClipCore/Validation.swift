/// One problem with one field of an input: which field, which rule, and a sentence for a person.
/// `rule` is a stable machine-readable code (e.g. `url.scheme`, `title.length`).
public struct FieldError: Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String
    public let message: String
    /// The 1-based line of an import the error is on; nil elsewhere.
    public let line: Int?

    public init(field: String, rule: String, message: String, line: Int? = nil) {
        self.field = field
        self.rule = rule
        self.message = message
        self.line = line
    }

    public var description: String { (line.map { "line \($0): " } ?? "") + "\(field): \(message)" }

    /// The same error, on line `line` of an import.
    public func on(line: Int) -> FieldError { FieldError(field: field, rule: rule, message: message, line: line) }

    /// True for a member of the request object itself that is unknown or read-only: a malformed
    /// request rather than an invalid value. An unknown key inside a value (`place.mainAddress.x`,
    /// `localizations.FR.x`) makes that value invalid, like any other wrong value in it.
    public var isUnknownRequestField: Bool {
        (rule == "unknown" || rule == "readOnly") && !field.contains(".") && !field.contains("[")
    }

    /// The same error, reported under a parent field (`localizations.FR.title`).
    public func nested(in parent: String) -> FieldError {
        FieldError(field: parent.isEmpty ? field : "\(parent).\(field)", rule: rule, message: message, line: line)
    }
}

/// Every problem found in one input, reported at once (docs/rules.md#errors-and-statuses: "every field error at once").
public struct ValidationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
    public init(field: String, rule: String, message: String) {
        self.errors = [FieldError(field: field, rule: rule, message: message)]
    }
    public var description: String { errors.map(\.description).joined(separator: "; ") }
}

/// Collects errors while validating, so that one pass reports all of them.
public struct ErrorCollector: Sendable {
    public private(set) var errors: [FieldError] = []
    public init() {}

    public mutating func add(_ field: String, _ rule: String, _ message: String) {
        errors.append(FieldError(field: field, rule: rule, message: message))
    }

    public mutating func add(_ error: FieldError) { errors.append(error) }
    public mutating func add(contentsOf other: [FieldError]) { errors.append(contentsOf: other) }

    /// Runs `body`; a `ValidationFailure` it throws is collected and nil returned.
    public mutating func collect<T>(_ body: () throws(ValidationFailure) -> T) -> T? {
        do { return try body() } catch { errors.append(contentsOf: error.errors); return nil }
    }

    public var isEmpty: Bool { errors.isEmpty }

    public func throwIfAny() throws(ValidationFailure) {
        if !errors.isEmpty { throw ValidationFailure(errors) }
    }
}
