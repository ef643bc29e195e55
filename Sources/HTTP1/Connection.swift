import Locking
import CLinuxIO
import Dispatch
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// One accepted connection: its socket, the bytes read and not yet used, and its state machine.
/// `@unchecked Sendable`: it lives on one event thread, which alone touches its fields, except while
/// its request is with the blocking pool: then that thread leaves it alone (its slot is `handedOff`)
/// until the pool posts it back through the thread's `Mailbox`, whose lock orders the two.
final class Connection: @unchecked Sendable {
    let socket: ConnectionSocket
    let id: UInt64
    let address: String
    var buffer: [UInt8] = []
    var machine: ConnectionStateMachine
    /// The field ranges of the head parsed last (kept with its capacity from one request to the next).
    var fields: [FieldRange] = []
    /// `out` is what is to be written (answers made on the event loop, batched, or one ordinary
    /// answer); the rest is the hot handler's scratch room.
    var hot = HotBuffers()
    /// How many bytes of `hot.out` the socket has taken.
    var written = 0
    /// The ordinary answer in `hot.out`, to record once it is written or given up.
    var pending: PendingAnswer?
    /// Registered for writing (`EventLoop.writableEvents`) rather than reading.
    var awaitsWritable = false
    /// A read filled its chunk: more bytes may wait, of which edge-triggered epoll says nothing more.
    var moreToRead = false

    init(socket: ConnectionSocket, id: UInt64, address: String, machine: ConnectionStateMachine) {
        self.socket = socket
        self.id = id
        self.address = address
        self.machine = machine
    }
}

/// An ordinary answer on its way out: what to record once it is written or given up.
struct PendingAnswer {
    let request: HTTPRequest
    let response: HTTPResponse
    let started: Double
    let keepAlive: Bool
}

/// Serving a connection: the I/O that carries out what its state machine says. No thread ever
/// waits on a client here: reads and writes take what the socket has or takes now, and the rest
/// waits in epoll under the state machine's deadlines.
extension EventThread {
    enum Step { case rearmed, closed, handedOff }

