public import ClipCore
public import StrictJSON

/// The `applinks` details entry of one full app on one host: its `components` (and optional
/// `defaults`), in the modern format only (`appIDs` + `components`, never legacy `paths`,
/// docs/apple-formats.md#legacy-format, TN3155: "Don't mix and match these formats").
public struct ApplinksDetails: Sendable, Equatable {
    public var app: AppID
    public var components: JSONValue
    public var defaults: JSONValue?
    public init(app: AppID, components: JSONValue, defaults: JSONValue? = nil) {
        self.app = app
        self.components = components
        self.defaults = defaults
    }
}

/// Host-wide `applinks` settings: `defaults` and `substitutionVariables` (docs/apple-formats.md#applinks).
public struct ApplinksHostSettings: Sendable, Equatable {
    public var defaults: JSONValue?
    public var substitutionVariables: JSONValue?
    /// Whether the full apps' details also cover the host's experience URLs (ExperienceApplinks).
    public var fromExperiences: Bool
    public init(defaults: JSONValue? = nil, substitutionVariables: JSONValue? = nil, fromExperiences: Bool = false) {
        self.defaults = defaults
        self.substitutionVariables = substitutionVariables
        self.fromExperiences = fromExperiences
    }
}

/// Validation of stored `applinks` input (docs/rules.md#applinks-input).
public enum ApplinksValidator {
    // Apple's applinks.SubstitutionVariables, predefined variables (docs/apple-formats.md#applinks).
    public static let predefinedVariables: Set<String> = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

    /// `components`: an array of objects with only the keys `/`, `?`, `#`, `exclude`, `comment`,
    /// `caseSensitive`, `percentEncoded`; `?` a string or a string→string dictionary; patterns may
    /// use only defined substitution variables.
    public static func validateComponents(_ value: JSONValue, field: String = "components", variables: Set<String> = []) -> [FieldError] {
        guard let components = value.arrayValue else {
            return [FieldError(field: field, rule: "type", message: "expected an array of component objects, got \(value.typeName)")]
        }
        var errors: [FieldError] = []
        for (i, component) in components.enumerated() {
            let path = "\(field)[\(i)]"
            let r = FieldReader(component, path: path)
            guard component.objectMembers != nil else { errors += r.errors; continue }
            for key in ["/", "#"] {
                if let pattern = r.string(key) { r.add(checkPattern(pattern, field: r.fieldPath(key), variables: variables)) }
            }
            if let query = r.raw("?") {
                switch query {
                case .string(let pattern): r.add(checkPattern(pattern, field: r.fieldPath("?"), variables: variables))
                case .object(let items):
                    for item in items {
                        let itemField = "\(r.fieldPath("?")).\(item.key)"
                        guard let pattern = item.value.stringValue else {
                            r.add([
                                FieldError(
                                    field: itemField, rule: "applinks.query",
                                    message: "a query dictionary maps item names to string patterns, got \(item.value.typeName)")
                            ])
                            continue
                        }
                        r.add(checkPattern(pattern, field: itemField, variables: variables))
                    }
                default:
                    r.fail("?", "applinks.query", "must be a string pattern or a dictionary of string patterns, got \(query.typeName)")
                }
            }
            _ = r.bool("exclude")
            _ = r.string("comment")
            _ = r.bool("caseSensitive")
            _ = r.bool("percentEncoded")
            errors += r.finish().map { error in
                error.rule == "unknown"
                    ? FieldError(
                        field: error.field, rule: "applinks.key",
                        message: "is not a component key (allowed: /, ?, #, exclude, comment, caseSensitive, percentEncoded)")
                    : error
            }
        }
        return errors
    }

    /// `defaults`: only `caseSensitive` and `percentEncoded`, both booleans.
    public static func validateDefaults(_ value: JSONValue, field: String = "defaults") -> [FieldError] {
        let r = FieldReader(value, path: field)
        _ = r.bool("caseSensitive")
        _ = r.bool("percentEncoded")
        return r.finish().map { error in
            error.rule == "unknown"
                ? FieldError(
                    field: error.field, rule: "applinks.defaults",
                    message: "is not allowed in defaults (only caseSensitive and percentEncoded)")
                : error
        }
    }

    /// `substitutionVariables`: name → array of strings; names without `$`, `(`, `)`; values
    /// may use `?` and `*` but no other variable (docs/apple-formats.md#applinks).
    public static func validateSubstitutionVariables(_ value: JSONValue, field: String = "substitutionVariables") -> [FieldError] {
        guard let members = value.objectMembers else {
            return [FieldError(field: field, rule: "type", message: "expected an object of name → array of strings, got \(value.typeName)")]
        }
        var errors: [FieldError] = []
        for (name, values) in members {
            let path = "\(field).\(name)"
            if name.isEmpty || name.contains(where: { $0 == "$" || $0 == "(" || $0 == ")" }) {
                errors.append(
                    FieldError(
                        field: path, rule: "applinks.variableName",
                        message: "a substitution variable name cannot be empty or contain $, ( or )"))
            }
            if predefinedVariables.contains(name) {
                errors.append(
                    FieldError(
                        field: path, rule: "applinks.variableName", message: "\"\(name)\" is a predefined variable and cannot be redefined")
                )
            }
            guard let list = values.arrayValue else {
                errors.append(FieldError(field: path, rule: "type", message: "expected an array of strings, got \(values.typeName)"))
                continue
            }
            for (i, element) in list.enumerated() {
                guard let s = element.stringValue else {
                    errors.append(FieldError(field: "\(path)[\(i)]", rule: "type", message: "expected a string, got \(element.typeName)"))
                    continue
                }
                if s.contains("$(") {
                    errors.append(
                        FieldError(
                            field: "\(path)[\(i)]", rule: "applinks.variableValue",
                            message: "a substitution variable value cannot refer to another variable"))
                }
            }
        }
        return errors
    }

    /// The names of custom variables defined by `substitutionVariables`.
    public static func variableNames(_ substitutionVariables: JSONValue?) -> Set<String> {
        Set(substitutionVariables?.objectMembers?.map(\.key) ?? [])
    }

    /// The `$(name)` references of a pattern, in order, and whether a `$(` is left unclosed
    /// (docs/apple-formats.md#applinks: names cannot contain `$`, `(` or `)`, so the first ")" closes one).
    public static func variableReferences(in pattern: String) -> (names: [String], unterminated: Bool) {
        var names: [String] = []
        var rest = Substring(pattern)
        while let start = rest.range(of: "$(") {
            guard let end = rest[start.upperBound...].firstIndex(of: ")") else { return (names, true) }
            names.append(String(rest[start.upperBound..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return (names, false)
    }

    /// Every `$(name)` in `pattern` is closed and names a predefined or defined variable.
    static func checkPattern(_ pattern: String, field: String, variables: Set<String>) -> [FieldError] {
        let (names, unterminated) = variableReferences(in: pattern)
        var errors = names.filter { !predefinedVariables.contains($0) && !variables.contains($0) }.map { name in
            FieldError(
                field: field, rule: "applinks.variable",
                message: "$(\(name.truncatedForMessage)) is neither predefined nor defined in substitutionVariables")
        }
        if unterminated {
            errors.append(
                FieldError(field: field, rule: "applinks.variable", message: "unclosed $( in pattern \"\(pattern.truncatedForMessage)\""))
        }
        return errors
    }
}

extension Substring {
    func range(of needle: String) -> Range<Substring.Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
