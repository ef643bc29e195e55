/// Header fields in order, duplicates kept; names compared case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    public func all(_ name: String) -> [String] { fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value) }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field of that name.
    public mutating func set(_ name: String, _ value: String) {
        // Most answers set fields they do not have yet: look before rewriting the array.
        if fields.contains(where: { $0.name.caseInsensitiveEquals(name) }) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }
        fields.append((name, value))
    }

    public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// True when a comma-separated header lists `token` (case-insensitive), e.g. Connection: close.
    /// Scans the values in place (no arrays or substrings: this runs for every request and answer).
    public func contains(_ name: String, token: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) && Self.list($0.value, contains: token) }
    }

    /// Whether the comma-separated `value` (RFC 9110 §5.6.1, OWS around elements) has an element equal to
    /// `token`, case-insensitively.
    static func list(_ value: String, contains token: String) -> Bool {
        var value = value, token = token
        return value.withUTF8 { v in token.withUTF8 { t in list(v, contains: t) } }
    }

    /// `list(_:contains:)` over bytes (the request head parser reads `Connection` in place).
    static func list(_ bytes: UnsafeBufferPointer<UInt8>, contains wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            var first = start, last = end
            while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
            if bytes[first..<last].caseInsensitiveEquals(wanted) { return true }
            guard end < bytes.count else { return false }
            start = end + 1
        }
        return false
    }
}

extension Collection<UInt8> {
    /// ASCII case-insensitive equality of two byte strings (RFC 9110 §5.1 field names, tokens).
    func caseInsensitiveEquals(_ other: some Collection<UInt8>) -> Bool {
        guard count == other.count else { return false }
        return zip(self, other).allSatisfy { x, y in x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A) }
    }
}

extension StringProtocol {
    func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        // Over contiguous UTF-8 when both have it (native strings do): the UTF8View iterators were 5%
        // of an AASA request's instructions under callgrind (header lookups by name).
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in a.caseInsensitiveEquals(b) }
        }
        return (fast ?? nil) ?? utf8.caseInsensitiveEquals(other.utf8)
    }

    /// RFC 9110 §5.6.3: optional whitespace is SP / HTAB.
    func trimmingOWS() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

public struct HTTPRequest: Sendable {
    public var method: String
    /// The request-target as sent (origin-form: path and query).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Set by the server from the connection (for logs).
    public var remoteAddress: String = ""
    /// Whether the client has closed its connection (or reset it) while its request is answered: work
    /// that would only answer it may stop. Set by the server; false for a request made by hand.
    public var clientGone: @Sendable () -> Bool = { false }

    public init(method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The path part of the target, still percent-encoded.
    public var path: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The raw query (after "?"), or nil.
    public var query: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }
}

public enum HTTPVersion: Sendable, Equatable {
    case http10, http11
    public var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, body: [UInt8]) {
        self.init(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: body)
    }

    public init(status: Int, text: String) {
        self.init(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}

/// Reason phrases (RFC 9110 §15).
public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// An entity tag (RFC 9110 §8.8.3): `"opaque"` or weak `W/"opaque"`.
public struct EntityTag: Equatable, Sendable {
    /// The tag between its quotes.
    public let opaque: Substring
    public let isWeak: Bool
}

/// The value of `If-Match` or `If-None-Match` (RFC 9110 §13.1.1, §13.1.2).
public enum EntityTagCondition: Equatable, Sendable {
    /// `*`: any current representation.
    case any
    /// The listed tags; empty when the value is not a well-formed list (so it matches nothing).
    case tags([EntityTag])
}

extension HTTPHeaders {
    /// Every field named `name` as one list (RFC 9110 §5.3: repeated fields combine with commas),
    /// read as `*` or `#entity-tag`; nil when there is no such field.
    public func entityTagCondition(_ name: String) -> EntityTagCondition? {
        // Asked of every cacheable answer, which nearly always has no such field: no array then.
        guard fields.contains(where: { $0.name.caseInsensitiveEquals(name) }) else { return nil }
        let values = all(name)
        let combined = values.joined(separator: ",")
        if combined.trimmingOWS() == "*" { return .any }
        var tags: [EntityTag] = []
        var rest = Substring(combined)
        while true {
            // #rule: empty elements and OWS around commas are allowed (RFC 9110 §5.6.1).
            while let first = rest.first, first == " " || first == "\t" || first == "," { rest.removeFirst() }
            if rest.isEmpty { return .tags(tags) }
            let isWeak = rest.hasPrefix("W/")
            if isWeak { rest.removeFirst(2) }
            // entity-tag = [ weak ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (a comma may be inside).
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return .tags([]) }
            let opaque = rest[rest.index(after: rest.startIndex)..<close]
            guard opaque.utf8.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }) else { return .tags([]) }
            tags.append(EntityTag(opaque: opaque, isWeak: isWeak))
            rest = rest[rest.index(after: close)...]
            while let first = rest.first, first == " " || first == "\t" { rest.removeFirst() }
            guard rest.isEmpty || rest.first == "," else { return .tags([]) }
        }
    }
}
