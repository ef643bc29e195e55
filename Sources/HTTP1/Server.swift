import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Answers one request. Called on the connection's thread; may block (SQLite is synchronous).
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// A generic HTTP/1.1 server on BSD sockets: one thread per connection up to a cap, keep-alive
/// with one request in flight (pipelined requests are answered in order), deadlines for the
/// head, the body and idle time, and a graceful stop. It knows nothing about what it serves.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 0
        public var limits = HTTPLimits()
        public init(host: String = "127.0.0.1", port: Int = 0, limits: HTTPLimits = HTTPLimits()) {
            self.host = host
            self.port = port
            self.limits = limits
        }
    }

    public let configuration: Configuration
    let handler: HTTPHandler
    /// Called once per request with (request, response, seconds) for logs and metrics.
    let observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    private var listener: ListeningSocket?
    private let lock = NSLock()
    private var activeConnections = 0
    private var stopping = false
    private let drained = DispatchSemaphore(value: 0)
    private var acceptThread: Thread?
    private let acceptDone = DispatchSemaphore(value: 0)

    public init(configuration: Configuration, observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)? = nil, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
    }

    /// Binds and starts accepting; returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws -> Int {
        // A write to a closed peer must be an error, never a process-ending signal.
        signal(SIGPIPE, SIG_IGN)
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.name = "http-accept"
        thread.start()
        acceptThread = thread
        return listener.port
    }

    public var port: Int { listener?.port ?? 0 }

    public var connectionCount: Int { lock.withLock { activeConnections } }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func acceptLoop(_ listener: ListeningSocket) {
        defer { acceptDone.signal() }
        while !isStopping {
            let accepted: (fd: Int32, address: String)?
            do { accepted = try listener.accept(timeoutMilliseconds: 100) } catch { continue }
            guard let (fd, address) = accepted else { continue }
            let admitted = lock.withLock { () -> Bool in
                guard activeConnections < configuration.limits.maxConnections, !stopping else { return false }
                activeConnections += 1
                return true
            }
            let socket = ConnectionSocket(fd: fd)
            socket.setNonBlockingWrites()
            guard admitted else {
                // Over the cap: a clean refusal, never a crash or a silent hang.
                let response = HTTPResponse(status: 503, headers: HTTPHeaders([("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")]), body: Array("too many connections\n".utf8))
                try? socket.write(ResponseWriter.serialize(response, includeBody: true, keepAlive: false), timeoutSeconds: 1)
                socket.close()
                continue
            }
            let thread = Thread { [self] in
                serve(socket, address: address)
                socket.close()
                lock.withLock {
                    activeConnections -= 1
                    if stopping && activeConnections == 0 { drained.signal() }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Stops accepting, lets in-flight requests finish (up to `drainSeconds`), closes idle
    /// keep-alive connections, and returns when all are closed or the time is up.
    /// A second call returns at once.
    public func stop(drainSeconds: Double = 10) {
        let (first, waitForDrain) = lock.withLock { () -> (Bool, Bool) in
            guard !stopping else { return (false, false) }
            stopping = true
            return (true, activeConnections > 0)
        }
        guard first else { return }
        if acceptThread != nil { acceptDone.wait() }
        listener?.close()
        if waitForDrain { _ = drained.wait(timeout: .now() + drainSeconds) }
    }

    // MARK: One connection

    private func serve(_ socket: ConnectionSocket, address: String) {
        let limits = configuration.limits
        var buffer: [UInt8] = []
        var waitingSince = monotonicSeconds()
        while true {
            // RFC 9112 §2.2: ignore empty lines before a request line.
            while buffer.count >= 2, buffer[0] == 0x0D, buffer[1] == 0x0A { buffer.removeFirst(2) }
            // 1. The head: idle timeout until its first byte, then the head deadline.
            guard let (head, headLength) = readHead(socket, &buffer, idleSince: waitingSince, address: address) else { return }
            buffer.removeFirst(headLength)

            // 2. The body, exactly Content-Length bytes (the rest stays for the next request).
            if head.expectsContinue && buffer.count < head.contentLength {
                do { try socket.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), timeoutSeconds: limits.writeTimeoutSeconds) } catch { return }
            }
            let bodyDeadline = monotonicSeconds() + limits.bodyDeadlineSeconds
            while buffer.count < head.contentLength {
                let result: ConnectionSocket.ReadResult
                do { result = try socket.read(into: &buffer, deadline: bodyDeadline, chunk: min(256 * 1024, max(16 * 1024, head.contentLength - buffer.count))) } catch { return }
                switch result {
                case .closed: return
                case .data: continue
                case .timeout:
                    fail(socket, RequestError(408, "the request body did not arrive within \(Int(limits.bodyDeadlineSeconds)) s"), address: address)
                    return
                }
            }
            let body = Array(buffer[0..<head.contentLength])
            buffer.removeFirst(head.contentLength)

            // 3. Answer.
            var request = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers, body: body)
            request.remoteAddress = address
            let started = monotonicSeconds()
            let response = handler(request)
            let keepAlive = head.keepAlive && !isStopping && !response.headers.contains("Connection", token: "close")
            let bytes = ResponseWriter.serialize(response, includeBody: head.method != "HEAD", keepAlive: keepAlive)
            let written: Bool
            do {
                try socket.write(bytes, timeoutSeconds: limits.writeTimeoutSeconds)
                written = true
            } catch { written = false }
            observer?(request, response, monotonicSeconds() - started)
            guard written, keepAlive else { return }
            waitingSince = monotonicSeconds()
        }
    }

    /// Reads until a complete request head is buffered. nil when the connection should end
    /// (closed by the peer, idle too long, stopping, or an error already answered).
    private func readHead(_ socket: ConnectionSocket, _ buffer: inout [UInt8], idleSince: Double, address: String) -> (RequestHead, Int)? {
        let limits = configuration.limits
        var deadline = buffer.isEmpty ? idleSince + limits.idleTimeoutSeconds : monotonicSeconds() + limits.headDeadlineSeconds
        while true {
            let outcome = buffer.withUnsafeBytes { raw in Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits) } }
            switch outcome {
            case .success(.complete(let head, let length)): return (head, length)
            case .success(.incomplete): break
            case .failure(let error):
                fail(socket, error, address: address)
                return nil
            }
            if isStopping && buffer.isEmpty { return nil }
            let wasEmpty = buffer.isEmpty
            let result: ConnectionSocket.ReadResult
            do { result = try socket.read(into: &buffer, deadline: min(deadline, monotonicSeconds() + 0.25)) } catch { return nil }
            switch result {
            case .closed: return nil
            case .data:
                if wasEmpty && !buffer.isEmpty { deadline = monotonicSeconds() + limits.headDeadlineSeconds }
            case .timeout:
                guard monotonicSeconds() >= deadline else { continue }
                if buffer.isEmpty { return nil }  // an idle keep-alive connection: close quietly
                fail(socket, RequestError(408, "the request head did not arrive within \(Int(limits.headDeadlineSeconds)) s"), address: address)
                return nil
            }
        }
    }

    /// Answers a framing error and ends the connection (its remaining bytes cannot be trusted).
    private func fail(_ socket: ConnectionSocket, _ error: RequestError, address: String) {
        let body = Array(JSONText.problem(status: error.status, detail: error.message).utf8)
        let response = HTTPResponse(status: error.status, contentType: "application/problem+json", body: body)
        try? socket.write(ResponseWriter.serialize(response, includeBody: true, keepAlive: false), timeoutSeconds: 2)
        var request = HTTPRequest(method: "-", target: "-")
        request.remoteAddress = address
        observer?(request, response, 0)
        // Half-close and drain briefly, so the client reads the answer instead of a reset.
        shutdown(socket.fd, Int32(SHUT_WR))
        var sink: [UInt8] = []
        _ = try? socket.read(into: &sink, deadline: monotonicSeconds() + 0.05)
    }
}

/// Minimal JSON text for the server's own error answers (RFC 9457 problem details).
enum JSONText {
    static func problem(status: Int, detail: String) -> String {
        "{\"type\":\"about:blank\",\"title\":\"\(escape(HTTPStatus.reason(status)))\",\"status\":\(status),\"detail\":\"\(escape(detail))\"}"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 { out += "\\u00" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
