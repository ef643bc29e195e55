import CCurl

/// One outbound HTTP exchange through the system libcurl, whose reads are bounded by construction:
/// the body callback takes at most `maxBodyBytes` bytes and then ends the transfer, the header
/// callback at most `maxHeaderBytes`, so no answer, with or without `Content-Length`, streamed or
/// not, makes the process hold more than that (docs/operations.md#outbound-requests). Generic: it
/// knows nothing of App Clips or of which addresses are allowed; callers pin the addresses they
/// checked (`pinnedAddresses`), so the connection goes where the check looked.
public enum Transfer {
    public struct Request: Sendable {
        public var url: String
        public var method: String
        /// Sent as given, in order (`Host` and `Content-Length` are curl's); one with an empty value is not sent, nor
        /// curl's own of that name (`Expect`, the `Content-Type` of a body).
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// The whole exchange, connection included, ends by then.
        public var timeoutSeconds: Double
        /// The body's bytes kept at most; the transfer stops once it has that many.
        public var maxBodyBytes: Int
        /// Header bytes read at most (a server may send headers without end, too).
        public var maxHeaderBytes: Int
        /// The addresses the host name stands for, as checked by the caller (IPv4 dotted or IPv6
        /// text): curl connects to these and resolves nothing itself. Empty: curl resolves.
        public var pinnedAddresses: [String]
        /// The URL schemes allowed (never followed to another: redirects are answers here).
        public var schemes: [String]
        /// Polled while the transfer runs (about once a second, and on every read); true ends it.
        public var isCancelled: @Sendable () -> Bool
        /// When set, the connection is made and then a byte goes one way or the other at least this often, else the
        /// transfer ends (libcurl's low-speed limit: 1 byte a second, over whole seconds, at least 1).
        public var idleSeconds: Double?

        public init(
            url: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
            timeoutSeconds: Double, maxBodyBytes: Int, maxHeaderBytes: Int = 64 * 1024, pinnedAddresses: [String] = [],
            schemes: [String] = ["https"], isCancelled: @escaping @Sendable () -> Bool = { false }, idleSeconds: Double? = nil
        ) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.timeoutSeconds = timeoutSeconds
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.pinnedAddresses = pinnedAddresses
            self.schemes = schemes
            self.isCancelled = isCancelled
            self.idleSeconds = idleSeconds
        }
    }

    public struct Response: Sendable, Equatable {
        public let status: Int
        /// The final answer's header fields, names lower-cased, in order (an interim 1xx's are dropped).
        public let headers: [(name: String, value: String)]
        /// At most `maxBodyBytes` bytes.
        public let body: [UInt8]
        /// The server had more body than `maxBodyBytes`: the rest was never read.
        public let truncated: Bool

        public func header(_ name: String) -> String? {
            let lower = name.lowercased()
            return headers.first { $0.name == lower }?.value
        }

        public static func == (a: Response, b: Response) -> Bool {
            a.status == b.status && a.body == b.body && a.truncated == b.truncated
                && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
        }
    }

    public enum Failure: Error, Sendable, Equatable {
        /// No complete answer within the request's timeout.
        case timedOut(seconds: Double)
        /// `isCancelled` said so.
        case cancelled
        /// The server's header section was larger than `maxHeaderBytes`.
        case headersTooLarge(limit: Int)
        /// No answer: name, connection, TLS, protocol; curl's words.
        case failed(String)

        public var message: String {
            switch self {
            case .timedOut(let seconds): "timed out after \(Transfer.seconds(seconds))"
            case .cancelled: "cancelled"
            case .headersTooLarge(let limit): "the answer's header section is over \(limit) bytes"
            case .failed(let why): why
            }
        }
    }

    /// Runs the exchange on the calling thread (it blocks up to `timeoutSeconds`).
    public static func perform(_ request: Request) -> Result<Response, Failure> {
        _ = globalSetUp
        guard let handle = curl_easy_init() else { return .failure(.failed("libcurl could not start a transfer")) }
        defer { curl_easy_cleanup(handle) }
        let state = TransferState(request)
        let context = Unmanaged.passRetained(state)
        defer { context.release() }
        var lists = StringLists()
        defer { lists.free() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let limits = Self.limits(request)
        var setup = ccurl_setopt_string(handle, CURLOPT_URL, request.url)
        func set(_ code: CURLcode) { if setup == CURLE_OK { setup = code } }
        set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))  // many threads: no SIGALRM for name lookups
        set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, limits.total))
        set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, limits.connect))
        set(ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, limits.idle == nil ? 0 : 1))
        set(ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, limits.idle ?? 0))
        set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, request.schemes.joined(separator: ",")))
        set(ccurl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, request.schemes.joined(separator: ",")))
        // No Accept-Encoding: a body is read as sent, never inflated past the cap.
        set(ccurl_setopt_long(handle, CURLOPT_HTTP_CONTENT_DECODING, 0))
        set(ccurl_setopt_long(handle, CURLOPT_HTTP_TRANSFER_DECODING, 1))
        set(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, &errorBuffer))
        set(ccurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, bodyCallback))
        set(ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque()))
        set(ccurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback))
        set(ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque()))
        set(ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
        set(ccurl_setopt_progress_callback(handle, progressCallback))
        set(ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context.toOpaque()))
        if !request.pinnedAddresses.isEmpty, let pin = pinning(request.url, request.pinnedAddresses) {
            set(ccurl_setopt_list(handle, CURLOPT_RESOLVE, lists.make([pin])))
        }
        if !request.headers.isEmpty {
            set(ccurl_setopt_list(handle, CURLOPT_HTTPHEADER, lists.make(request.headers.map(Self.headerLine))))
        }
        switch request.method {
        case "GET": break
        case "HEAD": set(ccurl_setopt_long(handle, CURLOPT_NOBODY, 1))
        default:
            set(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
            set(ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
        }
        guard setup == CURLE_OK else {
            return .failure(.failed("libcurl refused an option: \(String(cString: curl_easy_strerror(setup)))"))
        }
        // POSTFIELDS needs an address even for no bytes (its size says 0).
        let sent = request.body.isEmpty ? [0] : request.body
        let code = sent.withUnsafeBufferPointer { body -> CURLcode in
            if request.method != "GET", request.method != "HEAD" {
                _ = ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress!))
            }
            return curl_easy_perform(handle)
        }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        switch code {
        case CURLE_OK: break
        case CURLE_WRITE_ERROR where state.full: break  // the cap: the rest of the body is not ours to read
        case CURLE_WRITE_ERROR where state.cancelled: return .failure(.cancelled)
        case CURLE_WRITE_ERROR where state.headersOver: return .failure(.headersTooLarge(limit: request.maxHeaderBytes))
        case CURLE_ABORTED_BY_CALLBACK: return .failure(.cancelled)
        // libcurl 7.88 ends a header line longer than its CURL_MAX_HTTP_HEADER (100 KB) so, before the header callback.
        case CURLE_OUT_OF_MEMORY: return .failure(.headersTooLarge(limit: request.maxHeaderBytes))
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut(seconds: request.idleSeconds ?? request.timeoutSeconds))
        default:
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.failed(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        guard status > 0 else { return .failure(.failed("no answer")) }
        return .success(Response(status: status, headers: state.headers, body: state.body, truncated: state.full))
    }

    /// The request's limits in libcurl's units: the whole exchange and the connection in milliseconds, and with
    /// `idleSeconds` the whole seconds of the low-speed limit (1 byte a second; 0: none).
    static func limits(_ request: Request) -> (total: Int, connect: Int, idle: Int?) {
        let total = max(1, Int(min(request.timeoutSeconds, 86_400) * 1000))
        guard let idle = request.idleSeconds.map({ min($0, 86_400) }) else { return (total, total, nil) }
        return (total, max(1, Int(idle * 1000)), max(1, Int(idle.rounded(.up))))
    }

    /// A header field as libcurl takes it: "Name:" with nothing after the colon removes curl's own field of that
    /// name (CURLOPT_HTTPHEADER(3)).
    static func headerLine(_ field: (name: String, value: String)) -> String {
        field.value.isEmpty ? "\(field.name):" : "\(field.name): \(field.value)"
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() && s < 1e15 ? "\(Int(s)) s" : "\(s) s" }

    /// curl_global_init(3): once, before any handle, in every process that makes a transfer.
    private static let globalSetUp: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// `HOST:PORT:ADDR[,ADDR]` for CURLOPT_RESOLVE, from the URL's authority.
    static func pinning(_ url: String, _ addresses: [String]) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        var host = hostPort, port = scheme == "https" ? 443 : 80
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return nil }
            host = String(hostPort[...close])
            if let colon = hostPort[close...].firstIndex(of: ":"), let p = Int(hostPort[hostPort.index(after: colon)...]) { port = p }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            guard let p = Int(hostPort[hostPort.index(after: colon)...]) else { return nil }
            port = p
        }
        let listed = addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")
        return "\(host):\(port):\(listed)"
    }
}

