import CLinuxIO
import Foundation
import Locking
#if canImport(Glibc)
    import Glibc
#endif

/// Answers one request. Called on one of the server's threads; may block (SQLite is synchronous),
/// which holds that thread only.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Answers a request on the event loop when it can without blocking (from memory); nil: the
/// request goes to the blocking pool and `HTTPHandler` answers it there.
public typealias HTTPInlineHandler = @Sendable (HTTPRequest) -> HTTPResponse?

/// A generic HTTP/1.1 server: an epoll event loop (`EventLoop`) whose threads parse requests, run
/// the handlers that answer from memory and write, a pool of threads (`BlockingPool`) for the
/// handlers that may block, and one state machine per connection (`ConnectionStateMachine`) for
/// keep-alive and the deadlines. Keep-alive with one request in flight (pipelined requests are
/// answered in order), a connection cap, and a graceful stop. It knows nothing about what it
/// serves.
public final class HTTPServer: Sendable {
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
        /// Threads for the handlers `waitsOnOthers` names (they wait on other servers: a fetch of a
        /// slow site), so that however long those wait they never hold the threads the rest need.
        public var outboundThreads = 16
        /// Requests of that lane waiting for one of its threads at most; past it a request is
        /// answered 503 with Retry-After at once (RFC 9110 §15.6.4).
        public var outboundQueue = 32
        /// Which requests go to the outbound lane; nil: none.
        public var waitsOnOthers: (@Sendable (HTTPRequest) -> Bool)?
        /// How long `stop` lets requests under way finish before `atDrainDeadline` interrupts them.
        public var drainSeconds: Double = 10
        /// Asked once a request's head is complete and its body is still to come: an answer that
        /// cannot depend on the body (no such route, a missing credential) goes out at once with
        /// `Connection: close`, and the body is never read. nil: always wait for the body.
        public var answerBeforeBody: (@Sendable (HTTPRequest) -> HTTPResponse?)?
        public init(host: String = "127.0.0.1", port: Int = 0, limits: HTTPLimits = HTTPLimits()) {
            self.host = host
            self.port = port
            self.limits = limits
        }
    }

    public let configuration: Configuration
    let handler: HTTPHandler
    /// Answers the requests it can without blocking (from memory) on the event loop; the rest go
    /// to the blocking pool. nil: every request goes to the pool.
    let inline: HTTPInlineHandler?
    /// Answers the hot requests from their bytes on the event loop, before any `HTTPRequest` is made.
    let hot: HTTPHotHandler?
    /// Called once per request with (request, response, seconds) for logs and metrics.
    let observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)?
    private let running = Locked<EventLoop?>(nil)
    private let drainDeadlineHook = Locked<(@Sendable (Int) -> Void)?>(nil)

    /// `inline` names the requests `handler` answers without blocking: those run on the event loop.
    public convenience init(
        configuration: Configuration, observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)? = nil,
        inline: (@Sendable (HTTPRequest) -> Bool)? = nil, handler: @escaping HTTPHandler
    ) {
        var answerInline: HTTPInlineHandler?
        if let inline {
            answerInline = { @Sendable request in inline(request) ? handler(request) : nil }
        }
        self.init(configuration: configuration, observer: observer, answerInline: answerInline, handler: handler)
    }

    /// `answerInline` decides and answers in one call on the event loop (a router matches once);
    /// when it returns nil, `handler` answers on the blocking pool. `hot` is asked first, from the
    /// request's bytes (`HTTPHotHandler`).
    public init(
        configuration: Configuration, observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)? = nil,
        hot: HTTPHotHandler? = nil, answerInline: HTTPInlineHandler?, handler: @escaping HTTPHandler
    ) {
        self.configuration = configuration
        self.hot = hot
        self.handler = handler
        self.observer = observer
        self.inline = answerInline
    }

    /// Requests answered from memory (as `routes` says) run on the event loop.
    public convenience init(
        configuration: Configuration, observer: (@Sendable (HTTPRequest, HTTPResponse, Double) -> Void)? = nil,
        routes: RouteTable, handler: @escaping HTTPHandler
    ) {
        self.init(configuration: configuration, observer: observer, inline: { routes.answersFromMemory($0) }, handler: handler)
    }

    /// Called by `stop` when the drain window ends with requests still in flight (their count):
    /// the application makes their handlers end early (interrupting their database work, say).
    /// Set before `start`.
    public var atDrainDeadline: (@Sendable (Int) -> Void)? {
        get { drainDeadlineHook.withLock { $0 } }
        set { drainDeadlineHook.withLock { $0 = newValue } }
    }

    /// Binds and starts the threads; returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws -> Int {
        // A write to a closed peer must be an error, never a process-ending signal.
        signal(SIGPIPE, SIG_IGN)
        // Each connection is a descriptor: as many as the hard limit allows (`ConnectionBudget`).
        ConnectionBudget.raiseDescriptorLimit()
        let loop = try EventLoop(configuration: configuration, handler: handler, inline: inline, hot: hot, observer: observer)
        let fresh = running.withLock { running in
            guard running == nil else { return false }
            running = loop
            return true
        }
        guard fresh else {
            loop.closeDescriptors()
            preconditionFailure("HTTPServer.start called twice")
        }
        loop.start()
        return loop.port
    }

    public var port: Int { running.withLock { $0 }?.port ?? 0 }

    public var connectionCount: Int { running.withLock { $0 }?.connectionCount ?? 0 }

    /// Requests waiting for a blocking-pool thread (for tests that must know one is queued).
    var requestsWaitingForThePool: Int { running.withLock { $0 }?.pool.waiting ?? 0 }

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
        guard let loop = running.withLock({ $0 }) else { return }
        loop.stop(drainMilliseconds: milliseconds(drainSeconds ?? configuration.drainSeconds), atDrainDeadline: atDrainDeadline)
    }
}

/// CPUs this process may run on (its affinity mask: `taskset -c 1` gives 1).
func cpusAvailable() -> Int {
    let count = Int(clinuxio_cpus_available())
    return count > 0 ? count : ProcessInfo.processInfo.activeProcessorCount
}
