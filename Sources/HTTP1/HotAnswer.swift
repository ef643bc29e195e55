public import ByteScan
import Synchronization

/// `X-Request-Id`: the id of one request, echoed in its answer and its log line.
public enum RequestID {
    private static let start: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let next = Atomic<UInt64>(0)

    /// A client's X-Request-Id when it is safe to echo (1–128 of [A-Za-z0-9._-]), else a new one.
    public static func echoing(_ given: String?) -> String {
        if let given, (1...128).contains(given.utf8.count),
            given.utf8.allSatisfy({
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            })
        {
            return given
        }
        return String(unsafeUninitializedCapacity: 16) { write(newBits(), into: $0) }
    }

    /// A new request id, as `echoing` makes it, written to `head` (the hot answers' heads).
    public static func writeNew(to head: inout ByteCursor) {
        precondition(head.remaining >= 16, "ByteCursor: more bytes than the room reserved")
        head.advance(by: write(newBits(), into: head.spare))
    }

    /// A counter through SplitMix64's finalizer (a bijection of 64-bit values, so no two requests of
    /// a process share an id), from a random start per process: one atomic add per request where
    /// a getrandom(2) call was.
    private static func newBits() -> UInt64 {
        var bits = start &+ next.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).oldValue
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }

    /// 16 lowercase hex digits.
    private static func write(_ bits: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let hex: StaticString = "0123456789abcdef"
        for i in 0..<16 { buffer[i] = hex.utf8Start[Int(bits >> (60 - 4 * UInt64(i)) & 0xF)] }
        return 16
    }
}

extension HotBuffers {
    /// The entity tag of a hot answer (RFC 9110 §8.8.3): none, one the handler has, or a hash of the body (`ContentTag`).
    public enum EntityTag {
        case none
        case given(String)
        case ofBody
    }

    /// Appends an answer with `body` to `out` as `ResponseWriter.serialize` writes the same `HTTPResponse`: its
    /// status line, `Content-Type`, `ETag`, the caching policy's fields (`CachePolicy.fieldLines`) and
    /// `Last-Modified`, then a new `X-Request-Id`, `Date` and `Content-Length`, the head written into room reserved
    /// once; the body unless HEAD (RFC 9110 §9.3.2). Returns where the request id is in `out`.
    public mutating func appendAnswer(
        status: Int, contentType: StaticString, entityTag: EntityTag = .none, cachingFields: [UInt8] = [], lastModified: Int64? = nil,
        isHEAD: Bool
    ) -> Range<Int> {
        let headStart = out.count
        let contentLength = body.count
        let tagRoom: Int
        switch entityTag {
        case .none, .ofBody: tagRoom = 0
        case .given(let tag): tagRoom = tag.utf8.count
        }
        let fieldsRoom = 256 + cachingFields.count + tagRoom
        let body = self.body
        let requestID = out.append(atMost: fieldsRoom + 32 + ResponseWriter.endOfHeadRoom) { head in
            ResponseWriter.writeStatusLine(status, to: &head)
            head.write("Content-Type: ")
            head.write(contentType)
            head.write("\r\n")
            switch entityTag {
            case .none: break
            case .given(let tag): ResponseWriter.writeTrustedField("ETag", tag, to: &head)
            case .ofBody:
                head.write("ETag: ")
                ContentTag.write(tagOf: body, to: &head)
                head.write("\r\n")
            }
            head.write(cachingFields)
            if let lastModified {
                head.write("Last-Modified: ")
                HTTPDate.write(lastModified, to: &head)
                head.write("\r\n")
            }
            head.write("X-Request-Id: ")
            let start = head.count
            RequestID.writeNew(to: &head)
            let requestID = (headStart + start)..<(headStart + head.count)
            head.write("\r\n")
            ResponseWriter.writeEndOfHead(contentLength: contentLength, keepAlive: true, to: &head)
            return requestID
        }
        if !isHEAD { out.append(contentsOf: body) }
        return requestID
    }
}
