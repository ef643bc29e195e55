/// Serializes responses. Header names must be tokens and values may not hold CR, LF or NUL
/// (no response splitting, RFC 9110 §5.5); every response carries Content-Length, except
/// 1xx, 204 and 304 (RFC 9112 §6.3).
public enum ResponseWriter {
    public static func isValidFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(RequestHeadParser.isTokenChar)
    }

    public static func isValidFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The bytes of `response`. `includeBody` is false for HEAD (the Content-Length still
    /// describes the GET body, RFC 9110 §9.3.2). Invalid header fields are dropped.
    public static func serialize(_ response: HTTPResponse, includeBody: Bool, keepAlive: Bool, extraHeaders: [(String, String)] = [])
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + response.body.count)
        bytes.append(contentsOf: "HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\r\n".utf8)
        for (name, value) in response.headers.fields + extraHeaders
        where isValidFieldName(name) && isValidFieldValue(value) && !name.caseInsensitiveEquals("Content-Length")
            && !name.caseInsensitiveEquals("Connection")
        {
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: value.utf8)
            bytes.append(0x0D)
            bytes.append(0x0A)
        }
        let bodyAllowed = response.status >= 200 && response.status != 204 && response.status != 304
        if bodyAllowed { bytes.append(contentsOf: "Content-Length: \(response.body.count)\r\n".utf8) }
        if !keepAlive { bytes.append(contentsOf: "Connection: close\r\n".utf8) }
        bytes.append(0x0D)
        bytes.append(0x0A)
        if includeBody && bodyAllowed { bytes.append(contentsOf: response.body) }
        return bytes
    }
}
