/// The life of one HTTP/1.1 connection as a value: it takes what happened (bytes parsed into a
/// partial or complete request, an answer started or written, the peer's close, a clock tick) with
/// the time in monotonic milliseconds, and says what to do. It does no I/O and reads no clock, so
/// every deadline can be tested with plain numbers; the server's I/O code only carries out its
/// actions.
///
/// Deadlines (all from `HTTPLimits`):
/// - idle: a new or kept-alive connection with no request byte for `idle` ms is closed quietly;
/// - head: a request head still incomplete `head` ms after the connection began waiting for it
///   (accepted, or its previous answer written) answers 408, however its bytes trickle in: one
///   total deadline, never extended by a byte (slowloris, RFC 9110 §15.5.9);
/// - body: a body still incomplete `body` ms after its head answers 408, and so does one arriving
///   slower than `minimumBodyRate` bytes a second once `bodyGrace` ms have passed: `bodyGrace` +
///   received ÷ rate after its head (a body dripped or stalled holds a connection for seconds);
/// - write: an answer the client has not taken `write` ms after it started ends the connection;
/// - linger: a connection answered and half-closed (an error, or a refusal over the cap) is read
///   and discarded for at most `linger` ms before it closes, so the client reads the answer instead
///   of a reset (RFC 9112 §9.6).
/// While a handler runs there is no deadline: a request whose handler started is always answered.
/// While an answer is being written no further request is read (backpressure for pipelining).
struct ConnectionStateMachine: Equatable, Sendable {
    /// The deadlines, in milliseconds.
    struct Timeouts: Equatable, Sendable {
        var head: UInt64
        var body: UInt64
        var idle: UInt64
        var write: UInt64
        var linger: UInt64
        /// Body bytes a second a body must average after `bodyGrace`; 0: no rate, only `body`.
        var minimumBodyRate: UInt64
        var bodyGrace: UInt64

        init(
            head: UInt64, body: UInt64, idle: UInt64, write: UInt64, linger: UInt64 = 2_000, minimumBodyRate: UInt64 = 0,
            bodyGrace: UInt64 = 0
        ) {
            self.head = head
            self.body = body
            self.idle = idle
            self.write = write
            self.linger = linger
            self.minimumBodyRate = minimumBodyRate
            self.bodyGrace = bodyGrace
        }

        init(_ limits: HTTPLimits) {
            self.init(
                head: milliseconds(limits.headDeadlineSeconds), body: milliseconds(limits.bodyDeadlineSeconds),
                idle: milliseconds(limits.idleTimeoutSeconds), write: milliseconds(limits.writeTimeoutSeconds),
                minimumBodyRate: UInt64(max(0, limits.minimumBodyBytesPerSecond)), bodyGrace: milliseconds(limits.bodyGraceSeconds))
        }

        /// When a body whose head completed at `since`, with `received` bytes of it in, is late.
        func bodyDeadline(since: UInt64, received: Int) -> UInt64 {
            let whole = since + body
            guard minimumBodyRate > 0 else { return whole }
            return min(whole, since + bodyGrace + UInt64(max(0, received)) * 1000 / minimumBodyRate)
        }
    }

    enum State: Equatable, Sendable {
        /// Waiting for the first byte of a request: a new connection or a kept-alive one.
        case idle(since: UInt64)
        /// Part of a request head has arrived; the connection has waited for it since `since`.
        case readingHead(since: UInt64)
        /// The head is complete and the body is awaited since `since`, `received` bytes of it in;
        /// `continueSent` once the interim 100 (Continue) went out (RFC 9110 §10.1.1).
        case readingBody(since: UInt64, continueSent: Bool, received: Int)
        /// A complete request is with its handler.
        case handling
        /// Its answer is being written since `since`.
        case writing(since: UInt64)
        /// Answered and half-closed at `since`: what the client still sends is read and discarded
        /// until it closes or the linger deadline passes.
        case lingering(since: UInt64)
        case closed
    }

    enum Action: Equatable, Sendable {
        /// Nothing to do now.
        case none
        /// Wait for more bytes (re-arm the descriptor).
        case read
        /// Write `HTTP/1.1 100 Continue`, then wait for more bytes.
        case sendContinue
        /// Hand the complete request to its handler.
        case dispatch
        /// The socket did not take the whole answer: wait until it is writable (re-arm for
        /// writing, not reading), under the write deadline.
        case awaitWritable
        /// Close without a word: the idle timeout, the peer gone, a stop, a failed write.
        case close
        /// Answer this error (408) and close.
        case fail(RequestError)
    }

    let timeouts: Timeouts
    private(set) var state: State
    /// The peer closed its side: a partial request can never complete.
    private(set) var peerClosed = false

    init(timeouts: Timeouts, now: UInt64) {
        self.timeouts = timeouts
        state = .idle(since: now)
    }

    /// No request under way: a stop may close the connection.
    var isIdle: Bool { if case .idle = state { true } else { false } }

    /// Between requests, where empty lines before a request line are skipped (RFC 9112 §2.2).
    var awaitsRequestLine: Bool {
        switch state {
        case .idle, .readingHead: true
        default: false
        }
    }

    var isReadingBody: Bool { if case .readingBody = state { true } else { false } }

