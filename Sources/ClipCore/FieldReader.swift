public import StrictJSON

/// Reads the members of one JSON object with typed getters, recording a `FieldError` for each
/// wrong type and, at `finish()`, for each member nobody asked for (docs/rules.md#errors-and-statuses: unknown fields
/// are refused). Field names are reported as paths: `place.displayPoint.coordinates.latitude`.
public final class FieldReader {
    public private(set) var errors: [FieldError] = []
    private let members: [(key: String, value: JSONValue)]
    /// Which members were read, by position: a set of their keys hashed every key twice per read
    /// and finish (callgrind, 20k-line import: `raw` 266 M, 1.3k instructions a read).
    private var consumed: [Bool]
    private let prefix: String

    /// nil (with an error recorded in `errors`) when `value` is not an object.
    public init(_ value: JSONValue, path: String = "") {
        prefix = path
        if case .object(let m) = value {
            members = m
            consumed = Array(repeating: false, count: m.count)
        } else {
            members = []
            consumed = []
            errors.append(
                FieldError(field: path.isEmpty ? "(body)" : path, rule: "type", message: "expected an object, got \(value.typeName)"))
        }
    }

    public func fieldPath(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    public func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    /// The raw value of `key` (marking it as read), nil when absent.
    public func raw(_ key: String) -> JSONValue? {
        var value: JSONValue?
        for (index, member) in members.enumerated() where member.key == key {
            consumed[index] = true
            value = value ?? member.value
        }
        return value
    }

    public func fail(_ key: String, _ rule: String, _ message: String) {
        errors.append(FieldError(field: fieldPath(key), rule: rule, message: message))
    }

    public func add(_ more: [FieldError]) { errors.append(contentsOf: more) }

    private func typed<T>(_ key: String, required: Bool, expected: String, _ extract: (JSONValue) -> T?) -> T? {
        guard let value = raw(key) else {
            if required { fail(key, "required", "is required") }
            return nil
        }
        if value.isNull && !required { return nil }
        guard let result = extract(value) else {
            fail(key, "type", "expected \(expected), got \(value.typeName)")
            return nil
        }
        return result
    }

    public func string(_ key: String, required: Bool = false) -> String? {
        typed(key, required: required, expected: "a string") { $0.stringValue }
    }

    public func bool(_ key: String, required: Bool = false) -> Bool? {
        typed(key, required: required, expected: "true or false") { $0.boolValue }
    }

    public func number(_ key: String, required: Bool = false) -> Double? {
        typed(key, required: required, expected: "a number") {
            switch $0 {
            case .integer(let n): Double(n)
            case .double(let d): d
            default: nil
            }
        }
    }

    public func object(_ key: String, required: Bool = false) -> JSONValue? {
        // JSONValue is nil-literal-expressible: a bare `nil` here was JSON null, so a number passed as an object.
        typed(key, required: required, expected: "an object") { $0.objectMembers != nil ? $0 : JSONValue?.none }
    }

    public func array(_ key: String, required: Bool = false) -> [JSONValue]? {
        typed(key, required: required, expected: "an array") { $0.arrayValue }
    }

    public func stringArray(_ key: String, required: Bool = false) -> [String]? {
        guard let elements = array(key, required: required) else { return nil }
        var result: [String] = []
        for (i, element) in elements.enumerated() {
            guard let s = element.stringValue else {
                errors.append(
                    FieldError(field: "\(fieldPath(key))[\(i)]", rule: "type", message: "expected a string, got \(element.typeName)"))
                continue
            }
            result.append(s)
        }
        return result
    }

    public func enumeration<E: AppleEnumeration>(_ key: String, _ type: E.Type, required: Bool = false) -> E? {
        guard let s = string(key, required: required) else { return nil }
        do { return try E.parse(s, field: fieldPath(key)) } catch { errors.append(contentsOf: error.errors); return nil }
    }

    /// Runs a validating constructor, recording its errors; nil when it failed.
    public func attempt<T>(_ body: () throws(ValidationFailure) -> T) -> T? {
        do { return try body() } catch { errors.append(contentsOf: error.errors); return nil }
    }

    /// Members of the object that nobody read: each is an "unknown field" error.
    public func finish() -> [FieldError] {
        for (member, read) in zip(members, consumed) where !read {
            errors.append(FieldError(field: fieldPath(member.key), rule: "unknown", message: "is not a known field"))
        }
        return errors
    }
}
