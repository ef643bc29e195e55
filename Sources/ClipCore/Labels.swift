public import StrictJSON
import IDNA

/// An experience's labels: key → value pairs that group experiences (`city=paris`, `station=par007`),
/// the registry's selector for lists, exports, bulk changes and scopes (docs/sheets.md#labels).
public enum Labels {
    /// At most this many labels on one experience.
    public static let maxCount = 32
    /// A key: 1–63 characters (a DNS label's length, RFC 1035 §2.3.4), lower-case ASCII letters and
    /// digits, with `-`, `_` and `.` inside; upper-case letters are read as lower-case.
    public static let keyMax = 63
    /// A value: free text of at most this many characters, checked as every stored text is (`TextLimits`).
    public static let valueMax = 200

    /// The key as stored (ASCII letters lower-cased), or nil when `text` is no key.
    public static func key(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard (1...keyMax).contains(bytes.count), isAlphanumeric(bytes.first!), isAlphanumeric(bytes.last!),
            bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The key a sheet's column name gives (`Station ID` → `station-id`): ASCII letters lower-cased,
    /// every run of other characters a `-`, none at either end; nil when no letter or digit is left
    /// or the result is longer than a key may be.
    public static func key(fromColumn name: String) -> String? {
        var out: [UInt8] = []
        var pendingDash = false
        for b in name.utf8 {
            if isAlphanumeric(b) {
                if pendingDash && !out.isEmpty { out.append(UInt8(ascii: "-")) }
                pendingDash = false
                out.append(b >= 0x41 && b <= 0x5A ? b + 0x20 : b)
            } else {
                pendingDash = true
            }
        }
        return key(String(decoding: out, as: UTF8.self))
    }

    static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    static let keyMessage =
        "is not a label key: 1–63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit"

    /// The errors of one key as given and its value, `field` naming the pair (`labels.city`).
    public static func errors(key: String, value: String, field: String) -> [FieldError] {
        guard self.key(key) != nil else { return [FieldError(field: field, rule: "labels.key", message: keyMessage)] }
        // TextLimits names its rules after the field's last part (the key): a label's are `labels.length` and so on.
        return TextLimits.check(value, field: field, max: valueMax).map {
            let rule = $0.rule.split(separator: ".").last.map(String.init) ?? $0.rule
            return FieldError(field: $0.field, rule: "labels." + rule, message: $0.message)
        }
    }

    /// Applies a labels member as a JSON Merge Patch (RFC 7396) of `base`: a string sets that key, `null`
    /// removes it, and `"labels": null` removes every label. Two spellings of one key (`City`, `city`)
    /// are refused, since which one wins would depend on their order.
    public static func merge(_ patch: JSONValue, into base: [String: String], field: String = "labels") -> (
        labels: [String: String], errors: [FieldError]
    ) {
        if patch.isNull { return ([:], []) }
        guard let members = patch.objectMembers else {
            return (base, [FieldError(field: field, rule: "type", message: "must be an object of label keys to text values")])
        }
        var labels = base
        var errors: [FieldError] = []
        var spelled: [String: String] = [:]
        for (given, value) in members {
            let path = "\(field).\(given)"
            guard let key = key(given) else {
                errors.append(FieldError(field: path, rule: "labels.key", message: keyMessage))
                continue
            }
            if let first = spelled[key] {
                errors.append(
                    FieldError(field: path, rule: "labels.duplicate", message: "is the same key as \(first) (give each key once)"))
                continue
            }
            spelled[key] = given
            if value.isNull {
                labels[key] = nil
                continue
            }
            guard let text = value.stringValue else {
                errors.append(FieldError(field: path, rule: "type", message: "must be a string, or null to remove the label"))
                continue
            }
            let problems = self.errors(key: key, value: text, field: path)
            // Stored in NFC, as a selector's values are read: one spelling matches whatever spelling was typed.
            if problems.isEmpty { labels[key] = CanonicalComposition.nfc(text) } else { errors += problems }
        }
        if errors.isEmpty && labels.count > maxCount {
            errors.append(
                FieldError(field: field, rule: "labels.count", message: "would hold \(labels.count) labels; the limit is \(maxCount)"))
        }
        return (labels, errors)
    }

    /// The labels as a JSON object, keys in order.
    public static func json(_ labels: [String: String]) -> JSONValue {
        .object(labels.keys.sorted().map { (key: $0, value: .string(labels[$0]!)) })
    }
}

/// Which experiences a selector names by their labels: every `key=value` pair must hold (several are
/// ANDed), and a `key` alone asks only that the label be there (docs/sheets.md#labels).
public struct LabelSelector: Sendable, Equatable {
    public struct Term: Sendable, Equatable {
        public let key: String
        /// nil: any value.
        public let value: String?
    }
    public var terms: [Term]

    public init(terms: [Term] = []) { self.terms = terms }

