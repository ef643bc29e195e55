import ByteScan
/// A parsed request head and how its body is framed.
public struct RequestHead: Sendable {
    public var method: String
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Body length from Content-Length (0 when absent).
    public var contentLength: Int
    /// The client wants `100 Continue` before it sends the body (RFC 9110 §10.1.1).
    public var expectsContinue: Bool
    /// Keep the connection open after the response (RFC 9112 §9.3).
    public var keepAlive: Bool
}

/// Where one header field lies in the bytes of its head: the name, and the value without the
/// optional whitespace around it (RFC 9112 §5.1).
public struct FieldRange: Sendable, Equatable {
    public var name: Range<Int>
    public var value: Range<Int>
}

/// A request head checked in full and kept as byte ranges of the buffer it was parsed from: no
/// `String` and no header array per request (the event loop's hot routes read these bytes; the
/// Strings of `RequestHead` are made only for the other routes). The field ranges are in the array
/// the caller passed to `RequestHeadParser.parse(_:limits:fields:)`.
public struct RawRequestHead: Sendable, Equatable {
    public var method: Range<Int>
    /// The request-target as sent.
    public var target: Range<Int>
    /// absolute-form (RFC 9112 §3.2.2): the authority, which replaces Host, and where the path starts
    /// (the target's end when it has none: the path is then "/").
    public var authority: Range<Int>?
    public var pathStart: Int
    public var version: HTTPVersion
    public var contentLength: Int
    public var expectsContinue: Bool
    public var keepAlive: Bool
    /// Bytes of the head, its final CRLF included.
    public var length: Int
    /// The first Host field, by its index in the fields (nil when there is none).
    var hostField: Int?
}

/// A request the server answers with an error status and then closes, since the framing of
/// whatever follows cannot be trusted (RFC 9112 §9.3).
public struct RequestError: Error, Equatable, Sendable {
    public let status: Int
    public let message: String
    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The answer: RFC 9457 problem details, with a request id as every answer has (docs/http-api.md).
    public var response: HTTPResponse {
        var response = HTTPResponse(
            status: status, contentType: "application/problem+json", body: Array(ProblemJSON.problem(status: status, detail: message).utf8))
        response.headers.set("X-Request-Id", RequestID.echoing(nil))
        return response
    }
}

/// Pure, strict parser of an HTTP/1.1 request head (RFC 9112 §2–§7). Given the bytes received
/// so far, it says: need more, a complete head (and how many bytes it used), or an error.
///
/// Choices (documented in the README's threat model): lines end with CRLF only (a bare LF or
/// bare CR is refused); obs-fold is refused (§5.2); whitespace between a field name and ":" is
/// refused (§5.1); Transfer-Encoding is answered with 501 (no chunked request bodies), and
/// with 400 when Content-Length is also present (§6.1, request smuggling); a Content-Length
/// given twice, or not a plain decimal, is refused (§6.3); HTTP/1.1 needs exactly one Host (§3.2).
///
/// Every check runs on the bytes (`parse(_:limits:fields:)`); `parse(_:limits:)` then makes the
/// Strings, so both forms accept and refuse exactly the same heads.
public enum RequestHeadParser {
    public enum Outcome: Sendable {
        case incomplete
        case complete(RequestHead, headLength: Int)
    }

    public enum RawOutcome: Sendable, Equatable {
        case incomplete
        case complete(RawRequestHead)
    }

    public static func parse(_ buffer: UnsafeRawBufferPointer, limits: HTTPLimits) throws(RequestError) -> Outcome {
        var fields: [FieldRange] = []
        guard case .complete(let raw) = try parse(buffer, limits: limits, fields: &fields) else { return .incomplete }
        return .complete(raw.head(in: buffer.bindMemory(to: UInt8.self), fields: fields), headLength: raw.length)
    }

