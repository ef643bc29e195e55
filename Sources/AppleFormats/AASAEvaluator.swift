import ClipCore
import Foundation  // Locale.Region.isoRegions / LanguageCode.isoLanguageCodes for $(region) and $(lang) (no I/O)
public import StrictJSON

/// Decides whether an AASA file's `applinks` give a URL to an app, with Apple's semantics
/// (docs/apple-formats.md#applinks, docs/apple-formats.md#pattern-matching; the conformance corpus's
/// semantics.md for what Apple leaves unsaid, each point settled against `swcutil`): ordered `details` and `components`, first match wins,
/// `exclude` stops the scan, `/` `?` `#` patterns with `*`, `?`, `?*`, query dictionaries,
/// `caseSensitive` and `percentEncoded` cascading from `applinks.defaults` through
/// `details[].defaults` to each component, substitution variables, and legacy `paths` with `NOT`.
public enum AASAEvaluator {
    public enum Decision: String, Sendable { case match, exclude, noMatch = "no_match" }

    public struct Result: Sendable, Equatable {
        public let decision: Decision
        /// Which rule decided ("details[0].components[2]", "details[1].paths[0]"), or why nothing did.
        public let rule: String
        public init(decision: Decision, rule: String) {
            self.decision = decision
            self.rule = rule
        }
    }

    struct Settings {
        var caseSensitive = true
        var percentEncoded = true

        func applying(_ object: JSONValue?) -> Settings {
            var s = self
            if let c = object?["caseSensitive"]?.boolValue { s.caseSensitive = c }
            if let p = object?["percentEncoded"]?.boolValue { s.percentEncoded = p }
            return s
        }
    }

    /// URL components as written (only scheme and host lower-cased, RFC 3986 §6.2.2.1).
    public struct URLParts: Sendable {
        public var host: String
        public var path: String
        public var query: String?
        public var fragment: String?

        public init?(_ url: String) {
            guard let schemeEnd = url.range(of: "://") else { return nil }
            var rest = Substring(url[schemeEnd.upperBound...])
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") { authority = authority[..<colon] }
            host = authority.lowercased()
            let p = String(rest[slash...])
            path = p.isEmpty ? "/" : p
        }
    }