    /// Writes what is left of an answer, then (the answer out) reads what arrived when `read` and
    /// answers every complete request in the buffer.
    func step(_ c: Connection, read: Bool, scratch: UnsafeMutableRawBufferPointer?) -> Step {
        if let stop = flush(c) { return stop }
        if c.machine.isLingering { return discard(c, scratch: scratch) }
        let limits = configuration.limits
        if read { readAvailable(c, scratch: scratch) }
        while true {
            if c.machine.awaitsRequestLine { skipEmptyLines(c) }
            guard !c.buffer.isEmpty else { break }
            let outcome = c.buffer.withUnsafeBytes { raw in
                Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits, fields: &c.fields) }
            }
            guard case .success(.complete(let raw)) = outcome else {
                // Answers made for the requests before this one go out first.
                if let stop = flush(c) { return stop }
                if case .failure(let error) = outcome { return fail(c, error, scratch: scratch) }
                return carryOut(c.machine.partialHead(now: monotonicMilliseconds()), c)
            }
            if answeredHot(c, raw) {
                // Written with the next batch (pipelined answers go out in one write), but a client that
                // pipelines and does not read holds at most one batch of answers here.
                if c.hot.out.count >= Self.batchBytes, let stop = flush(c) { return stop }
                continue
            }
            if let stop = flush(c) { return stop }
            let head = c.buffer.withUnsafeBufferPointer { raw.head(in: $0, fields: c.fields) }
            let headLength = raw.length
            // The body: exactly Content-Length bytes (the rest stays for the next request).
            if c.buffer.count - headLength < head.contentLength {
                // An answer that cannot depend on the body goes out before it, instead of a 100.
                if !c.machine.isReadingBody, let answerBeforeBody = loop.configuration.answerBeforeBody {
                    var headOnly = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers)
                    headOnly.remoteAddress = c.address
                    if let response = answerBeforeBody(headOnly) { return answerBeforeItsBody(c, headOnly, response, scratch: scratch) }
                }
                let received = c.buffer.count - headLength
                return carryOut(
                    c.machine.partialBody(expectsContinue: head.expectsContinue, received: received, now: monotonicMilliseconds()), c)
            }
            let body = Array(c.buffer[headLength..<(headLength + head.contentLength)])
            c.buffer.removeFirst(headLength + head.contentLength)
            _ = c.machine.requestComplete()

            loop.inFlight.add(1, ordering: .relaxed)  // until the answer is written or given up
            var incoming = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers, body: body)
            incoming.remoteAddress = c.address
            let request = incoming
            if let inline = loop.inline, let response = inline(request) {
                loop.prepareAnswer(c, request, head, response, started: monotonicSeconds())
                if let stop = flush(c) { return stop }
                continue
            }
            handOff(c, request, head)
            return .handedOff
        }
        if let stop = flush(c) { return stop }
        return carryOut(c.machine.readMore(stopping: isStopping), c)
    }

    /// Reads what the socket has now into the connection's buffer: a head's worth, or a body's.
    /// Inlined into `step`, where its accesses to the connection's properties join the others'.
    @inline(__always)
    private func readAvailable(_ c: Connection, scratch: UnsafeMutableRawBufferPointer?) {
        let chunk = c.machine.isReadingBody ? EventLoop.bodyChunk : EventLoop.headChunk
        switch c.socket.readAvailable(into: &c.buffer, chunk: chunk, scratch: scratch) {
        case .data(let count): c.moreToRead = count == chunk
        case .closed: c.machine.peerDidClose()
        case .timeout: break  // nothing there after all (a spurious wake-up)
        }
    }

    /// RFC 9112 §2.2: ignore empty lines before a request line. The bytes are read in one access to
    /// `c.buffer`: read one at a time through the class property, each was an exclusivity check
    /// (callgrind: about 150 instructions a request).
    @inline(__always)
    private func skipEmptyLines(_ c: Connection) {
        let skip = c.buffer.withUnsafeBufferPointer { bytes in
            var skip = 0
            while bytes.count >= skip + 2, bytes[skip] == 0x0D, bytes[skip + 1] == 0x0A { skip += 2 }
            return skip
        }
        if skip > 0 { c.buffer.removeFirst(skip) }
    }

    /// Whether the hot handler answered the request at once (into `c.hot.out`), its bytes then
    /// consumed. Only a bodiless HTTP/1.1 keep-alive request, and not while stopping: HTTP/1.0
    /// keep-alive takes the ordinary way, which says `Connection: keep-alive`.
    @inline(__always)
    private func answeredHot(_ c: Connection, _ raw: RawRequestHead) -> Bool {
        guard let hot = loop.hot, raw.contentLength == 0, raw.keepAlive, raw.version == .http11, !isStopping else { return false }
        let answered = c.buffer.withUnsafeBufferPointer { bytes in
            c.fields.withUnsafeBufferPointer { fields in
                hot(RequestView(bytes: bytes, head: raw, fields: fields, remoteAddress: c.address), &c.hot)
            }
        }
        guard answered else { return false }
        c.buffer.removeFirst(raw.length)
        c.machine.answeredAtOnce(now: monotonicMilliseconds())
        return true
    }

    /// Gives the request to the handler pool. The connection is the pool's until it comes back to
    /// this thread (`Mailbox.Message.answered`).
    private func handOff(_ c: Connection, _ request: HTTPRequest, _ head: RequestHead) {
        if var slot = slots[c.id] {
            slot.handedOff = true
            slots.updateValue(slot, forKey: c.id)
        }
        let loop = loop, mailbox = mailbox
        var request = request
        let presence = ClientPresence(fd: c.socket.fd)
        request.clientGone = { presence.gone }
        let outbound = loop.configuration.waitsOnOthers?(request) ?? false
        if outbound, loop.outboundPool.waiting >= loop.configuration.outboundQueue {
            loop.prepareAnswer(c, request, head, EventThread.outboundBusy, started: monotonicSeconds())
            mailbox.post(.answered(c))
            return
        }
        (outbound ? loop.outboundPool : loop.pool).submit { [request] in
            let started = monotonicSeconds()
            // Past the drain deadline a request still queued is not started (README, graceful stop).
            let response = loop.drainExpired.load(ordering: .relaxed) ? EventThread.stopping : loop.handler(request)
            presence.answered()
            loop.prepareAnswer(c, request, head, response, started: started)
            mailbox.post(.answered(c))
        }
    }

    /// The answer to a request of the outbound lane when its queue is full.
    static let outboundBusy: HTTPResponse = {
        var response = HTTPResponse(
            status: 503, contentType: "application/problem+json",
            body: Array(ProblemJSON.problem(status: 503, detail: "too many requests that wait on other servers are queued").utf8))
        response.headers.add("Retry-After", "5")
        return response
    }()

    /// Hot answers batched before they are written.
    static let batchBytes = 64 * 1024

    /// The answer to a request dequeued after the drain deadline.
    static let stopping: HTTPResponse = {
        var response = HTTPResponse(
            status: 503, contentType: "application/problem+json",
            body: Array(ProblemJSON.problem(status: 503, detail: "the server is stopping").utf8))
        response.headers.add("Retry-After", "1")
        response.headers.add("Connection", "close")
        return response
    }()

    /// Carries out what the state machine said after a read.
    private func carryOut(_ action: ConnectionStateMachine.Action, _ c: Connection) -> Step {
        switch action {
        case .close:
            close(c)
            return .closed
        case .fail(let error):
            return fail(c, error, scratch: nil)
        case .sendContinue:
            // 25 bytes to a connection with nothing else to send: the socket takes them at once.
            let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            guard (try? c.socket.writeAvailable(interim[...])) == interim.count else {
                close(c)
                return .closed
            }
        case .read, .none, .dispatch, .awaitWritable: break
        }
        // The registration stands (edge-triggered, `EventLoop.connectionEvents`) unless it was for writing, or bytes
        // may be left unread: re-registering then reports them as a new event.
        guard c.awaitsWritable || c.moreToRead else { return .rearmed }
        c.awaitsWritable = false
        c.moreToRead = false
        do { try register(c, operation: EPOLL_CTL_MOD) } catch {
            close(c)
            return .closed
        }
        return .rearmed
    }

    /// Writes what the socket takes of the write buffer now. nil: nothing is left to write and the
    /// connection goes on; `.rearmed`: the rest waits for the socket to be writable (in epoll, under
    /// the write deadline); `.closed`: the write failed or the answer ended the connection.
    private func flush(_ c: Connection) -> Step? {
        guard c.written < c.hot.out.count else { return nil }
        guard let sent = try? c.socket.writeAvailable(c.hot.out[c.written...]) else {
            close(c)  // records the answer as not written
            return .closed
        }
        c.written += sent
        guard c.written == c.hot.out.count else {
            // Hot answers were made at once: their write deadline starts now.
            if !c.machine.isWriting { c.machine.writeStarted(now: monotonicMilliseconds()) }
            guard c.machine.writeBlocked() == .awaitWritable,
                (try? register(c, operation: EPOLL_CTL_MOD, events: EventLoop.writableEvents)) != nil
            else {
                close(c)
                return .closed
            }
            c.awaitsWritable = true
            return .rearmed
        }
        c.hot.out.removeAll(keepingCapacity: true)
        c.written = 0
        var keepAlive = true
        if let answer = c.pending {
            c.pending = nil
            answerEnded(answer)
            keepAlive = answer.keepAlive
        }
        // An ordinary answer, or hot ones that had to wait for the socket.
        if c.machine.isWriting, c.machine.writeFinished(written: true, keepAlive: keepAlive, now: monotonicMilliseconds()) == .close {
            close(c)
            return .closed
        }
        return nil
    }

    /// An answer was written in full or given up: it is logged and no longer in flight.
    private func answerEnded(_ answer: PendingAnswer) {
        loop.observer?(answer.request, answer.response, monotonicSeconds() - answer.started)
        loop.inFlight.subtract(1, ordering: .relaxed)
        if isStopping { loop.changed.signal() }
    }

    /// Closes a connection this thread owns; an answer still unsent is given up. `keepingItsPlace`:
    /// closed to make room, its place under the cap goes to the newcomer.
    func close(_ c: Connection, keepingItsPlace: Bool = false) {
        if let answer = c.pending {
            c.pending = nil
            answerEnded(answer)
        }
        if let slot = slots.removeValue(forKey: c.id) {
            if slot.refused {
                loop.refused.subtract(1, ordering: .relaxed)
            } else if !keepingItsPlace {
                loop.open.subtract(1, ordering: .relaxed)
            }
        }
        if isStopping { loop.changed.signal() }
        _ = try? SystemCall.run("epoll_ctl") { epoll_ctl(mailbox.epoll, EPOLL_CTL_DEL, c.socket.fd, nil) }
        c.socket.close()
    }

    /// Answers a framing error or a 408 and ends the connection (its remaining bytes cannot be
    /// trusted): written without waiting (a few hundred bytes), then half-closed and lingering.
    func fail(_ c: Connection, _ error: RequestError, scratch: UnsafeMutableRawBufferPointer?) -> Step {
        let response = error.response
        var request = HTTPRequest(method: "-", target: "-")
        request.remoteAddress = c.address
        loop.observer?(request, response, 0)
        return answerAndLinger(c, ResponseWriter.serialize(response, includeBody: true, keepAlive: false), scratch: scratch)
    }

    /// Answers a request from its head alone (`Configuration.answerBeforeBody`) and ends the
    /// connection without reading the body: its bytes are discarded while the connection lingers.
    private func answerBeforeItsBody(
        _ c: Connection, _ request: HTTPRequest, _ response: HTTPResponse, scratch: UnsafeMutableRawBufferPointer?
    ) -> Step {
        loop.observer?(request, response, 0)
        return answerAndLinger(
            c, ResponseWriter.serialize(response, includeBody: request.method != "HEAD", keepAlive: false), scratch: scratch)
    }

    /// Writes a last answer without waiting, half-closes and reads what the client still sends
    /// until it closes or the linger deadline passes, so it reads the answer instead of a reset
    /// (RFC 9112 §9.6). The caller owns `c`, registered in epoll.
    func answerAndLinger(_ c: Connection, _ bytes: [UInt8], scratch: UnsafeMutableRawBufferPointer?) -> Step {
        _ = try? c.socket.writeAvailable(bytes[...])
        c.socket.shutdownWrites()
        c.machine.linger(now: monotonicMilliseconds())
        return discard(c, scratch: scratch)
    }

    /// Lingering: reads and drops what has arrived; closes once the peer has closed.
    private func discard(_ c: Connection, scratch: UnsafeMutableRawBufferPointer?) -> Step {
        var sink: [UInt8] = []
        c.moreToRead = false
        reading: for attempt in 0..<8 {
            switch c.socket.readAvailable(into: &sink, chunk: 64 * 1024, scratch: scratch) {
            case .data(let count):
                sink.removeAll(keepingCapacity: true)
                c.moreToRead = attempt == 7 && count == 64 * 1024
            case .closed:
                c.machine.peerDidClose()
                break reading
            case .timeout: break reading
            }
        }
        return carryOut(c.machine.readMore(stopping: false), c)
    }
}