    /// Checks a head in place; its fields' ranges replace the contents of `fields` (an array the
    /// caller keeps from one request to the next, so that it allocates nothing once grown).
    public static func parse(_ buffer: UnsafeRawBufferPointer, limits: HTTPLimits, fields: inout [FieldRange]) throws(RequestError)
        -> RawOutcome
    {
        fields.removeAll(keepingCapacity: true)
        let bytes = buffer.bindMemory(to: UInt8.self)
        guard let bounds = try headBounds(bytes, limits: limits) else { return .incomplete }
        let line = try requestLine(bytes, end: bounds.requestLineEnd)
        var start = bounds.requestLineEnd + 2
        while start < bounds.headEnd - 2 {
            guard fields.count < limits.maxHeaderCount else {
                throw RequestError(431, "more than \(limits.maxHeaderCount) header fields")
            }
            start = try fieldLine(bytes, from: start, into: &fields)
        }
        let framing = try framing(bytes, fields: fields, version: line.version, limits: limits)
        return .complete(
            RawRequestHead(
                method: line.method, target: line.target, authority: line.authority, pathStart: line.pathStart, version: line.version,
                contentLength: framing.contentLength, expectsContinue: framing.expectsContinue, keepAlive: framing.keepAlive,
                length: bounds.headEnd, hostField: framing.hostField))
    }

    /// Where a complete head ends (its final CRLF included) and where its request line ends (at its CR).
    struct HeadBounds {
        var headEnd: Int
        var requestLineEnd: Int
    }

    /// The head's end, CRLF CRLF (RFC 9112 §2.1), with every line ending in CRLF and no bare CR
    /// (§2.2, the server's choice: a bare LF is refused too); nil while the head is incomplete.
    /// Limits: the request line (414, §3) and the head (431, RFC 6585 §5).
    @inline(__always) static func headBounds(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) throws(RequestError)
        -> HeadBounds?
    {
        var end: Int?
        var firstLineEnd: Int?
        var i = 0
        let n = bytes.count
        while true {
            // Only CR and LF matter here: the rest is skipped a word at a time (`ByteClass`; this loop,
            // a byte at a time, was the largest part of parsing an AASA request).
            i = Self.firstLineEnd(bytes, from: i)
            guard i < n else { break }
            let b = bytes[i]
            if b == 0x0A {
                guard i > 0, bytes[i - 1] == 0x0D else {
                    throw RequestError(400, "a line ends with a bare LF; HTTP/1.1 lines end with CRLF")
                }
                if firstLineEnd == nil { firstLineEnd = i - 1 }
                if i >= 3, bytes[i - 2] == 0x0A, bytes[i - 3] == 0x0D {
                    end = i + 1
                    break
                }
            } else if b == 0x0D, i + 1 < n, bytes[i + 1] != 0x0A {
                throw RequestError(400, "a bare CR in the request head")
            }
            i += 1
        }
        guard let headEnd = end, let lineEnd = firstLineEnd else {
            if firstLineEnd == nil && n > limits.maxRequestLineBytes {
                throw RequestError(414, "the request line is longer than \(limits.maxRequestLineBytes) bytes")
            }
            if n > limits.maxHeaderBytes { throw RequestError(431, "the request head is larger than \(limits.maxHeaderBytes) bytes") }
            return nil
        }
        guard headEnd <= limits.maxHeaderBytes else {
            throw RequestError(431, "the request head is larger than \(limits.maxHeaderBytes) bytes")
        }
        guard lineEnd <= limits.maxRequestLineBytes else {
            throw RequestError(414, "the request line is longer than \(limits.maxRequestLineBytes) bytes")
        }
        return HeadBounds(headEnd: headEnd, requestLineEnd: lineEnd)
    }