    var isWriting: Bool { if case .writing = state { true } else { false } }

    var isLingering: Bool { if case .lingering = state { true } else { false } }

    /// Whether a request may be read and parsed now: not while one is with its handler or its
    /// answer is still going out (a pipelining client that does not read gets no further answers
    /// made), nor once answered for good.
    var readsRequests: Bool {
        switch state {
        case .idle, .readingHead, .readingBody: true
        case .handling, .writing, .lingering, .closed: false
        }
    }
    /// When the current deadline passes (monotonic milliseconds), or nil while a handler runs or
    /// once closed.
    var deadline: UInt64? {
        switch state {
        case .idle(let since): since + timeouts.idle
        case .readingHead(let since): since + timeouts.head
        case .readingBody(let since, _, let received): timeouts.bodyDeadline(since: since, received: received)
        case .writing(let since): since + timeouts.write
        case .lingering(let since): since + timeouts.linger
        case .handling, .closed: nil
        }
    }

    // MARK: Events

    /// The peer closed its side (a read returned end of file).
    mutating func peerDidClose() { peerClosed = true }

    /// The buffered bytes hold part of a request head: its deadline runs from when the connection
    /// began waiting for it (`idle`'s `since`), not from its first byte.
    mutating func partialHead(now: UInt64) -> Action {
        if case .idle(let since) = state { state = .readingHead(since: min(since, now)) }
        return readMore(stopping: false)
    }

    /// The head is complete but its body is not (`received` bytes of it are in): the body deadline
    /// runs from the first time this is seen; a client that sent `Expect: 100-continue` is told to
    /// go on, once.
    mutating func partialBody(expectsContinue: Bool, received: Int, now: UInt64) -> Action {
        if peerClosed { return closed() }
        switch state {
        case .readingBody(let since, let continueSent, _):
            state = .readingBody(since: since, continueSent: continueSent || expectsContinue, received: received)
            return expectsContinue && !continueSent ? .sendContinue : .read
        default:
            state = .readingBody(since: now, continueSent: expectsContinue, received: received)
            return expectsContinue ? .sendContinue : .read
        }
    }

    /// A whole request (head and body) is buffered.
    mutating func requestComplete() -> Action {
        state = .handling
        return .dispatch
    }

    /// The handler answered and its bytes start going out.
    mutating func writeStarted(now: UInt64) { state = .writing(since: now) }

    /// A request answered on the spot, its answer queued with the connection's bytes to write (a
    /// hot handler's): idle from now, as after a written answer; should the socket not take the
    /// queued bytes at once, `writeStarted` starts the write deadline then.
    mutating func answeredAtOnce(now: UInt64) { state = .idle(since: now) }

    /// The socket took only part of the answer: wait for it to take more, under the deadline that
    /// started with the write.
    mutating func writeBlocked() -> Action {
        guard case .writing = state else { return closed() }
        return .awaitWritable
    }

    /// The answer was written in full (`written`) or the write failed or stalled. A kept-alive
    /// connection waits for its next request, idle from now.
    mutating func writeFinished(written: Bool, keepAlive: Bool, now: UInt64) -> Action {
        guard written, keepAlive else { return closed() }
        state = .idle(since: now)
        return .none
    }

    /// Every complete request in the buffer was handled: wait for more bytes, or close when the
    /// peer is gone or the server stops and no request is under way.
    mutating func readMore(stopping: Bool) -> Action {
        if peerClosed || (stopping && isIdle) { return closed() }
        if isLingering { return .read }
        return .read
    }

    /// A framing error, a 408 or a refusal was answered and the write side shut: the connection's
    /// remaining bytes cannot be trusted, so they are read and discarded until the peer closes
    /// (then `peerDidClose` + `readMore`) or the linger deadline (RFC 9112 §9.6).
    mutating func linger(now: UInt64) { state = .lingering(since: now) }

    /// The drain window of a stop ended: every connection not running a handler closes (an answer
    /// the client has not taken is given up). A handler under way is left to answer.
    mutating func drainDeadlinePassed() -> Action {
        if case .handling = state { return .none }
        return closed()
    }

    /// The clock reached `now`: what to do about a deadline that has passed.
    mutating func tick(now: UInt64) -> Action {
        guard let deadline, now >= deadline else { return .none }
        switch state {
        case .idle:
            return closed()
        case .readingHead:
            state = .closed
            return .fail(RequestError(408, "the request head did not arrive within \(Self.text(timeouts.head))"))
        case .readingBody(let since, _, _):
            state = .closed
            if deadline < since + timeouts.body {
                return .fail(RequestError(408, "the request body arrived slower than \(timeouts.minimumBodyRate) bytes a second"))
            }
            return .fail(RequestError(408, "the request body did not arrive within \(Self.text(timeouts.body))"))
        case .writing, .lingering:
            return closed()
        case .handling, .closed:
            return .none
        }
    }

    private mutating func closed() -> Action {
        state = .closed
        return .close
    }

    /// "10 s", or "600 ms" below a second.
    static func text(_ milliseconds: UInt64) -> String {
        milliseconds >= 1000 && milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

/// Seconds (a limit) as whole milliseconds.
func milliseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, (seconds * 1000).rounded())) }
