#if canImport(Glibc)
    import Glibc
#endif

/// A request without a body as the event loop parsed it: byte ranges of its connection's read
/// buffer, for `HTTPServer`'s hot handler. Valid only during that call (the buffer moves on).
///
/// The hot routes read a method, a path, a query item or two and a header, so nothing of the
/// request is copied into `String`s or an `HTTPHeaders` array for them: under callgrind, making the
/// `HTTPRequest` (a String per field, an array of fields) was most of the allocations of a request.
public struct RequestView {
    let bytes: UnsafeBufferPointer<UInt8>
    let head: RawRequestHead
    let fields: UnsafeBufferPointer<FieldRange>
    /// The peer's address, as the connection keeps it.
    public let remoteAddress: String

    init(bytes: UnsafeBufferPointer<UInt8>, head: RawRequestHead, fields: UnsafeBufferPointer<FieldRange>, remoteAddress: String) {
        self.bytes = bytes
        self.head = head
        self.fields = fields
        self.remoteAddress = remoteAddress
    }

    public var method: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[head.method]) }

    /// HEAD: the answer's head alone, its Content-Length that of the GET body (RFC 9110 §9.3.2).
    public var isHEAD: Bool { method.matches("HEAD") }

    public var isGET: Bool { method.matches("GET") }

    /// The path as sent (still percent-encoded); in absolute-form the part after the authority,
    /// which may be empty.
    public var path: UnsafeBufferPointer<UInt8> {
        let target = bytes[head.pathStart..<head.target.upperBound]
        return UnsafeBufferPointer(rebasing: bytes[head.pathStart..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)])
    }

    /// The raw query (after "?"), or nil when the target has none.
    public var query: UnsafeBufferPointer<UInt8>? {
        let target = bytes[head.pathStart..<head.target.upperBound]
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[(mark + 1)..<target.endIndex])
    }

    /// The value of the first field named `name` (case-insensitive, RFC 9110 §5.1), without its OWS.
    public func field(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        let wanted = name.bytes
        for field in fields where bytes[field.name].caseInsensitiveEquals(wanted) {
            return UnsafeBufferPointer(rebasing: bytes[field.value])
        }
        return nil
    }

    /// The host the request names: the target's authority in absolute-form, else the Host field
    /// (RFC 9112 §3.2.2). The parser has checked it is a valid host[:port] or empty.
    public var host: UnsafeBufferPointer<UInt8>? {
        if let authority = head.authority { return UnsafeBufferPointer(rebasing: bytes[authority]) }
        return head.hostField.map { UnsafeBufferPointer(rebasing: bytes[fields[$0].value]) }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The same bytes as `literal` (a memcmp: `elementsEqual` against a `String.UTF8View` went through
    /// generic iterators, 5% of a resolve request's instructions under callgrind).
    public func matches(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        return count == 0 || memcmp(baseAddress!, literal.utf8Start, count) == 0
    }
}

/// The byte buffers of one connection that a hot handler writes into, kept (with their capacity)
/// from one request to the next so that an answer allocates nothing once they have grown.
public struct HotBuffers: Sendable {
    /// What the connection will write: the handler appends its whole answer, head and body; answers
    /// to pipelined requests collect here and go out in one write.
    public var out: [UInt8] = []
    /// For the handler's own use within one call (a decoded query, an answer's body); left as it is.
    public var scratch: [UInt8] = []
    public var body: [UInt8] = []
    public init() {}
}

/// Answers, on the event loop, a request without a body that it can answer from memory from its
/// bytes alone: appends the whole answer (`ResponseWriter.appendHead` and the body) to `out` and
/// returns true; or returns false with `out` untouched, and the request takes the ordinary way
/// (`HTTPInlineHandler`, then `HTTPHandler`). Only asked for a request that keeps its connection
/// open, so the answer never says `Connection: close`. It records its own logs and metrics.
public typealias HTTPHotHandler = @Sendable (RequestView, inout HotBuffers) -> Bool
