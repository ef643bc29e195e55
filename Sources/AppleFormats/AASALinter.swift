public import ClipCore
import FileFormats
import StrictJSON

/// Lints an AASA file: each problem with a stable code, a severity, a location and a message.
/// Codes follow the conformance corpus's diagnostics.md (AASA###), so that CI can check codes.
public enum AASALinter {
    public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
        public let code: String
        public let severity: Severity
        public let path: String
        public let message: String
        public var description: String { "\(severity.rawValue) \(code) \(path): \(message)" }
    }

    static let services: Set<String> = ["applinks", "appclips", "webcredentials", "activitycontinuation"]

    /// The findings for `bytes`, most severe first, then by path. Before the JSON: an empty file
    /// (AASA005), a CMS/PKCS#7-signed file (AASA006; its signed JSON payload is linted too) and a
    /// UTF-8 byte order mark (AASA007) are named for what they are (codes of ours; the corpus's
    /// diagnostics.md has none for them).
    public static func lint(_ bytes: [UInt8]) -> [Diagnostic] {
        if let findings = lintWrapping(bytes) { return findings }
        let document: JSONValue
        do {
            document = try JSONParser.parse(
                bytes,
                limits: {
                    var l = JSONParser.Limits(); l.maxDepth = 128; return l
                }())
        } catch {
            return [Diagnostic(code: "AASA001", severity: .error, path: "", message: "not valid JSON: \(error.description)")]
        }
        guard let root = document.objectMembers else {
            return [Diagnostic(code: "AASA002", severity: .error, path: "", message: "the root is not a JSON object")]
        }
        var out: [Diagnostic] = []
        func add(_ code: String, _ severity: Severity, _ path: String, _ message: String) {
            out.append(Diagnostic(code: code, severity: severity, path: path, message: message))
        }
        checkServices(document, root: root, add)
        if let applinks = document["applinks"] { checkApplinks(applinks, in: document, add) }
        return sorted(out)
    }

    /// What the bytes are before they are JSON: empty or whitespace (AASA005), a signed file (AASA006),
    /// a byte order mark (AASA007), over the size limit (AASA170); nil when none of these.
    static func lintWrapping(_ bytes: [UInt8]) -> [Diagnostic]? {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            return [
                Diagnostic(
                    code: "AASA005", severity: .error, path: "",
                    message: bytes.isEmpty ? "the file is empty" : "the file holds only whitespace")
            ]
        }
        if let signed = SignedAASA.detect(bytes) {
            // Apple: "iOS 9 and later … you don't need to sign it" (plain JSON since iOS 9; the
            // signed form was for iOS 8). Tell the owner, then lint what is inside.
            let note = "a CMS (PKCS#7) signed file\(signed.pem ? " in PEM" : ""), the iOS 8 form: serve the plain JSON payload instead"
            guard let payload = signed.payload else {
                return [Diagnostic(code: "AASA006", severity: .error, path: "", message: "\(note) (no JSON payload found inside)")]
            }
            return sorted(
                [Diagnostic(code: "AASA006", severity: .warning, path: "", message: note + "; the payload was linted")] + lint(payload))
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
            || (bytes.count >= 2 && (bytes[0] == 0 || bytes[1] == 0))
        {
            // RFC 8259 §8.1: JSON exchanged between systems "MUST be encoded using UTF-8".
            return [
                Diagnostic(
                    code: "AASA008", severity: .error, path: "",
                    message:
                        "is UTF-16 or UTF-32 (a byte order mark or NUL bytes), not UTF-8 as JSON must be (RFC 8259 §8.1); save it as UTF-8")
            ]
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            // RFC 8259 §8.1: implementations "MUST NOT add a byte order mark"; parsers may ignore it.
            return sorted(
                [
                    Diagnostic(
                        code: "AASA007", severity: .warning, path: "",
                        message: "starts with a UTF-8 byte order mark, which JSON forbids (RFC 8259 §8.1); remove it")
                ]
                    + lint(Array(bytes.dropFirst(3))))
        }
        if bytes.count > AASAGenerator.maxBytes {
            return [
                Diagnostic(
                    code: "AASA170", severity: .error, path: "", message: "the file is \(bytes.count) bytes, over Apple's 128 KB limit")
            ]
        }
        return nil
    }

    /// The top level: at least one Associated Domains service, unknown keys, and the App ID lists of
    /// appclips, webcredentials and activitycontinuation.
    static func checkServices(_ document: JSONValue, root: [(key: String, value: JSONValue)], _ add: Add) {
        if !root.contains(where: { services.contains($0.key) }) {
            add("AASA100", .warning, "", "no Associated Domains service (applinks, appclips, webcredentials, activitycontinuation)")
        }
        for member in root where !services.contains(member.key) {
            add("AASA101", .info, member.key, "unknown top-level key, ignored (as Apple ignores it)")
        }
        for service in ["appclips", "webcredentials", "activitycontinuation"] {
            guard let section = document[service] else { continue }
            guard let apps = section["apps"]?.arrayValue else {
                add("AASA004", .error, "\(service).apps", "expected an array of App IDs"); continue
            }
            checkIDs(apps, path: "\(service).apps", add)
        }
    }

    /// The applinks section: its legacy apps array, defaults, substitution variables and details.
    static func checkApplinks(_ applinks: JSONValue, in document: JSONValue, _ add: Add) {
        guard applinks.objectMembers != nil else { add("AASA004", .error, "applinks", "expected an object"); return }
        if let apps = applinks["apps"]?.arrayValue, !apps.isEmpty {
            add("AASA122", .warning, "applinks.apps", "the legacy apps array must be empty")
        }
        if let defaults = applinks["defaults"] { checkDefaults(defaults, path: "applinks.defaults", add) }
        let variables = checkSubstitutionVariables(applinks, add)
        let details = detailsEntries(applinks, add)
        // A host that exists for its App Clips (appclips.apps listed) needs no details: the
        // warning is for a file whose applinks section is its whole purpose.
        let servesClips = !(document["appclips"]?["apps"]?.arrayValue ?? []).isEmpty
        if details.isEmpty && !servesClips {
            add("AASA193", .warning, "applinks.details", "no details: no app can open links on this domain")
        }
        var seenIDs: [String: String] = [:]
        for (path, entry) in details {
            checkDetail(entry, path: path, variables: variables, seenIDs: &seenIDs, add)
        }
    }

    /// applinks.substitutionVariables: names, values; the names defined, for the patterns' references.
    static func checkSubstitutionVariables(_ applinks: JSONValue, _ add: Add) -> Set<String> {
        var variables: Set<String> = []
        guard let members = applinks["substitutionVariables"]?.objectMembers else { return variables }
        for (name, values) in members {
            let path = "applinks.substitutionVariables.\(name)"
            variables.insert(name)
            if name.contains(where: { $0 == "$" || $0 == "(" || $0 == ")" }) {
                add("AASA140", .error, path, "a variable name cannot contain $, ( or )")
            }
            if ApplinksValidator.predefinedVariables.contains(name) {
                add("AASA144", .warning, path, "shadows the predefined variable $(\(name))")
            }
            guard let list = values.arrayValue else { add("AASA004", .error, path, "expected an array of strings"); continue }
            if list.isEmpty { add("AASA143", .warning, path, "has no values, so it can never match") }
            for (i, value) in list.enumerated() {
                guard let s = value.stringValue else { add("AASA004", .error, "\(path)[\(i)]", "expected a string"); continue }
                if s.contains("$(") {
                    add("AASA141", .error, "\(path)[\(i)]", "a value cannot reference another substitution variable")
                }
                if s.isEmpty { add("AASA194", .warning, "\(path)[\(i)]", "an empty alternative") }
            }
        }
        return variables
    }

    /// applinks.details with each entry's path: the array form, or the legacy dictionary form by key (AASA121).
    static func detailsEntries(_ applinks: JSONValue, _ add: Add) -> [(path: String, entry: JSONValue)] {
        switch applinks["details"] {
        case .array(let array)?: return array.enumerated().map { ("applinks.details[\($0.offset)]", $0.element) }
        case .object(let members)?:
            add(
                "AASA121", .warning, "applinks.details",
                "the legacy dictionary form of details: migrate to an array (order is undefined here)")
            return members.sorted { $0.key < $1.key }.map { ("applinks.details.\($0.key)", $0.value) }
        case nil: return []
        default:
            add("AASA004", .error, "applinks.details", "expected an array")
            return []
        }
    }

    /// One details entry: its App IDs (each once in the file), defaults, components and legacy paths.
    static func checkDetail(
        _ entry: JSONValue, path: String, variables: Set<String>, seenIDs: inout [String: String], _ add: Add
    ) {
        guard entry.objectMembers != nil else { add("AASA004", .error, path, "expected an object"); return }
        var ids: [JSONValue] = entry["appIDs"]?.arrayValue ?? []
        if let single = entry["appID"] { ids.append(single) }
        let isLegacyKeyed = !path.hasSuffix("]")
        if entry["appID"] == nil && entry["appIDs"] == nil && !isLegacyKeyed {
            add("AASA110", .error, path, "has neither appID nor appIDs")
        }
        if entry["appID"] != nil && entry["appIDs"] != nil {
            add("AASA111", .warning, path, "sets both appID and appIDs: Apple reads appIDs and ignores appID")
        }
        checkIDs(ids, path: "\(path).appIDs", add)
        for id in ids.compactMap(\.stringValue) where !id.isEmpty {
            if let earlier = seenIDs[id] {
                add("AASA160", .warning, path, "\(id) already appears in \(earlier)")
            } else {
                seenIDs[id] = path
            }
        }
        if entry["components"] != nil && entry["paths"] != nil {
            add("AASA120", .warning, path, "mixes components with legacy paths (don't mix the formats, TN3155)")
        }
        if let defaults = entry["defaults"] { checkDefaults(defaults, path: "\(path).defaults", add) }
        if let components = entry["components"]?.arrayValue {
            checkComponents(components, path: path, variables: variables, add)
        }
        if let paths = entry["paths"]?.arrayValue {
            for (i, p) in paths.enumerated() {
                guard let s = p.stringValue else { add("AASA004", .error, "\(path).paths[\(i)]", "expected a string"); continue }
                checkPattern(s.hasPrefix("NOT ") ? String(s.dropFirst(4)) : s, path: "\(path).paths[\(i)]", variables: variables, add)
            }
        }
    }

    /// A details entry's components, in order: their patterns, and the first that matches every URL
    /// (AASA180), which makes every later one unreachable (AASA190).
    static func checkComponents(_ components: [JSONValue], path: String, variables: Set<String>, _ add: Add) {
        var catchAll: String?
        for (i, component) in components.enumerated() {
            let cpath = "\(path).components[\(i)]"
            guard component.objectMembers != nil else { add("AASA004", .error, cpath, "expected an object"); continue }
            if let shadow = catchAll { add("AASA190", .warning, cpath, "unreachable: \(shadow) always matches first") }
            checkComponentPatterns(component, path: cpath, variables: variables, add)
            let constrains = ["/", "?", "#"].contains { key in
                guard let v = component[key] else { return false }
                if let s = v.stringValue { return s != "*" && s != "/*" }
                return true
            }
            if !constrains && catchAll == nil && component["exclude"]?.boolValue != true {
                add("AASA180", .warning, cpath, "constrains nothing and matches every URL")
                catchAll = cpath
            }
        }
    }

    /// A component's path ("/"), fragment ("#") and query ("?": one pattern or a dictionary of them).
    static func checkComponentPatterns(_ component: JSONValue, path cpath: String, variables: Set<String>, _ add: Add) {
        for key in ["/", "#"] {
            if let pattern = component[key] {
                guard let s = pattern.stringValue else {
                    add("AASA004", .error, "\(cpath).\(key)", "expected a string pattern"); continue
                }
                checkPattern(s, path: "\(cpath).\(key)", variables: variables, add)
            }
        }
        switch component["?"] {
        case .string(let s)?: checkPattern(s, path: "\(cpath).?", variables: variables, add)
        case .object(let items)?:
            for item in items {
                if let s = item.value.stringValue {
                    checkPattern(s, path: "\(cpath).?.\(item.key)", variables: variables, add)
                } else {
                    add(
                        "AASA150", .error, "\(cpath).?.\(item.key)",
                        "not a string pattern: Apple then ignores the whole query dictionary, so the rule matches far more than meant"
                    )
                }
            }
        case nil: break
        default: add("AASA004", .error, "\(cpath).?", "expected a string or a dictionary of strings")
        }
    }

    /// Records one finding: code, severity, path, message.
    typealias Add = (String, Severity, String, String) -> Void

    static func sorted(_ d: [Diagnostic]) -> [Diagnostic] {
        d.sorted { $0.severity != $1.severity ? $0.severity < $1.severity : ($0.path, $0.code) < ($1.path, $1.code) }
    }

    static func checkIDs(_ ids: [JSONValue], path: String, _ add: Add) {
        for (i, id) in ids.enumerated() {
            guard let s = id.stringValue else { add("AASA004", .error, "\(path)[\(i)]", "expected a string"); continue }
            if s.isEmpty { add("AASA130", .error, "\(path)[\(i)]", "an empty application identifier"); continue }
            if (try? AppID(s)) == nil {
                add("AASA131", .warning, "\(path)[\(i)]", "\"\(s.truncatedForMessage)\" is not TEAMID.bundle.id shaped")
            }
        }
    }

    static func checkDefaults(_ defaults: JSONValue, path: String, _ add: Add) {
        guard let members = defaults.objectMembers else { add("AASA004", .error, path, "expected an object"); return }
        for member in members {
            switch member.key {
            case "caseSensitive", "percentEncoded":
                if member.value.boolValue == nil { add("AASA004", .error, "\(path).\(member.key)", "expected true or false") }
            case "/", "?", "#": add("AASA192", .info, "\(path).\(member.key)", "a pattern key in defaults has undocumented behaviour")
            default: break
            }
        }
    }

    static func checkPattern(_ pattern: String, path: String, variables: Set<String>, _ add: Add) {
        let (names, unterminated) = ApplinksValidator.variableReferences(in: pattern)
        for name in names where !variables.contains(name) && !ApplinksValidator.predefinedVariables.contains(name) {
            add("AASA142", .error, path, "$(\(name.truncatedForMessage)) is not defined: the pattern never matches")
        }
        if unterminated {
            add("AASA151", .error, path, "an unterminated $( in \"\(pattern.truncatedForMessage)\": the pattern never matches")
        }
    }
}

