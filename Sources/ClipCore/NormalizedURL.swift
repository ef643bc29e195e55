/// An https URL normalized by the rules of docs/rules.md#url-normalization, used for registered and invocation
/// URLs alike, so that two spellings of one URL compare equal:
///
/// - scheme `https` only; no userinfo; no port other than 443 (dropped);
/// - host lower-cased, IDNA/Punycode, trailing dot dropped (`DomainName`);
/// - path: percent-encoding normalized (RFC 3986 §6.2.2.1–2: hex upper-cased, unreserved
///   characters decoded, nothing else decoded; bytes that may not appear raw are encoded),
///   dot segments removed (RFC 3986 §5.2.4), empty path ≡ "/", a trailing "/" insignificant;
///   case-sensitive;
/// - query: a list of `name=value` items, each percent-normalized like the path;
/// - fragment: dropped (it plays no part in matching).
public struct NormalizedURL: Hashable, Sendable, CustomStringConvertible {
    public struct QueryItem: Hashable, Sendable, Comparable {
        public let name: String
        /// nil when the item had no "=" (`?flag`); matches like an empty value.
        public let value: String?
        public var matchKey: String { "\(name)=\(value ?? "")" }
        public var text: String { value.map { "\(name)=\($0)" } ?? name }
        public static func < (a: QueryItem, b: QueryItem) -> Bool { a.text < b.text }
        // `matchKey` equality without building it: a missing value matches an empty one.
        public static func == (a: QueryItem, b: QueryItem) -> Bool { a.name == b.name && (a.value ?? "") == (b.value ?? "") }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(value ?? "")
        }
    }

    public let host: String
    /// Starts with "/", never ends with "/" unless it is "/".
    public let path: String
    /// In the order given.
    public let queryItems: [QueryItem]
    public let hadFragment: Bool

    /// The canonical text: query items sorted and de-duplicated, since a registered query is a
    /// set of required items (docs/rules.md#query-items). This is the identity of a registered URL.
    public let canonical: String

    static func canonicalText(host: String, path: String, queryItems: [QueryItem]) -> String {
        var s = "https://" + host + path
        guard !queryItems.isEmpty else { return s }
        // Sorted, then the first by text of equal items ("flag" before "flag="), so that the
        // order they came in makes no difference.
        var items = queryItems
        if items.count > 1 {
            var seen = Set<QueryItem>()
            items = items.sorted().filter { seen.insert($0).inserted }
        }
        s += "?" + items.map(\.text).joined(separator: "&")
        return s
    }

    public var description: String { canonical }

    /// Two URLs are equal when their canonical forms are: query item order and repeats, and a
    /// fragment, make no difference to matching.
    public static func == (a: NormalizedURL, b: NormalizedURL) -> Bool { a.canonical == b.canonical }
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }

    public enum Problem: Error, Equatable, Sendable {
        case empty, tooLong, notAbsolute, scheme(String), userinfo, port(String), host(DomainName.Problem),
            controlCharacter, badPercentEncoding, fragmentNotAllowed

        public var rule: String {
            switch self {
            case .empty, .notAbsolute, .controlCharacter, .tooLong: "url.format"
            case .scheme: "url.scheme"
            case .userinfo: "url.userinfo"
            case .port: "url.port"
            case .host: "url.host"
            case .badPercentEncoding: "url.percentEncoding"
            case .fragmentNotAllowed: "url.fragment"
            }
        }

        public var message: String {
            switch self {
            case .empty: "the URL is empty"
            case .tooLong: "the URL is longer than \(NormalizedURL.maxLength) bytes"
            case .notAbsolute: "not an absolute URL: it must start with https://"
            case .scheme(let s): "the scheme must be https, not \"\(s.truncatedForMessage)\""
            case .userinfo: "a URL with user information (user@) is not allowed"
            case .port(let p): "no port other than 443 is allowed (got \"\(p.truncatedForMessage)\")"
            case .host(let problem): problem.message
            case .controlCharacter: "the URL contains control characters or spaces in the host"
            case .badPercentEncoding: "a '%' must be followed by two hexadecimal digits"
            case .fragmentNotAllowed: "a registered URL cannot have a #fragment: it plays no part in matching"
            }
        }

        public func fieldError(_ field: String = "url") -> FieldError {
            FieldError(field: field, rule: rule, message: message)
        }
    }

    /// Longer URLs are refused (a generous bound; browsers and CDNs vary around 8 KiB).
    public static let maxLength = 4096

    /// A URL already in canonical form, as the registry stores it: split, not normalized again
    /// (loading a million of them must be quick). Anything else takes the full rules.
    public init(canonical text: String) throws(Problem) {
        let bytes = text.utf8
        guard text.hasPrefix("https://"), !bytes.contains(UInt8(ascii: "#")) else {
            try self.init(text, allowFragment: false)
            return
        }
        let rest = bytes.dropFirst(8)
        let hostEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let queryStart = rest[hostEnd...].firstIndex(of: UInt8(ascii: "?"))
        let hostText = String(Substring(rest[..<hostEnd]))
        let pathText = String(Substring(rest[hostEnd..<(queryStart ?? rest.endIndex)]))
        var items: [QueryItem] = []
        if let queryStart {
            for item in rest[rest.index(after: queryStart)...].split(separator: UInt8(ascii: "&")) {
                if let eq = item.firstIndex(of: UInt8(ascii: "=")) {
                    items.append(QueryItem(name: String(Substring(item[..<eq])), value: String(Substring(item[item.index(after: eq)...]))))
                } else {
                    items.append(QueryItem(name: String(Substring(item)), value: nil))
                }
            }
        }
        let path = pathText.isEmpty ? "/" : pathText
        // Trust, but check: what was split must put together to the same text.
        guard !hostText.isEmpty, Self.canonicalText(host: hostText, path: path, queryItems: items) == text else {
            try self.init(text, allowFragment: false)
            return
        }
        self.init(host: hostText, path: path, queryItems: items, canonical: text)
    }

    private init(host: String, path: String, queryItems: [QueryItem], canonical: String) {
        self.host = host
        self.path = path
        self.queryItems = queryItems
        self.canonical = canonical
        hadFragment = false
    }

    /// Normalizes `string`. With `allowFragment == false` (registration) a fragment is refused.
    public init(_ string: String, allowFragment: Bool = true) throws(Problem) {
        var bytes = Array(string.utf8)
        // WHATWG URL: leading and trailing C0 controls and spaces are stripped.
        while let last = bytes.last, last <= 0x20 { bytes.removeLast() }
        let start = bytes.firstIndex(where: { $0 > 0x20 }) ?? bytes.count
        bytes.removeFirst(start)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maxLength else { throw .tooLong }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .controlCharacter }

        // scheme ":" (RFC 3986 §3.1)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]),
            bytes[..<colon].allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { throw .notAbsolute }
        let scheme = String(decoding: bytes[..<colon].map { $0 | 0x20 }, as: UTF8.self)
        guard scheme == "https" else { throw .scheme(String(decoding: bytes[..<colon], as: UTF8.self)) }
        guard bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            throw .notAbsolute
        }

        // authority = [ userinfo "@" ] host [ ":" port ]   (RFC 3986 §3.2)
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count,
            ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\\")].contains(bytes[authorityEnd])
        {
            authorityEnd += 1
        }
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .userinfo }
        var hostBytes = authority
        if let portColon = authority.lastIndex(of: UInt8(ascii: ":")),
            !authority.contains(UInt8(ascii: "]")) || portColon > authority.lastIndex(of: UInt8(ascii: "]"))!
        {
            let port = authority[(portColon + 1)...]
            // RFC 3986 §3.2.3: an empty port, or the scheme's default, is the same as none.
            let digits = port.drop { $0 == UInt8(ascii: "0") }
            guard port.isEmpty || (port.allSatisfy(isDigit) && Array(digits) == Array("443".utf8)) else {
                throw .port(String(decoding: port, as: UTF8.self))
            }
            hostBytes = authority[..<portColon]
        }
        guard !hostBytes.contains(where: { $0 == 0x20 || $0 == UInt8(ascii: "%") }) else {
            throw .host(.invalidCharacter(String(decoding: hostBytes, as: UTF8.self)))
        }
        guard let hostString = String(validating: hostBytes, as: UTF8.self) else { throw .host(.invalidCharacter("")) }
        do { host = try DomainName.normalize(hostString) } catch { throw .host(error) }

        // path, query, fragment
        var index = authorityEnd
        var pathEnd = index
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        path = try Self.normalizePath(bytes[index..<pathEnd])
        index = pathEnd
        var items: [QueryItem] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            var queryEnd = index + 1
            while queryEnd < bytes.count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            for item in bytes[(index + 1)..<queryEnd].split(separator: UInt8(ascii: "&")) where !item.isEmpty {
                if let eq = item.firstIndex(of: UInt8(ascii: "=")) {
                    items.append(
                        QueryItem(
                            name: try Self.normalizePercent(item[..<eq], allowed: Self.isQueryByte),
                            value: try Self.normalizePercent(item[(eq + 1)...], allowed: Self.isQueryByte)))
                } else {
                    items.append(QueryItem(name: try Self.normalizePercent(item, allowed: Self.isQueryByte), value: nil))
                }
            }
            index = queryEnd
        }
        queryItems = items
        canonical = Self.canonicalText(host: host, path: path, queryItems: items)
        hadFragment = index < bytes.count
        if hadFragment && !allowFragment { throw .fragmentNotAllowed }
        // Percent-encoding can triple the length: the normalized form must fit the limit too,
        // or a URL accepted now could not be read back (found by the url fuzz target).
        if canonical.utf8.count > Self.maxLength { throw .tooLong }
    }

    // RFC 3986 §2.3 unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
    static func isUnreserved(_ b: UInt8) -> Bool {
        isAlnum(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    // RFC 3986 §2.2 sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
    static func isSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    // RFC 3986 §3.3 pchar = unreserved / pct-encoded / sub-delims / ":" / "@"; plus "/" between segments.
    static func isPathByte(_ b: UInt8) -> Bool {
        isUnreserved(b) || isSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@") || b == UInt8(ascii: "/")
    }

    // RFC 3986 §3.4 query = *( pchar / "/" / "?" ), less "&" and "=" which delimit items here.
    static func isQueryByte(_ b: UInt8) -> Bool {
        (isPathByte(b) || b == UInt8(ascii: "?")) && b != UInt8(ascii: "&") && b != UInt8(ascii: "=")
    }

    /// RFC 3986 §6.2.2.1–2: percent-encodings of unreserved characters are decoded, others get
    /// upper-case hex; a byte that may not appear raw (space, non-ASCII, '"', '<', …) is encoded.
    static func normalizePercent(_ bytes: ArraySlice<UInt8>, allowed: (UInt8) -> Bool) throws(Problem) -> String {
        // Usually nothing to change: every byte allowed as is, no escape to normalize.
        if bytes.allSatisfy({ allowed($0) && $0 != UInt8(ascii: "%") }) { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard let decoded = PercentEncoding.escapedByte(bytes, at: i) else { throw .badPercentEncoding }
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    PercentEncoding.appendEscape(decoded, to: &out)
                }
                i += 3
            } else if allowed(b) {
                out.append(b)
                i += 1
            } else {
                PercentEncoding.appendEscape(b, to: &out)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func normalizePath(_ raw: ArraySlice<UInt8>) throws(Problem) -> String {
        // The common case: plain bytes, no escape, no backslash and no dot segment to remove.
        if let fast = plainPath(raw) { return fast }
        // WHATWG URL treats "\" as "/" in https URLs; do the same so both spellings agree.
        let slashed = ArraySlice(raw.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 })
        let encoded = try normalizePercent(slashed, allowed: isPathByte)
        var segments = removeDotSegments(encoded.isEmpty ? "/" : encoded)
        while segments.count > 1, segments.hasSuffix("/") { segments.removeLast() }
        return segments
    }

    /// `raw` as its own normal form when it needs no change but trailing slashes dropped.
    static func plainPath(_ raw: ArraySlice<UInt8>) -> String? {
        var end = raw.endIndex
        while end > raw.startIndex + 1, raw[end - 1] == UInt8(ascii: "/") { end -= 1 }
        if raw.isEmpty || end == raw.startIndex + 1 && raw.first == UInt8(ascii: "/") { return "/" }
        guard raw.first == UInt8(ascii: "/") else { return nil }
        var previous: UInt8 = 0
        for b in raw[..<end] {
            guard isPathByte(b), !(b == UInt8(ascii: ".") && previous == UInt8(ascii: "/")) else { return nil }
            previous = b
        }
        return String(decoding: raw[..<end], as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 remove_dot_segments, on an absolute path.
    static func removeDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (i, segment) in parts.enumerated() {
            let isLast = i == parts.count - 1
            if segment == "." {
                if isLast { output.append("") }
            } else if segment == ".." {
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            } else {
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