    public static func evaluate(_ aasa: JSONValue, appID: String, url: String, domain: String = "") -> Result {
        guard let parts = URLParts(url) else { return Result(decision: .noMatch, rule: "the URL is not absolute") }
        if !domain.isEmpty, parts.host != domain.lowercased() {
            return Result(decision: .noMatch, rule: "the URL's host is not \(domain)")
        }
        guard let applinks = aasa["applinks"] else { return Result(decision: .noMatch, rule: "no applinks") }
        let base = Settings().applying(applinks["defaults"])
        let variables = customVariables(applinks["substitutionVariables"])

        // details: an array in order, or (oldest form) a dictionary keyed by App ID, in key order.
        var entries: [(label: String, entry: JSONValue, ids: [String])] = []
        if let array = applinks["details"]?.arrayValue {
            for (i, entry) in array.enumerated() {
                // Apple's swcutil reads `appIDs` when an entry has it, even empty, and then ignores `appID`.
                let ids =
                    entry["appIDs"] != nil
                    ? entry["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [] : entry["appID"]?.stringValue.map { [$0] } ?? []
                entries.append(("details[\(i)]", entry, ids))
            }
        } else if let members = applinks["details"]?.objectMembers {
            for member in members.sorted(by: { $0.key < $1.key }) {
                entries.append(("details[\"\(member.key)\"]", member.value, [member.key]))
            }
        }
        for (label, entry, ids) in entries where ids.contains(appID) {
            let settings = base.applying(entry["defaults"])
            if let components = entry["components"]?.arrayValue {
                for (i, component) in components.enumerated() where component.objectMembers != nil {
                    let s = settings.applying(component)
                    if matches(component, parts, s, variables) {
                        return Result(
                            decision: component["exclude"]?.boolValue == true ? .exclude : .match, rule: "\(label).components[\(i)]")
                    }
                }
            }
            if let paths = entry["paths"]?.arrayValue {
                for (i, value) in paths.enumerated() {
                    guard var pattern = value.stringValue else { continue }
                    let negated = pattern.hasPrefix("NOT ")
                    if negated { pattern = String(pattern.dropFirst(4)) }
                    if pathMatches(pattern, parts.path, Settings(), variables) {
                        return Result(decision: negated ? .exclude : .match, rule: "\(label).paths[\(i)]")
                    }
                }
            }
        }
        return Result(decision: .noMatch, rule: "no rule for \(appID) matches")
    }

    static func matches(_ component: JSONValue, _ url: URLParts, _ s: Settings, _ variables: [String: [String]]) -> Bool {
        if let path = component["/"]?.stringValue, !pathMatches(path, url.path, s, variables) { return false }
        if let fragment = component["#"]?.stringValue, !patternMatches(fragment, decode(url.fragment ?? "", s), s, variables) {
            return false
        }
        switch component["?"] {
        case .string(let pattern)?:
            if !patternMatches(pattern, decode(url.query ?? "", s), s, variables) { return false }
        case .object(let predicates)?:
            // A non-string predicate makes the system ignore the whole dictionary (semantics.md).
            guard predicates.allSatisfy({ $0.value.stringValue != nil }) else { break }
            let items = (url.query ?? "").split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
                let pieces = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (decode(String(pieces[0]), s), pieces.count > 1 ? decode(String(pieces[1]), s) : "")
            }
            for (name, value) in predicates {
                let pattern = value.stringValue!
                let values = items.filter { s.caseSensitive ? $0.0 == name : $0.0.lowercased() == name.lowercased() }.map(\.1)
                // A missing item counts as present and empty; every occurrence must match.
                if values.isEmpty {
                    if !patternMatches(pattern, "", s, variables) { return false }
                } else if !values.allSatisfy({ patternMatches(pattern, $0, s, variables) }) {
                    return false
                }
            }
        default: break
        }
        return true
    }

    /// Paths: a trailing run of slashes is insignificant, the pattern's leading slash is
    /// optional, and a pattern ending in "/*" also matches the path without that segment.
    static func pathMatches(_ pattern: String, _ path: String, _ s: Settings, _ variables: [String: [String]]) -> Bool {
        let subject = stripTrailingSlashes(decode(path, s))
        // The pattern's leading slashes are insignificant: "abc" and "//abc" both mean "/abc".
        var p = pattern
        if !p.hasPrefix("*") { p = "/" + String(p.drop { $0 == "/" }) }
        p = stripTrailingSlashes(p)
        if patternMatches(p, subject, s, variables) { return true }
        if p.hasSuffix("/*") { return patternMatches(String(p.dropLast(2)).isEmpty ? "/" : String(p.dropLast(2)), subject, s, variables) }
        return false
    }

    static func stripTrailingSlashes(_ s: String) -> String {
        var t = Substring(s)
        while t.count > 1, t.hasSuffix("/") { t = t.dropLast() }
        return String(t)
    }

