import CLinuxIO
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection: its socket, the bytes read and not yet used, and its state machine.
/// `@unchecked Sendable`: it moves between threads, but only the thread that owns it (its slot in
/// `EventLoop.table` is `busy`, set under that Mutex) touches its fields.
final class Connection: @unchecked Sendable {
    let socket: ConnectionSocket
    let id: UInt64
    let address: String
    var buffer: [UInt8] = []
    var machine: ConnectionStateMachine

    init(socket: ConnectionSocket, id: UInt64, address: String, machine: ConnectionStateMachine) {
        self.socket = socket
        self.id = id
        self.address = address
        self.machine = machine
    }
}

/// Serving a connection: the I/O that carries out what its state machine says.
extension EventLoop {
    enum Step { case rearmed, closed, handedOff }

    /// Serves the connection until it is re-armed with no event pending, closed, or handed to the
    /// blocking pool (which calls this again once it has answered). The caller owns `c`.
    func serve(_ c: Connection, read: Bool = true) {
        var read = read
        while true {
            switch step(c, read: read) {
            case .closed, .handedOff: return
            case .rearmed:
                switch letGo(c) {
                case .released: return
                case .eventPending: read = true
                case .close:
                    close(c)
                    return
                }
            }
        }
    }

    /// Reads what arrived (when `read`) and answers every complete request in the buffer.
    private func step(_ c: Connection, read: Bool) -> Step {
        let limits = configuration.limits
        if read {
            switch c.socket.readAvailable(into: &c.buffer, chunk: c.machine.isReadingBody ? 256 * 1024 : 16 * 1024) {
            case .data: break
            case .closed: c.machine.peerDidClose()
            case .timeout: break  // nothing there after all (a spurious wake-up)
            }
        }
        while true {
            // RFC 9112 §2.2: ignore empty lines before a request line.
            if c.machine.awaitsRequestLine {
                var skip = 0
                while c.buffer.count >= skip + 2, c.buffer[skip] == 0x0D, c.buffer[skip + 1] == 0x0A { skip += 2 }
                if skip > 0 { c.buffer.removeFirst(skip) }
            }
            guard !c.buffer.isEmpty else { break }
            let outcome = c.buffer.withUnsafeBytes { raw in
                Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits) }
            }
            let head: RequestHead, headLength: Int
            switch outcome {
            case .failure(let error):
                fail(c, error)
                return .closed
            case .success(.incomplete):
                return carryOut(c.machine.partialHead(now: monotonicMilliseconds()), c)
            case .success(.complete(let h, let length)):
                head = h
                headLength = length
            }
            // The body: exactly Content-Length bytes (the rest stays for the next request).
            if c.buffer.count - headLength < head.contentLength {
                return carryOut(c.machine.partialBody(expectsContinue: head.expectsContinue, now: monotonicMilliseconds()), c)
            }
            let body = Array(c.buffer[headLength..<(headLength + head.contentLength)])
            c.buffer.removeFirst(headLength + head.contentLength)
            _ = c.machine.requestComplete()

            table.withLock { $0.inFlight += 1 }  // until `finish`
            var incoming = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers, body: body)
            incoming.remoteAddress = c.address
            let request = incoming
            if let inline, inline(request) {
                switch respond(c, request, head, onEventLoop: true) {
                case .closed: return .closed
                case .handedOff: return .handedOff
                case .rearmed: continue
                }
            }
            pool.submit { [self] in
                if respond(c, request, head, onEventLoop: false) == .rearmed { serve(c, read: false) }
            }
            return .handedOff
        }
        return carryOut(c.machine.readMore(stopping: isStopping), c)
    }

    /// Carries out what the state machine said after a read.
    private func carryOut(_ action: ConnectionStateMachine.Action, _ c: Connection) -> Step {
        switch action {
        case .close:
            close(c)
            return .closed
        case .fail(let error):
            fail(c, error)
            return .closed
        case .sendContinue:
            do { try c.socket.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), until: monotonicMilliseconds() + timeouts.write) } catch {
                close(c)
                return .closed
            }
        case .read, .none, .dispatch: break
        }
        do { try register(c, operation: EPOLL_CTL_MOD) } catch {
            close(c)
            return .closed
        }
        return .rearmed
    }

    /// Runs the handler and writes its answer. `.rearmed` here means "written, go on with the
    /// connection"; `.closed` that it was closed. On the event loop a write that would block (a
    /// client not reading its answers) is finished on the blocking pool instead (`.handedOff`),
    /// so one slow reader never stalls the loop.
    private func respond(_ c: Connection, _ request: HTTPRequest, _ head: RequestHead, onEventLoop: Bool) -> Step {
        let started = monotonicSeconds()
        let response = handler(request)
        let keepAlive = head.keepAlive && !isStopping && !response.headers.contains("Connection", token: "close")
        let bytes = ResponseWriter.serialize(response, includeBody: head.method != "HEAD", keepAlive: keepAlive)
        c.machine.writeStarted(now: monotonicMilliseconds())
        let deadline = c.machine.deadline ?? monotonicMilliseconds() + timeouts.write
        guard onEventLoop else {
            let written = (try? c.socket.write(bytes, until: deadline)) != nil
            return finish(c, request, response, started, written: written, keepAlive: keepAlive)
        }
        guard let sent = try? c.socket.writeAvailable(bytes[...]) else {
            return finish(c, request, response, started, written: false, keepAlive: keepAlive)
        }
        if sent == bytes.count { return finish(c, request, response, started, written: true, keepAlive: keepAlive) }
        pool.submit { [self] in
            let written = (try? c.socket.write(bytes[sent...], until: deadline)) != nil
            if finish(c, request, response, started, written: written, keepAlive: keepAlive) == .rearmed { serve(c, read: false) }
        }
        return .handedOff
    }

    private func finish(_ c: Connection, _ request: HTTPRequest, _ response: HTTPResponse, _ started: Double,
                        written: Bool, keepAlive: Bool) -> Step {
        observer?(request, response, monotonicSeconds() - started)
        table.withLock { table in
            table.inFlight -= 1
            if table.stopping { changed.signal() }
        }
        guard c.machine.writeFinished(written: written, keepAlive: keepAlive, now: monotonicMilliseconds()) != .close else {
            close(c)
            return .closed
        }
        return .rearmed
    }

    /// Closes a connection this thread owns.
    func close(_ c: Connection) {
        table.withLock { table in
            table.slots[c.id] = nil
            if table.stopping { changed.signal() }
        }
        _ = try? SystemCall.run("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_DEL, c.socket.fd, nil) }
        c.socket.close()
    }

    /// Answers a framing error or a 408 and ends the connection (its remaining bytes cannot be trusted).
    func fail(_ c: Connection, _ error: RequestError) {
        c.machine.rejected()
        let body = Array(ProblemJSON.problem(status: error.status, detail: error.message).utf8)
        let response = HTTPResponse(status: error.status, contentType: "application/problem+json", body: body)
        try? c.socket.write(ResponseWriter.serialize(response, includeBody: true, keepAlive: false), timeoutSeconds: 2)
        var request = HTTPRequest(method: "-", target: "-")
        request.remoteAddress = c.address
        observer?(request, response, 0)
        // Half-close and drain what has arrived, so the client reads the answer instead of a
        // reset (without waiting: this may run on the event loop).
        c.socket.shutdownWrites()
        var sink: [UInt8] = []
        for _ in 0..<4 {
            guard case .data = c.socket.readAvailable(into: &sink, chunk: 64 * 1024) else { break }
            sink.removeAll(keepingCapacity: true)
        }
        close(c)
    }
}