/// What the callbacks of one transfer share with `perform`; only the transfer's thread touches it.
private final class TransferState {
    let limit: Int
    let headerLimit: Int
    let isCancelled: @Sendable () -> Bool
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0
    var full = false
    var headersOver = false
    var cancelled = false

    init(_ request: Transfer.Request) {
        limit = max(0, request.maxBodyBytes)
        headerLimit = request.maxHeaderBytes
        isCancelled = request.isCancelled
    }
}

private struct StringLists {
    var lists: [UnsafeMutablePointer<curl_slist>] = []
    mutating func make(_ lines: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines { list = curl_slist_append(list, line) }
        if let list { lists.append(list) }
        return list
    }
    func free() { for list in lists { curl_slist_free_all(list) } }
}

// CURLOPT_WRITEFUNCTION: returning fewer bytes than given ends the transfer with CURLE_WRITE_ERROR.
private func bodyCallback(_ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let bytes else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let given = size * count
    if state.isCancelled() {
        state.cancelled = true
        return 0
    }
    let room = state.limit - state.body.count
    let taken = min(room, given)
    if taken > 0 {
        bytes.withMemoryRebound(to: UInt8.self, capacity: taken) {
            state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: taken))
        }
    }
    if taken < given {
        state.full = true
        return 0
    }
    return given
}

// CURLOPT_HEADERFUNCTION: one header line at a time, the status lines of interim answers too.
private func headerCallback(_ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let bytes else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let given = size * count
    state.headerBytes += given
    if state.headerBytes > state.headerLimit {
        state.headersOver = true
        return 0
    }
    let line = bytes.withMemoryRebound(to: UInt8.self, capacity: given) {
        String(decoding: UnsafeBufferPointer(start: $0, count: given), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        state.headers = []  // a new status line: an interim answer's fields are not the final one's
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingSpaceAndLineEnd()
        state.headers.append((name, value))
    }
    return given
}

// CURLOPT_XFERINFOFUNCTION: non-zero ends the transfer with CURLE_ABORTED_BY_CALLBACK.
private func progressCallback(_ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
}

extension Substring {
    fileprivate func trimmingSpaceAndLineEnd() -> String {
        var s = self[...]
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" || c == "\r\n" { s = s.dropLast() }
        return String(s)
    }
}