    /// Percent-decodes when `percentEncoded` is false; invalid escapes are left as written.
    static func decode(_ text: String, _ s: Settings) -> String {
        guard !s.percentEncoded, text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if let decoded = PercentEncoding.escapedByte(utf8, at: i) {
                bytes.append(decoded)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }

    // MARK: Patterns: *, ?, and $(variable) alternatives, matched over characters as a set of positions.

    indirect enum Token { case literal(Character), one, any, alternatives([[Token]]) }

    static func tokenize(_ pattern: String, _ variables: [String: [String]], depth: Int = 0) -> [Token]? {
        var tokens: [Token] = []
        var chars = Array(pattern)[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            switch c {
            case "*": tokens.append(.any)
            case "?": tokens.append(.one)
            case "$" where chars.first == "(":
                guard let close = chars.firstIndex(of: ")") else { tokens.append(.literal("$")); continue }
                let name = String(chars[chars.index(after: chars.startIndex)..<close])
                chars = chars[chars.index(after: close)...]
                guard depth == 0, let values = variables[name] ?? predefined(name) else { return nil }
                tokens.append(.alternatives(values.compactMap { tokenize($0, [:], depth: 1) }))
            default: tokens.append(.literal(c))
            }
        }
        return tokens
    }

    static func predefined(_ name: String) -> [String]? {
        let upper = (65...90).map { String(UnicodeScalar(UInt8($0))) }
        let lower = (97...122).map { String(UnicodeScalar(UInt8($0))) }
        let digits = (48...57).map { String(UnicodeScalar(UInt8($0))) }
        switch name {
        case "alpha": return upper + lower
        case "upper": return upper
        case "lower": return lower
        case "alnum": return upper + lower + digits
        case "digit": return digits
        case "xdigit": return digits + ["A", "B", "C", "D", "E", "F", "a", "b", "c", "d", "e", "f"]
        // The same lists, in the same order, as the deprecated Locale.isoRegionCodes / isoLanguageCodes.
        case "region": return Locale.Region.isoRegions.map(\.identifier)
        case "lang": return Locale.LanguageCode.isoLanguageCodes.map(\.identifier)
        default: return nil
        }
    }

    static func customVariables(_ value: JSONValue?) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (name, list) in value?.objectMembers ?? [] {
            result[name] = list.arrayValue?.compactMap(\.stringValue)
        }
        return result
    }

    static func patternMatches(_ pattern: String, _ text: String, _ s: Settings, _ variables: [String: [String]]) -> Bool {
        // `doctor` checks every URL of a host against every component of its AASA, so with generated applinks this runs
        // experiences² times: most pairs are told apart by their first bytes, before the pattern is tokenized.
        if s.caseSensitive, lacksLiteralPrefix(text, of: pattern) { return false }
        guard let tokens = tokenize(pattern, variables) else { return false }
        let subject = Array(s.caseSensitive ? text : text.lowercased())
        let ends = advance(tokens, from: [0], subject, s)
        return ends.contains(subject.count)
    }

    /// Whether `text` certainly does not start with the literal characters `pattern` starts with (those before its first
    /// `*`, `?` or `$`). Decided on ASCII bytes only, each of which is a whole Character on both sides; at the first
    /// other byte it says false and leaves the answer to the tokens (a non-ASCII Character may equal another spelling).
    static func lacksLiteralPrefix(_ text: String, of pattern: String) -> Bool {
        var subject = text.utf8.makeIterator()
        for p in pattern.utf8 {
            if p == UInt8(ascii: "*") || p == UInt8(ascii: "?") || p == UInt8(ascii: "$") || p >= 0x80 { return false }
            guard let b = subject.next() else { return true }
            if b >= 0x80 { return false }
            if b != p { return true }
        }
        return false
    }

    /// The positions reachable after `tokens`, starting from `starts`.
    static func advance(_ tokens: [Token], from starts: Set<Int>, _ subject: [Character], _ s: Settings) -> Set<Int> {
        var current = starts
        for token in tokens {
            guard !current.isEmpty else { return [] }
            var next = Set<Int>()
            switch token {
            case .literal(let c):
                let wanted = s.caseSensitive ? c : Character(String(c).lowercased())
                for p in current where p < subject.count && subject[p] == wanted { next.insert(p + 1) }
            case .one:
                for p in current where p < subject.count { next.insert(p + 1) }
            case .any:
                next = Set(current.min()!...subject.count)
            case .alternatives(let alternatives):
                for alternative in alternatives { next.formUnion(advance(alternative, from: current, subject, s)) }
            }
            current = next
        }
        return current
    }
}