    /// A request line's parts, as ranges of the head's bytes.
    struct RequestLine {
        var method: Range<Int>
        var target: Range<Int>
        var authority: Range<Int>?
        var pathStart: Int
        var version: HTTPVersion
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), `end` at its CR.
    @inline(__always) static func requestLine(_ bytes: UnsafeBufferPointer<UInt8>, end lineEnd: Int) throws(RequestError)
        -> RequestLine
    {
        let line = bytes[0..<lineEnd]
        guard let sp1 = line.firstIndex(of: 0x20), let sp2 = line[(sp1 + 1)...].firstIndex(of: 0x20),
            !line[(sp2 + 1)...].contains(0x20)
        else { throw RequestError(400, "the request line is not METHOD SP TARGET SP VERSION") }
        let methodBytes = line[0..<sp1]
        // RFC 9112 §3.1: method = token.
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenChar) else { throw RequestError(400, "the method is not a token") }
        let form = try targetForm(line[(sp1 + 1)..<sp2], method: methodBytes)
        let version = try httpVersion(line[(sp2 + 1)...])
        return RequestLine(method: 0..<sp1, target: (sp1 + 1)..<sp2, authority: form.authority, pathStart: form.pathStart, version: version)
    }

    /// The request-target's form (RFC 9112 §3.2): origin-form, absolute-form (its authority, which
    /// replaces Host, and where its path starts), or asterisk-form for OPTIONS; authority-form (for
    /// CONNECT) is refused.
    @inline(__always) static func targetForm(_ targetBytes: Slice<UnsafeBufferPointer<UInt8>>, method: Slice<UnsafeBufferPointer<UInt8>>)
        throws(RequestError) -> (authority: Range<Int>?, pathStart: Int)
    {
        // RFC 9112 §3.2: visible ASCII only; this also refuses invalid UTF-8 and control bytes.
        guard !targetBytes.isEmpty, Self.firstNotVisibleASCII(UnsafeBufferPointer(rebasing: targetBytes)) == targetBytes.count
        else {
            throw RequestError(400, "the request target holds a byte that is not visible ASCII")
        }
        if targetBytes.first == 0x2F {
            // origin-form (§3.2.1), nearly every request.
            return (nil, targetBytes.startIndex)
        }
        if let authorityStart = Self.absoluteFormAuthorityStart(targetBytes) {
            // absolute-form (§3.2.2): its authority replaces Host; the path and query are the target.
            let rest = targetBytes[authorityStart...]
            let authorityEnd = rest.firstIndex(where: { $0 == 0x2F || $0 == 0x3F }) ?? rest.endIndex
            let hostBytes = targetBytes[rest.startIndex..<authorityEnd]
            // RFC 9110 §4.2.1: an http(s) URI with an empty host is invalid; §4.2.4: no userinfo.
            guard !hostBytes.isEmpty, !hostBytes.contains(0x40), Self.isValidHost(hostBytes) else {
                throw RequestError(400, "the request target's authority is not a valid host[:port]")
            }
            return (rest.startIndex..<authorityEnd, authorityEnd)
        }
        if targetBytes.count == 1 && targetBytes.first == 0x2A {
            // RFC 9112 §3.2.4: asterisk-form is only for a server-wide OPTIONS request.
            guard method.elementsEqual("OPTIONS".utf8) else { throw RequestError(400, "the request target * is only for OPTIONS") }
            return (nil, targetBytes.startIndex)
        }
        throw RequestError(400, "the request target must start with / (or be an http or https absolute URI)")
    }

    /// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3); a well-formed version other than
    /// 1.0 and 1.1 is answered 505 (RFC 9110 §15.6.6).
    @inline(__always) static func httpVersion(_ versionBytes: Slice<UnsafeBufferPointer<UInt8>>) throws(RequestError) -> HTTPVersion {
        if UnsafeBufferPointer(rebasing: versionBytes).matches("HTTP/1.1") { return .http11 }
        if UnsafeBufferPointer(rebasing: versionBytes).matches("HTTP/1.0") { return .http10 }
        let v = versionBytes.startIndex
        if versionBytes.count == 8, versionBytes.starts(with: "HTTP/".utf8), isDigit(versionBytes[v + 5]), versionBytes[v + 6] == 0x2E,
            isDigit(versionBytes[v + 7])
        {
            throw RequestError(505, "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        throw RequestError(400, "the HTTP version is malformed")
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5), from `start` to its CRLF;
    /// appends its ranges to `fields` and returns where the next line starts. The head's lines end
    /// with CRLF (`headBounds` checked it): the first CR or LF is this line's CR.
    @inline(__always) static func fieldLine(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into fields: inout [FieldRange])
        throws(RequestError) -> Int
    {
        let stop = Self.firstLineEnd(bytes, from: start)
        let field = bytes[start..<stop]
        // RFC 9112 §5.2: obs-fold is refused (the server's choice; it may not be kept as is).
        guard let first = field.first, first != 0x20, first != 0x09 else {
            throw RequestError(400, "obsolete line folding (a header line starts with whitespace)")
        }
        guard let colon = field.firstIndex(of: 0x3A) else { throw RequestError(400, "a header line has no ':'") }
        let name = field[field.startIndex..<colon]
        // RFC 9112 §5.1: no whitespace between the field name and the colon; field-name = token.
        guard !name.isEmpty, name.allSatisfy(isTokenChar) else {
            throw RequestError(400, "a header field name is not a token (or has whitespace before ':')")
        }
        // field-value: VCHAR / obs-text / SP / HTAB (RFC 9110 §5.5); NUL and other controls are refused.
        var valueStart = colon + 1, valueEnd = field.endIndex
        var control = Self.firstControl(bytes, from: valueStart)
        while control < valueEnd {
            guard bytes[control] == 0x09 else { throw RequestError(400, "a header value holds a control character") }
            control = Self.firstControl(bytes, from: control + 1)
        }
        // RFC 9110 §5.6.3: optional whitespace is SP / HTAB.
        while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        fields.append(FieldRange(name: name.startIndex..<colon, value: valueStart..<valueEnd))
        return stop + 2
    }

    /// What the head's fields say about the message: its Host field, body length, Expect and
    /// persistence.
    struct Framing {
        var hostField: Int?
        var contentLength: Int
        var expectsContinue: Bool
        var keepAlive: Bool
    }

    /// Host (RFC 9112 §3.2), body framing (§6), Expect (RFC 9110 §10.1.1) and Connection (§9.3),
    /// read from the fields' bytes in place: arrays of values per request were allocations.
    @inline(__always) static func framing(
        _ bytes: UnsafeBufferPointer<UInt8>, fields: [FieldRange], version: HTTPVersion, limits: HTTPLimits
    )
        throws(RequestError) -> Framing
    {
        var hostCount = 0
        var hostField: Int?
        var transferEncodings = 0
        var lengthField: FieldRange?
        var lengths = 0
        var expectField: FieldRange?
        var listsClose = false, listsKeepAlive = false
        for (index, field) in fields.enumerated() {
            let name = bytes[field.name]
            if name.caseInsensitiveEquals(("Host" as StaticString).bytes) {
                hostCount += 1
                if hostField == nil { hostField = index }
            } else if name.caseInsensitiveEquals(("Transfer-Encoding" as StaticString).bytes) {
                transferEncodings += 1
            } else if name.caseInsensitiveEquals(("Content-Length" as StaticString).bytes) {
                lengths += 1
                if lengthField == nil { lengthField = field }
            } else if name.caseInsensitiveEquals(("Expect" as StaticString).bytes) {
                if expectField == nil { expectField = field }
            } else if name.caseInsensitiveEquals(("Connection" as StaticString).bytes) {
                let value = UnsafeBufferPointer(rebasing: bytes[field.value])
                listsClose = listsClose || HTTPHeaders.list(value, contains: ("close" as StaticString).bytes)
                listsKeepAlive = listsKeepAlive || HTTPHeaders.list(value, contains: ("keep-alive" as StaticString).bytes)
            }
        }
        // RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host; any request has at most one.
        if version == .http11 && hostCount != 1 { throw RequestError(400, "an HTTP/1.1 request needs exactly one Host header") }
        if hostCount > 1 { throw RequestError(400, "more than one Host header") }
        if let hostField, !fields[hostField].value.isEmpty, !Self.isValidHost(bytes[fields[hostField].value]) {
            throw RequestError(400, "the Host header is not a valid host[:port]")
        }
        // RFC 9112 §6.1: Transfer-Encoding with Content-Length is request smuggling; no chunked bodies here.
        if transferEncodings > 0 {
            if lengths > 0 { throw RequestError(400, "both Transfer-Encoding and Content-Length (request smuggling)") }
            throw RequestError(501, "Transfer-Encoding in requests is not supported; send Content-Length")
        }
        var contentLength = 0
        if let lengthField { contentLength = try Self.contentLength(bytes[lengthField.value], fieldCount: lengths, limits: limits) }
        var expectsContinue = false
        if let expectField {
            guard bytes[expectField.value].caseInsensitiveEquals(("100-continue" as StaticString).bytes) else {
                throw RequestError(417, "only Expect: 100-continue is supported")
            }
            expectsContinue = version == .http11
        }
        // RFC 9112 §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only with "keep-alive".
        return Framing(
            hostField: hostField, contentLength: contentLength, expectsContinue: expectsContinue,
            keepAlive: version == .http11 ? !listsClose : listsKeepAlive)
    }

    /// Content-Length = 1*DIGIT (RFC 9110 §8.6), in one field only: any other is an unrecoverable
    /// framing error (RFC 9112 §6.3); a body over `maxBodyBytes` is answered 413.
    @inline(__always) static func contentLength(_ text: Slice<UnsafeBufferPointer<UInt8>>, fieldCount: Int, limits: HTTPLimits)
        throws(RequestError) -> Int
    {
        guard fieldCount == 1 else { throw RequestError(400, "more than one Content-Length") }
        guard !text.isEmpty, text.count <= 18, text.allSatisfy(isDigit) else {
            throw RequestError(400, "Content-Length is not a decimal number")
        }
        let value = text.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard value <= limits.maxBodyBytes else { throw RequestError(413, "the body is larger than \(limits.maxBodyBytes) bytes") }
        return value
    }

    /// Where the authority of an `http://` or `https://` target starts (scheme case-insensitive,
    /// RFC 3986 §3.1); nil for any other form.
    static func absoluteFormAuthorityStart(_ target: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var i = target.startIndex
        for letter in "http".utf8 {
            guard i < target.endIndex, target[i] | 0x20 == letter else { return nil }
            i += 1
        }
        if i < target.endIndex, target[i] | 0x20 == UInt8(ascii: "s") { i += 1 }
        guard target.endIndex - i >= 3, target[i] == 0x3A, target[i + 1] == 0x2F, target[i + 2] == 0x2F else { return nil }
        return i + 3
    }

    /// Host = uri-host [ ":" port ] (RFC 9110 §7.2), with uri-host an IP-literal in brackets or
    /// a reg-name / IPv4address (RFC 3986 §3.2.2: unreserved, pct-encoded, sub-delims) and port
    /// digits up to 65535 (an empty port is allowed by the grammar, RFC 3986 §3.2.3).
    static func isValidHost<C: Collection<UInt8>>(_ host: C) -> Bool where C.Index == Int {
        var i = host.startIndex
        let end = host.endIndex
        if i < end, host[i] == 0x5B {  // "[" IPv6address / IPvFuture "]"
            guard let close = host[i...].firstIndex(of: 0x5D), close > i + 1 else { return false }
            guard host[(i + 1)..<close].allSatisfy({ isHexDigit($0) || $0 == 0x3A || $0 == 0x2E || $0 == 0x76 || $0 == 0x56 }) else {
                return false
            }
            i = close + 1
        } else {
            while i < end, host[i] != 0x3A {
                let b = host[i]
                if b == 0x25 {  // pct-encoded
                    guard i + 2 < end, isHexDigit(host[i + 1]), isHexDigit(host[i + 2]) else { return false }
                    i += 3
                    continue
                }
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: break  // unreserved
                case 0x21, 0x24, 0x26...0x2C, 0x3B, 0x3D: break  // sub-delims
                default: return false
                }
                i += 1
            }
            guard i > host.startIndex else { return false }
        }
        guard i < end else { return true }
        guard host[i] == 0x3A else { return false }
        let port = host[(i + 1)...]
        return port.count <= 5 && port.allSatisfy(isDigit) && (port.isEmpty || Int(String(decoding: port, as: UTF8.self))! <= 65535)
    }

    // Each scan is its own small function, so that `ByteClass`'s code is inlined into it and folded
    // with the class's constants (inlined into `parse`, a large function, it was not).

    /// The first CR or LF at or after `start`.
    @inline(never) static func firstLineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        ByteClass(0x0D, 0x0A).firstIndex(in: bytes, from: start)
    }

    /// The first byte that is not visible ASCII (RFC 9112 §3.2: a request target is 0x21–0x7E).
    @inline(never) static func firstNotVisibleASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        ByteClass(below: 0x21, above: 0x7E).firstIndex(in: bytes)
    }

    /// The first control byte at or after `start` (RFC 9110 §5.5: a field value is VCHAR, obs-text,
    /// SP or HTAB; HTAB is found too, and allowed by the caller).
    @inline(never) static func firstControl(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        ByteClass(below: 0x20, 0x7F).firstIndex(in: bytes, from: start)
    }

    @inline(__always) static func isHexDigit(_ b: UInt8) -> Bool { isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }

    // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    @inline(__always) static func isTokenChar(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}

extension RawRequestHead {
    /// The head with `String`s (for the routes that take an `HTTPRequest`), from the bytes it was parsed from.
    public func head(in bytes: UnsafeBufferPointer<UInt8>, fields: [FieldRange]) -> RequestHead {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        var headers = HTTPHeaders()
        for field in fields { headers.add(text(field.name), text(field.value)) }
        var targetText: String
        if let authority {
            targetText = text(pathStart..<target.upperBound)
            if !targetText.hasPrefix("/") { targetText = "/" + targetText }
            headers.set("Host", text(authority))
        } else {
            targetText = text(target)
        }
        return RequestHead(
            method: text(method), target: targetText, version: version, headers: headers, contentLength: contentLength,
            expectsContinue: expectsContinue, keepAlive: keepAlive)
    }
}

extension StaticString {
    /// The literal's UTF-8, in place.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}
