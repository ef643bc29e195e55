public import ByteScan

/// Serializes responses. Header names must be tokens and values may not hold CR, LF or NUL
/// (no response splitting, RFC 9110 §5.5); every response carries Content-Length, except
/// 1xx, 204 and 304 (RFC 9112 §6.3).
public enum ResponseWriter {
    public static func isValidFieldName(_ name: String) -> Bool {
        !name.isEmpty && (name.utf8.withContiguousStorageIfAvailable(isValidFieldName) ?? isValidFieldName(name.utf8))
    }

    public static func isValidFieldValue(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable(isValidFieldValue) ?? isValidFieldValue(value.utf8)
    }

    static func isValidFieldName(_ bytes: some Collection<UInt8>) -> Bool { bytes.allSatisfy(RequestHeadParser.isTokenChar) }

    static func isValidFieldValue(_ bytes: some Collection<UInt8>) -> Bool { bytes.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) } }

    /// The bytes of `response`. `includeBody` is false for HEAD (the Content-Length still
    /// describes the GET body, RFC 9110 §9.3.2). Invalid header fields are dropped.
    ///
    /// One buffer sized up front, the status line pre-encoded, each field checked and copied in one
    /// pass over its UTF-8: building it from interpolated Strings was 21% of an AASA request's
    /// instructions under callgrind.
    public static func serialize(
        _ response: HTTPResponse, includeBody: Bool, keepAlive: Bool, announcesKeepAlive: Bool = false, dated: Bool = true,
        extraHeaders: [(String, String)] = []
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        serialize(
            response, includeBody: includeBody, keepAlive: keepAlive, announcesKeepAlive: announcesKeepAlive, dated: dated,
            extraHeaders: extraHeaders, appendingTo: &bytes)
        return bytes
    }

    /// `serialize`, appended to `bytes` (a connection's write buffer, kept from one answer to the next).
    public static func serialize(
        _ response: HTTPResponse, includeBody: Bool, keepAlive: Bool, announcesKeepAlive: Bool = false, dated: Bool = true,
        extraHeaders: [(String, String)] = [], appendingTo bytes: inout [UInt8]
    ) {
        let bodyAllowed = response.status >= 200 && response.status != 204 && response.status != 304
        let sendsBody = includeBody && bodyAllowed
        var headSize = 64
        for field in response.headers.fields { headSize += field.name.utf8.count + field.value.utf8.count + 4 }
        for (name, value) in extraHeaders { headSize += name.utf8.count + value.utf8.count + 4 }
        bytes.reserveCapacity(bytes.count + headSize + (sendsBody ? response.body.count : 0))
        bytes.append(contentsOf: statusLine(response.status))
        for field in response.headers.fields { appendField(field.name, field.value, to: &bytes) }
        for (name, value) in extraHeaders { appendField(name, value, to: &bytes) }
        bytes.append(atMost: endOfHeadRoom) {
            writeEndOfHead(
                contentLength: bodyAllowed ? response.body.count : nil, keepAlive: keepAlive, announcesKeepAlive: announcesKeepAlive,
                dated: dated, to: &$0)
        }
        if sendsBody { bytes.append(contentsOf: response.body) }
    }

    // MARK: Heads written piece by piece (the hot handlers': no HTTPResponse, no String), into room
    // reserved once (`[UInt8].append(atMost:)`)

    /// The status line of `status`, pre-encoded.
    public static func writeStatusLine(_ status: Int, to head: inout ByteCursor) { head.write(statusLine(status)) }

    /// `name: value` CRLF for a field the caller made itself: a literal token name and a value it
    /// knows to be free of CR, LF and other controls (RFC 9110 §5.5), so it is not checked here.
    public static func writeTrustedField(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>, to head: inout ByteCursor) {
        head.write(name)
        head.write(": ")
        head.write(value)
        head.write("\r\n")
    }

    /// `writeTrustedField` of a String the caller made (a tag, a date).
    public static func writeTrustedField(_ name: StaticString, _ value: String, to head: inout ByteCursor) {
        var value = value
        value.withUTF8 { writeTrustedField(name, $0, to: &head) }
    }

    /// More than `writeEndOfHead` ever writes: its fields with 20 digits of length and the longest `Date`
    /// (37 bytes: a 12-digit year, the last `Int64` seconds reach).
    public static let endOfHeadRoom = 128

    /// `Date` (unless `dated` is false: a 5xx made once and kept, which may go without, RFC 9110
    /// §6.6.1), `Content-Length` (nil: none, for 1xx, 204 and 304, RFC 9112 §6.3), `Connection:
    /// close` unless kept alive, `Connection: keep-alive` when `announcesKeepAlive` (an HTTP/1.0
    /// client that asked for it learns that it has it, RFC 9112 §9.3 and appendix C.2.2; without
    /// it that client reads until the server closes), and the empty line that ends the head.
    public static func writeEndOfHead(
        contentLength: Int?, keepAlive: Bool, announcesKeepAlive: Bool = false, dated: Bool = true, to head: inout ByteCursor
    ) {
        if dated {
            head.write("Date: ")
            HTTPDate.writeNow(to: &head)
            head.write("\r\n")
        }
        if let contentLength {
            head.write("Content-Length: ")  // 1*DIGIT, RFC 9110 §8.6
            head.writeDecimal(UInt(contentLength))
            head.write("\r\n")
        }
        if !keepAlive {
            head.write("Connection: close\r\n")
        } else if announcesKeepAlive {
            head.write("Connection: keep-alive\r\n")
        }
        head.write("\r\n")
    }

    /// `HTTP/1.1 <status> <reason>` CRLF (RFC 9112 §4), encoded once per status.
    static func statusLine(_ status: Int) -> [UInt8] {
        guard (100..<600).contains(status) else { return Array("HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n".utf8) }
        return statusLines[status - 100]
    }

    private static let statusLines: [[UInt8]] = (100..<600).map { Array("HTTP/1.1 \($0) \(HTTPStatus.reason($0))\r\n".utf8) }

    /// `name: value` CRLF, unless the name is not a token, the value holds CR, LF, NUL or another
    /// control (RFC 9110 §5.5: no response splitting), or the field is one the writer sets itself.
    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        guard isValidFieldName(name), isValidFieldValue(value), !name.caseInsensitiveEquals("Content-Length"),
            !name.caseInsensitiveEquals("Connection")
        else { return }
        appendUTF8(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        appendUTF8(value, to: &bytes)
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// A copy of the string's contiguous UTF-8 (a memcpy), byte by byte only for a bridged string.
    private static func appendUTF8(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: text.utf8) }
    }
}
