import CLinuxIO
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Answers one request. Called on one of the server's worker threads; may block (SQLite is
/// synchronous), which holds that worker only.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// A generic HTTP/1.1 server on an epoll event loop: a few worker threads share one epoll set, so
/// any number of connections (up to a cap) costs no thread each, and a ready connection is read,
/// answered and re-armed by whichever worker takes its event (`EPOLLONESHOT`: one worker at a
/// time per connection). Keep-alive with one request in flight (pipelined requests are answered
/// in order), deadlines for the head, the body and idle time (a sweeper enforces them), and a
/// graceful stop. It knows nothing about what it serves.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 0
        public var limits = HTTPLimits()
        /// Event-loop threads: one per CPU this process may run on. They parse, run the handlers
        /// that `inline` names (which must not block), and write.
        public var eventThreads = max(1, cpusAvailable())
        /// Threads for every other handler (which may block, on a database write say), so that a
        /// slow request never holds up the event loop.
        public var blockingThreads = 8
        /// How long `stop` lets requests under way finish before `atDrainDeadline` interrupts them.
        public var drainSeconds: Double = 10
        public init(host: String = "127.0.0.1", port: Int = 0, limits: HTTPLimits = HTTPLimits()) {
            self.host = host
            self.port = port
            self.limits = limits
        }
    }

    /// One accepted connection. Its fields are touched only by the worker that owns it
    /// (`busy`), or by the sweeper after taking it from the table under the lock.
    final class Connection: @unchecked Sendable {
        let socket: ConnectionSocket
        let id: UInt64
        let address: String
        var buffer: [UInt8] = []
        /// Monotonic seconds: since when the connection waits for a request (idle), or since the
        /// first byte of an incomplete head, or since its head completed and the body is awaited.
        var since: Double
        var headPending = false
        var peerClosed = false
        var awaitingBody = false
        var sentContinue = false
        /// A worker owns it now; the sweeper leaves it alone.
        var busy = false
        /// An event came while a worker owned it: that worker serves it again before letting go.
        var pendingEvent = false
        var closed = false

        init(socket: ConnectionSocket, id: UInt64, address: String, now: Double) {
            self.socket = socket
            self.id = id
            self.address = address
            since = now
        }
    }

    public let configuration: Configuration
    let handler: HTTPHandler
    /// Which requests the handler answers without blocking (from memory): those run on the event
    /// loop; the rest go to the blocking pool. nil: every request goes to the pool.
    let inline: (@Sendable (HTTPRequest) -> Bool)?
    private var pool: BlockingPool?
    /// Called once per request with (request, response, seconds) for logs and metrics.
    let observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    private var listener: ListeningSocket?
    private var epoll: Int32 = -1
    private var wakeup: Int32 = -1
    private let lock = NSLock()
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 2
    /// Requests read in full whose answer is not yet written (or given up).
    private var inFlight = 0
    /// Called by `stop` when the drain window ends with requests still in flight (their count):
    /// the application makes their handlers end early (interrupting their database work, say).
    /// Set before `start`.
    public var atDrainDeadline: (@Sendable (Int) -> Void)?
    private var stopping = false
    private var threads: [Thread] = []
    private let finished = DispatchGroup()
    static let listenerID: UInt64 = 0
    static let wakeupID: UInt64 = 1

    public init(configuration: Configuration, observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)? = nil,
                inline: (@Sendable (HTTPRequest) -> Bool)? = nil, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.inline = inline
    }

    /// Binds and starts the workers and the sweeper; returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws -> Int {
        // A write to a closed peer must be an error, never a process-ending signal.
        signal(SIGPIPE, SIG_IGN)
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        listener.setNonBlocking()
        self.listener = listener
        epoll = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        wakeup = try syscall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        try register(listener.fd, id: Self.listenerID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        try register(wakeup, id: Self.wakeupID, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        for i in 0..<max(1, configuration.eventThreads) {
            startThread("http-event-\(i)") { [self] in workerLoop() }
        }
        let pool = BlockingPool()
        self.pool = pool
        for i in 0..<max(1, configuration.blockingThreads) {
            startThread("http-blocking-\(i)") { pool.run() }
        }
        startThread("http-sweeper") { [self] in sweeperLoop() }
        return listener.port
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        finished.enter()
        let thread = Thread { [finished] in
            body()
            finished.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
        threads.append(thread)
    }

    public var port: Int { listener?.port ?? 0 }

    public var connectionCount: Int { lock.withLock { connections.count } }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func register(_ fd: Int32, id: UInt64, events: UInt32, operation: Int32) throws(SocketError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        try syscall("epoll_ctl") { epoll_ctl(epoll, operation, fd, &event) }
    }

    /// Stops accepting, lets in-flight requests finish (up to `drainSeconds`, by default the
    /// configuration's), closes idle keep-alive connections, and returns when all are closed.
    /// A second call returns at once.
    ///
    /// A shutdown never lies: a request whose handler started is always answered before this
    /// returns (the process may exit right after). Cutting a handler off at the deadline instead
    /// could leave work committed whose answer is never written (an import, say). So at the
    /// deadline `atDrainDeadline` asks the application to end the handlers early (their
    /// transactions roll back and they answer 503), and this waits for those answers.
    public func stop(drainSeconds: Double? = nil) {
        let first = lock.withLock { () -> Bool in
            guard !stopping else { return false }
            stopping = true
            return true
        }
        guard first, let listener else { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, listener.fd, nil)
        listener.close()
        let deadline = monotonicSeconds() + (drainSeconds ?? configuration.drainSeconds)
        while monotonicSeconds() < deadline {
            closeIdleConnections()
            if connectionCount == 0 { break }
            usleep(20_000)
        }
        let cutOff = lock.withLock { inFlight }
        if cutOff > 0 {
            atDrainDeadline?(cutOff)
            while lock.withLock({ inFlight }) > 0 {
                closeIdleConnections()
                usleep(5_000)
            }
        }
        // Wake every worker (the eventfd stays readable) and let them exit; then close the rest.
        var one: UInt64 = 1
        _ = Glibc.write(wakeup, &one, 8)
        pool?.stop()
        let exited = finished.wait(timeout: .now() + max(0.5, deadline - monotonicSeconds())) == .success
        let rest = lock.withLock { () -> [Connection] in
            let all = connections.values.filter { !$0.busy }
            for c in all { c.closed = true }
            connections.removeAll()
            return all
        }
        for c in rest { c.socket.close() }
        if exited {
            Glibc.close(epoll)
            Glibc.close(wakeup)
        }
    }

    // MARK: Workers

    private func workerLoop() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), 500) }
            if count < 0 && errno != EINTR { return }
            for i in 0..<max(0, Int(count)) {
                switch events[i].data.u64 {
                case Self.listenerID: acceptAll()
                case Self.wakeupID: return
                case let id: if let connection = take(id) { serve(connection) }
                }
            }
            if isStopping && connectionCount == 0 { return }
        }
    }

    /// The connection with `id`, now owned by this worker; nil when gone or owned elsewhere.
    private func take(_ id: UInt64) -> Connection? {
        lock.withLock {
            guard let c = connections[id], !c.closed else { return nil }
            if c.busy {
                c.pendingEvent = true
                return nil
            }
            c.busy = true
            return c
        }
    }

    private func acceptAll() {
        guard let listener else { return }
        while true {
            let accepted: (fd: Int32, address: String)?
            do { accepted = try listener.acceptNow() } catch { return }
            guard let (fd, address) = accepted else { return }
            let socket = ConnectionSocket(fd: fd)
            socket.setNonBlockingWrites()
            let connection = lock.withLock { () -> Connection? in
                guard connections.count < configuration.limits.maxConnections, !stopping else { return nil }
                let c = Connection(socket: socket, id: nextID, address: address, now: monotonicSeconds())
                nextID += 1
                connections[c.id] = c
                return c
            }
            guard let connection else {
                // Over the cap: a clean refusal, never a crash or a silent hang.
                let response = HTTPResponse(status: 503, headers: HTTPHeaders([("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")]), body: Array("too many connections\n".utf8))
                try? socket.write(ResponseWriter.serialize(response, includeBody: true, keepAlive: false), timeoutSeconds: 1)
                socket.close()
                continue
            }
            do { try register(fd, id: connection.id, events: Self.connectionEvents, operation: EPOLL_CTL_ADD) } catch { close(connection) }
        }
    }

    static let connectionEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue

    enum Step { case rearmed, closed, handedOff }

    /// Serves the connection until it is re-armed with no event pending, closed, or handed to the
    /// blocking pool (which calls this again once it has answered). The caller owns `c`.
    private func serve(_ c: Connection, read: Bool = true) {
        var read = read
        while true {
            switch step(c, read: read) {
            case .closed, .handedOff: return
            case .rearmed:
                let again = lock.withLock { () -> Bool in
                    if c.pendingEvent {
                        c.pendingEvent = false
                        return true
                    }
                    c.busy = false
                    return false
                }
                if !again { return }
                read = true
            }
        }
    }

    /// Reads what arrived (when `read`) and answers every complete request in the buffer.
    private func step(_ c: Connection, read: Bool) -> Step {
        let limits = configuration.limits
        if read {
            switch c.socket.readAvailable(into: &c.buffer, chunk: c.awaitingBody ? 256 * 1024 : 16 * 1024) {
            case .data: break
            case .closed: c.peerClosed = true
            case .timeout: break  // nothing there after all (a spurious wake-up)
            }
        }
        while true {
            // RFC 9112 §2.2: ignore empty lines before a request line.
            if !c.awaitingBody {
                var skip = 0
                while c.buffer.count >= skip + 2, c.buffer[skip] == 0x0D, c.buffer[skip + 1] == 0x0A { skip += 2 }
                if skip > 0 { c.buffer.removeFirst(skip) }
            }
            guard !c.buffer.isEmpty else { break }
            let outcome = c.buffer.withUnsafeBytes { raw in Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits) } }
            let head: RequestHead, headLength: Int
            switch outcome {
            case .failure(let error):
                fail(c, error)
                return .closed
            case .success(.incomplete):
                // The head deadline runs from its first byte.
                if !c.headPending {
                    c.headPending = true
                    c.since = monotonicSeconds()
                }
                return rearmOrClose(c, partial: true)
            case .success(.complete(let h, let length)):
                head = h
                headLength = length
                c.headPending = false
            }
            // The body: exactly Content-Length bytes (the rest stays for the next request).
            if c.buffer.count - headLength < head.contentLength {
                if !c.awaitingBody {
                    c.awaitingBody = true
                    c.since = monotonicSeconds()
                }
                if head.expectsContinue && !c.sentContinue {
                    c.sentContinue = true
                    do { try c.socket.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), timeoutSeconds: limits.writeTimeoutSeconds) } catch {
                        close(c)
                        return .closed
                    }
                }
                return rearmOrClose(c, partial: true)
            }
            let body = Array(c.buffer[headLength..<(headLength + head.contentLength)])
            c.buffer.removeFirst(headLength + head.contentLength)
            c.awaitingBody = false
            c.sentContinue = false

            lock.withLock { inFlight += 1 }  // until `finish`
            var incoming = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers, body: body)
            incoming.remoteAddress = c.address
            let request = incoming
            if let inline, inline(request) {
                switch respond(c, request, head, onEventLoop: true) {
                case .closed: return .closed
                case .handedOff: return .handedOff
                case .rearmed: continue
                }
            } else if let pool {
                pool.submit { [self] in
                    if respond(c, request, head, onEventLoop: false) == .rearmed { serve(c, read: false) }
                }
                return .handedOff
            }
        }
        return rearmOrClose(c, partial: false)
    }

    /// Runs the handler and writes its answer; false when the connection was closed.
    /// Runs the handler and writes its answer. `.rearmed` here means "written, go on with the
    /// connection"; `.closed` that it was closed. On the event loop a write that would block (a
    /// client not reading its answers) is finished on the blocking pool instead (`.handedOff`),
    /// so one slow reader never stalls the loop.
    private func respond(_ c: Connection, _ request: HTTPRequest, _ head: RequestHead, onEventLoop: Bool) -> Step {
        let started = monotonicSeconds()
        let response = handler(request)
        let keepAlive = head.keepAlive && !isStopping && !response.headers.contains("Connection", token: "close")
        let bytes = ResponseWriter.serialize(response, includeBody: head.method != "HEAD", keepAlive: keepAlive)
        if onEventLoop, let pool {
            switch c.socket.writeAvailable(bytes) {
            case .some(let sent) where sent == bytes.count: break
            case .some(let sent):
                pool.submit { [self] in
                    let rest = Array(bytes[sent...])
                    if finish(c, request, response, started, written: (try? c.socket.write(rest, timeoutSeconds: configuration.limits.writeTimeoutSeconds)) != nil,
                              keepAlive: keepAlive) == .rearmed {
                        serve(c, read: false)
                    }
                }
                return .handedOff
            case .none: return finish(c, request, response, started, written: false, keepAlive: keepAlive)
            }
            return finish(c, request, response, started, written: true, keepAlive: keepAlive)
        }
        let written = (try? c.socket.write(bytes, timeoutSeconds: configuration.limits.writeTimeoutSeconds)) != nil
        return finish(c, request, response, started, written: written, keepAlive: keepAlive)
    }

    private func finish(_ c: Connection, _ request: HTTPRequest, _ response: HTTPResponse, _ started: Double, written: Bool, keepAlive: Bool) -> Step {
        observer?(request, response, monotonicSeconds() - started)
        lock.withLock { inFlight -= 1 }
        guard written, keepAlive else {
            close(c)
            return .closed
        }
        c.since = monotonicSeconds()
        return .rearmed
    }

    /// Hands the connection back to epoll (still owned: `serve` lets go), or closes it when the
    /// peer is gone (a partial request from a peer that closed its side can never complete).
    private func rearmOrClose(_ c: Connection, partial: Bool) -> Step {
        if c.peerClosed || (isStopping && !partial && c.buffer.isEmpty) {
            close(c)
            return .closed
        }
        do { try register(c.socket.fd, id: c.id, events: Self.connectionEvents, operation: EPOLL_CTL_MOD) } catch {
            close(c)
            return .closed
        }
        return .rearmed
    }

    /// Closes a connection this worker (or the sweeper) owns.
    private func close(_ c: Connection) {
        lock.withLock {
            c.closed = true
            connections[c.id] = nil
        }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, c.socket.fd, nil)
        c.socket.close()
    }

    /// Answers a framing error and ends the connection (its remaining bytes cannot be trusted).
    private func fail(_ c: Connection, _ error: RequestError) {
        let body = Array(JSONText.problem(status: error.status, detail: error.message).utf8)
        let response = HTTPResponse(status: error.status, contentType: "application/problem+json", body: body)
        try? c.socket.write(ResponseWriter.serialize(response, includeBody: true, keepAlive: false), timeoutSeconds: 2)
        var request = HTTPRequest(method: "-", target: "-")
        request.remoteAddress = c.address
        observer?(request, response, 0)
        // Half-close and drain what has arrived, so the client reads the answer instead of a
        // reset (without waiting: this may run on the event loop).
        shutdown(c.socket.fd, Int32(SHUT_WR))
        var sink: [UInt8] = []
        for _ in 0..<4 {
            guard case .data = c.socket.readAvailable(into: &sink, chunk: 64 * 1024) else { break }
            sink.removeAll(keepingCapacity: true)
        }
        close(c)
    }

    // MARK: Deadlines

    /// Every 50 ms: closes idle keep-alive connections past the idle timeout, and answers 408 to
    /// requests whose head or body is late (slowloris, RFC 9110 §15.5.9).
    private func sweeperLoop() {
        let limits = configuration.limits
        while true {
            usleep(50_000)
            if isStopping && connectionCount == 0 { return }
            let now = monotonicSeconds()
            let expired = lock.withLock { () -> [Connection] in
                var taken: [Connection] = []
                for c in connections.values where !c.busy && !c.closed {
                    let limit = c.awaitingBody ? limits.bodyDeadlineSeconds : c.headPending ? limits.headDeadlineSeconds : limits.idleTimeoutSeconds
                    if now - c.since >= limit {
                        c.busy = true
                        taken.append(c)
                    }
                }
                return taken
            }
            for c in expired {
                if !c.headPending && !c.awaitingBody {
                    close(c)  // an idle keep-alive connection: close quietly
                } else if c.awaitingBody {
                    fail(c, RequestError(408, "the request body did not arrive within \(Int(limits.bodyDeadlineSeconds)) s"))
                } else {
                    fail(c, RequestError(408, "the request head did not arrive within \(Int(limits.headDeadlineSeconds)) s"))
                }
            }
        }
    }

    /// While stopping: closes connections with no request under way.
    private func closeIdleConnections() {
        let idle = lock.withLock { () -> [Connection] in
            var taken: [Connection] = []
            for c in connections.values where !c.busy && !c.closed && !c.headPending && !c.awaitingBody {
                c.busy = true
                taken.append(c)
            }
            return taken
        }
        for c in idle { close(c) }
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

/// Threads that run handlers which may block, in the order they were submitted.
final class BlockingPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// A pool thread's loop: returns once stopped and every submitted job has run.
    func run() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            guard head < jobs.count else {
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job()
        }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// CPUs this process may run on (its affinity mask: `taskset -c 1` gives 1).
func cpusAvailable() -> Int {
    let count = Int(clinuxio_cpus_available())
    return count > 0 ? count : ProcessInfo.processInfo.activeProcessorCount
}