    /// Reads terms such as `city=paris` (the first `=` ends the key), each given on its own, as the
    /// repeated `label` query item or `--label` option gives them.
    public init(_ texts: [String], field: String = "label") throws(ValidationFailure) {
        var terms: [Term] = []
        var errors: [FieldError] = []
        for text in texts {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let key = Labels.key(parts[0]) else {
                errors.append(FieldError(field: field, rule: "labels.key", message: "\"\(text.truncatedForMessage)\" " + Labels.keyMessage))
                continue
            }
            if parts.count == 2, parts[1].isEmpty {
                errors.append(
                    FieldError(field: field, rule: "labels.value", message: "\"\(text.truncatedForMessage)\" gives no value after '='"))
                continue
            }
            terms.append(Term(key: key, value: parts.count == 2 ? CanonicalComposition.nfc(parts[1]) : nil))
        }
        guard errors.isEmpty else { throw ValidationFailure(errors) }
        self.terms = terms
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// Whether `labels` satisfy every term.
    public func matches(_ labels: [String: String]) -> Bool {
        terms.allSatisfy { term in labels[term.key].map { term.value == nil || $0 == term.value } ?? false }
    }

    /// The terms as the query items and options spell them.
    public var texts: [String] { terms.map { term in term.value.map { "\(term.key)=\($0)" } ?? term.key } }
}

/// The selector language of bulk changes (`clipctl update --where`, `PATCH /v1/experiences?where=`;
/// docs/sheets.md#selectors): comma-separated terms, each `host=HOST`, `clip=CLIP`, `status=STATUS`,
/// `label.KEY=VALUE` or `label.KEY` (the label is there), all of which must hold. A comma inside a
/// value is written `\,`.
public struct ExperienceSelector: Sendable, Equatable {
    public var host: String?
    public var clip: String?
    public var status: ExperienceStatus?
    public var labels = LabelSelector()

    public init() {}

    public init(_ text: String, field: String = "where") throws(ValidationFailure) {
        var errors: [FieldError] = []
        var labelTerms: [String] = []
        for term in Self.terms(text) {
            let parts = term.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let name = parts[0].trimmingSpaces, value = parts.count == 2 ? parts[1] : nil
            func fail(_ message: String) { errors.append(FieldError(field: field, rule: "selector", message: message)) }
            switch name {
            case "host", "clip", "status":
                guard let value, !value.isEmpty else {
                    fail("\(name) needs a value (\(name)=…)")
                    continue
                }
                // Every term must hold: a second host, clip or status would select nothing, or (kept last) the wrong ones.
                guard (name == "host" ? host : name == "clip" ? clip : status?.rawValue) == nil else {
                    fail("\(name) is given twice: an experience has one \(name)")
                    continue
                }
                if name == "host" {
                    host = value
                } else if name == "clip" {
                    clip = value
                } else {
                    do { status = try ExperienceStatus.parse(value.uppercased(), field: field) } catch { errors += error.errors }
                }
            case _ where name.hasPrefix("label."):
                labelTerms.append(String(name.dropFirst("label.".count)) + (value.map { "=" + $0 } ?? ""))
            default:
                fail(
                    "\"\(term.truncatedForMessage)\" is not a term: host=HOST, clip=CLIP, status=STATUS, label.KEY=VALUE or label.KEY, separated by commas"
                )
            }
        }
        do { labels = try LabelSelector(labelTerms, field: field) } catch { errors += error.errors }
        if errors.isEmpty && host == nil && clip == nil && status == nil && labels.isEmpty {
            errors.append(FieldError(field: field, rule: "selector", message: "selects nothing: give at least one term"))
        }
        guard errors.isEmpty else { throw ValidationFailure(errors) }
    }

    /// The selector as one text, its terms in a fixed order (host, clip, status, then labels by key) and every
    /// comma of a value written `\,`: what reads back to an equal selector.
    public var text: String {
        var terms: [String] = []
        if let host { terms.append("host=" + Self.escaped(host)) }
        if let clip { terms.append("clip=" + Self.escaped(clip)) }
        if let status { terms.append("status=" + status.rawValue.lowercased()) }
        for term in labels.terms.sorted(by: { ($0.key, $0.value ?? "") < ($1.key, $1.value ?? "") }) {
            terms.append("label." + term.key + (term.value.map { "=" + Self.escaped($0) } ?? ""))
        }
        return terms.joined(separator: ",")
    }

    /// `value` as a term writes it: each comma and backslash after a backslash (the reading `terms` undoes).
    public static func escaped(_ value: String) -> String {
        var out = ""
        for character in value {
            if character == "\\" || character == "," { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// Whether `experience` is one this selector names, its host and clip given as the registry stores them
    /// (a normalized host, a clip's App ID or bundle ID).
    public func matches(_ experience: AdvancedExperience) -> Bool {
        (host.map { $0 == experience.url.host } ?? true)
            && (clip.map { $0 == experience.clip.rawValue || $0 == experience.clip.bundleID.rawValue } ?? true)
            && (status.map { $0 == experience.status } ?? true) && labels.matches(experience.labels)
    }

    /// The terms of `text`: split at commas not written `\,`.
    static func terms(_ text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                // `\,` is a comma and `\\` a backslash; before anything else a backslash is itself.
                if character != "," && character != "\\" { current.append("\\") }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                terms.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        terms.append(current)
        return terms.filter { !$0.trimmingSpaces.isEmpty }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