extension EventLoop {
    /// The handler answered: its bytes join the connection's write buffer (written by `flush`).
    func prepareAnswer(_ c: Connection, _ request: HTTPRequest, _ head: RequestHead, _ response: HTTPResponse, started: Double) {
        let keepAlive = head.keepAlive && !isStopping && !response.headers.contains("Connection", token: "close")
        ResponseWriter.serialize(
            response, includeBody: head.method != "HEAD", keepAlive: keepAlive, announcesKeepAlive: keepAlive && head.version == .http10,
            appendingTo: &c.hot.out)
        c.machine.writeStarted(now: monotonicMilliseconds())
        c.pending = PendingAnswer(request: request, response: response, started: started, keepAlive: keepAlive)
    }
}

/// Whether the client of a request being answered has gone: its socket read as end of file or an
/// error without consuming anything (recv(2) with MSG_PEEK). Once the answer is made the descriptor
/// is the event thread's again (and may be closed and reused), so it is not looked at any more.
final class ClientPresence: Sendable {
    private let fd: Int32
    private let answering = Atomic<Bool>(true)

    init(fd: Int32) { self.fd = fd }

    func answered() { answering.store(false, ordering: .sequentiallyConsistent) }

    var gone: Bool {
        guard answering.load(ordering: .sequentiallyConsistent) else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }  // end of file: the client closed its side
        if n < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        return false  // a pipelined request: still there
    }
}