/// Recognizes a CMS (PKCS#7, RFC 5652) SignedData file, DER or PEM, and takes out its
/// encapsulated content: ContentInfo ::= SEQUENCE { OID 1.2.840.113549.1.7.2, [0] EXPLICIT
/// SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE
/// { eContentType OID, [0] EXPLICIT OCTET STRING } … } }.
enum SignedAASA {
    struct Found { let pem: Bool; let payload: [UInt8]? }
    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    static func detect(_ bytes: [UInt8]) -> Found? {
        if bytes.first == 0x30, bytes.count > 16, bytes[..<min(bytes.count, 24)].firstRange(of: signedDataOID) != nil {
            return Found(pem: false, payload: payload(bytes))
        }
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        if text.hasPrefix("-----BEGIN PKCS7-----") || text.hasPrefix("-----BEGIN CMS-----") {
            let body = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Base64.decode(body, ignoringWhitespace: true) else { return Found(pem: true, payload: nil) }
            return Found(pem: true, payload: payload(der))
        }
        return nil
    }

    /// One DER element at `i`: (tag, content range, end), or nil when malformed.
    static func element(_ b: [UInt8], _ i: Int) -> (tag: UInt8, content: Range<Int>, end: Int)? {
        guard i + 2 <= b.count else { return nil }
        var length = Int(b[i + 1]), start = i + 2
        if length & 0x80 != 0 {
            let n = length & 0x7F
            guard n >= 1, n <= 4, start + n <= b.count else { return nil }
            length = b[start..<start + n].reduce(0) { $0 << 8 | Int($1) }
            start += n
        }
        guard start + length <= b.count else { return nil }
        return (b[i], start..<start + length, start + length)
    }

    static func payload(_ b: [UInt8]) -> [UInt8]? {
        guard let info = element(b, 0), info.tag == 0x30,
            let oid = element(b, info.content.lowerBound), oid.tag == 0x06,
            let explicit = element(b, oid.end), explicit.tag == 0xA0,
            let signedData = element(b, explicit.content.lowerBound), signedData.tag == 0x30,
            let version = element(b, signedData.content.lowerBound), version.tag == 0x02,
            let digests = element(b, version.end), digests.tag == 0x31,
            let encap = element(b, digests.end), encap.tag == 0x30,
            let type = element(b, encap.content.lowerBound), type.tag == 0x06,
            let content = element(b, type.end), content.tag == 0xA0,
            let octets = element(b, content.content.lowerBound), octets.tag == 0x04
        else { return nil }
        return Array(b[octets.content])
    }

}
