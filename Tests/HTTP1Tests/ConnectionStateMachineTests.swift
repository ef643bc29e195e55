import Testing
@testable import HTTP1

/// Every deadline of a connection, on a manual clock in milliseconds: no sockets, no sleeping.
struct ConnectionStateMachineTests {
    static let timeouts = ConnectionStateMachine.Timeouts(head: 10_000, body: 30_000, idle: 5_000, write: 20_000)

    func fresh(at now: UInt64 = 1_000) -> ConnectionStateMachine { ConnectionStateMachine(timeouts: Self.timeouts, now: now) }

    @Test func aConnectionThatSendsNothingIsClosedQuietlyAtTheIdleTimeout() {
        var m = fresh(at: 1_000)
        #expect(m.deadline == 6_000)
        #expect(m.tick(now: 5_999) == .none)
        #expect(m.state == .idle(since: 1_000))
        #expect(m.tick(now: 6_000) == .close)
        #expect(m.state == .closed)
        #expect(m.tick(now: 99_000) == .none, "a closed connection has nothing more to do")
    }

    /// One total deadline for the head, from when the connection began waiting: a client silent
    /// for most of the idle timeout does not get a fresh head deadline with its first byte.
    @Test func aSlowHeadGets408AtTheHeadDeadlineFromWhenItsConnectionBeganWaiting() {
        var m = fresh(at: 0)
        #expect(m.partialHead(now: 4_000) == .read)
        #expect(m.deadline == 10_000, "the head deadline, not the idle one, from the accept")
        #expect(m.tick(now: 9_999) == .none)
        guard case .fail(let error) = m.tick(now: 10_000) else {
            Issue.record("expected a 408")
            return
        }
        #expect(error.status == 408 && error.message == "the request head did not arrive within 10 s")
        #expect(m.state == .closed)
    }

    /// A kept-alive connection's next head is due `head` ms after its previous answer was out.
    @Test func theNextHeadOfAKeptAliveConnectionIsDueFromItsPreviousAnswer() {
        var m = fresh(at: 0)
        _ = m.requestComplete()
        m.writeStarted(now: 1_000)
        #expect(m.writeFinished(written: true, keepAlive: true, now: 2_000) == .none)
        #expect(m.partialHead(now: 6_500) == .read)
        #expect(m.deadline == 12_000)
    }

    /// Slowloris: a byte now and then must not push the head deadline back.
    @Test func dripFeedingTheHeadDoesNotExtendItsDeadline() {
        var m = fresh(at: 0)
        for now in stride(from: UInt64(100), through: 9_900, by: 100) {
            #expect(m.partialHead(now: now) == .read)
            #expect(m.tick(now: now) == .none)
        }
        #expect(m.deadline == 10_000)
        #expect(m.tick(now: 10_000) != .none)
    }

    @Test func aSlowBodyGets408AtTheBodyDeadlineFromItsHead() {
        var m = fresh(at: 0)
        #expect(m.partialHead(now: 500) == .read)
        #expect(m.partialBody(expectsContinue: false, received: 0, now: 1_000) == .read)
        #expect(m.deadline == 31_000, "the body deadline runs from the complete head")
        // More of the body, slowly: the deadline stays.
        #expect(m.partialBody(expectsContinue: false, received: 0, now: 20_000) == .read)
        #expect(m.tick(now: 30_999) == .none)
        guard case .fail(let error) = m.tick(now: 31_000) else {
            Issue.record("expected a 408")
            return
        }
        #expect(error.status == 408 && error.message == "the request body did not arrive within 30 s")
    }

    static let paced = ConnectionStateMachine.Timeouts(
        head: 10_000, body: 30_000, idle: 5_000, write: 20_000, minimumBodyRate: 1_000, bodyGrace: 5_000)

    /// The attack this rule is for: a head, one byte of body, then nothing.
    @Test func aStalledBodyGets408AfterTheGraceNotTheWholeBodyDeadline() {
        var m = ConnectionStateMachine(timeouts: Self.paced, now: 0)
        #expect(m.partialBody(expectsContinue: false, received: 1, now: 1_000) == .read)
        #expect(m.deadline == 6_001, "grace + 1 byte at 1000 bytes/s")
        #expect(m.tick(now: 6_000) == .none)
        guard case .fail(let error) = m.tick(now: 6_001) else {
            Issue.record("expected a 408")
            return
        }
        #expect(error.status == 408 && error.message == "the request body arrived slower than 1000 bytes a second")
    }

    /// Slowloris for bodies: a byte now and then buys a millisecond each, not the whole deadline.
    @Test func drippingTheBodyDoesNotKeepTheConnection() {
        var m = ConnectionStateMachine(timeouts: Self.paced, now: 0)
        var received = 0
        var now: UInt64 = 0
        while now < 30_000, m.tick(now: now) == .none {
            received += 1
            _ = m.partialBody(expectsContinue: false, received: received, now: now)
            now += 500
        }
        #expect(m.state == .closed)
        #expect(now <= 6_000, "a byte every 0.5 s is cut off after the grace, not at 30 s (closed at \(now) ms)")
    }

    /// A well-behaved slow upload (above the rate) is never cut off before the whole-body deadline,
    /// which still bounds a large body at any rate.
    @Test func aBodyAboveTheMinimumRateHasTheWholeBodyDeadline() {
        var m = ConnectionStateMachine(timeouts: Self.paced, now: 0)
        var now: UInt64 = 0
        for second in 1...29 {
            now = UInt64(second) * 1_000
            #expect(m.tick(now: now) == .none, "cut off at \(now) ms")
            _ = m.partialBody(expectsContinue: false, received: second * 1_100, now: now)
        }
        #expect(m.requestComplete() == .dispatch, "a body at 1100 bytes/s completes")
        var big = ConnectionStateMachine(timeouts: Self.paced, now: 0)
        _ = big.partialBody(expectsContinue: false, received: 0, now: 0)
        _ = big.partialBody(expectsContinue: false, received: 10_000_000, now: 29_000)
        #expect(big.deadline == 30_000, "the whole-body deadline caps a fast body")
        guard case .fail(let error) = big.tick(now: 30_000) else {
            Issue.record("expected a 408")
            return
        }
        #expect(error.message == "the request body did not arrive within 30 s")
    }

    @Test func expectContinueIsAnsweredOnceHoweverOftenTheHeadIsSeen() {
        var m = fresh(at: 0)
        #expect(m.partialBody(expectsContinue: true, received: 0, now: 10) == .sendContinue)
        #expect(m.partialBody(expectsContinue: true, received: 0, now: 20) == .read)
        #expect(m.partialBody(expectsContinue: true, received: 0, now: 30) == .read)
        #expect(m.requestComplete() == .dispatch)
        // The next request on the connection gets its own 100 Continue.
        m.writeStarted(now: 40)
        #expect(m.writeFinished(written: true, keepAlive: true, now: 50) == .none)
        #expect(m.partialBody(expectsContinue: true, received: 0, now: 60) == .sendContinue)
    }

    @Test func noDeadlineWhileTheHandlerRuns() {
        var m = fresh(at: 0)
        #expect(m.requestComplete() == .dispatch)
        #expect(m.deadline == nil)
        #expect(m.tick(now: 1_000_000) == .none, "a request whose handler started is always answered")
        #expect(m.state == .handling)
    }

    @Test func aStalledWriteEndsTheConnectionAtTheWriteDeadline() {
        var m = fresh(at: 0)
        _ = m.requestComplete()
        m.writeStarted(now: 1_000)
        #expect(m.deadline == 21_000)
        #expect(m.tick(now: 20_999) == .none)
        #expect(m.tick(now: 21_000) == .close)
        #expect(m.state == .closed)
    }

    @Test func keepAliveRestartsTheIdleTimeoutFromTheAnswer() {
        var m = fresh(at: 0)
        _ = m.requestComplete()
        m.writeStarted(now: 7_000)
        #expect(m.writeFinished(written: true, keepAlive: true, now: 8_000) == .none)
        #expect(m.state == .idle(since: 8_000))
        #expect(m.tick(now: 12_999) == .none, "the idle time before the request does not count")
        #expect(m.tick(now: 13_000) == .close)
    }

    @Test func anAnswerWithoutKeepAliveOrAFailedWriteCloses() {
        var a = fresh()
        _ = a.requestComplete()
        a.writeStarted(now: 1_100)
        #expect(a.writeFinished(written: true, keepAlive: false, now: 1_200) == .close)
        var b = fresh()
        _ = b.requestComplete()
        b.writeStarted(now: 1_100)
        #expect(b.writeFinished(written: false, keepAlive: true, now: 1_200) == .close)
        #expect(b.state == .closed)
    }

    @Test func aPeerThatClosedWithAPartialRequestIsClosed() {
        var head = fresh()
        head.peerDidClose()
        #expect(head.partialHead(now: 1_100) == .close)
        var body = fresh()
        body.peerDidClose()
        #expect(body.partialBody(expectsContinue: true, received: 0, now: 1_100) == .close, "no 100 Continue to a peer that is gone")
        var idle = fresh()
        idle.peerDidClose()
        #expect(idle.readMore(stopping: false) == .close)
    }

    @Test func aStopClosesIdleConnectionsButLetsPartialRequestsFinish() {
        var idle = fresh()
        #expect(idle.readMore(stopping: false) == .read)
        #expect(idle.readMore(stopping: true) == .close)
        var reading = fresh()
        _ = reading.partialHead(now: 1_100)
        #expect(reading.readMore(stopping: true) == .read)
        #expect(reading.deadline == 11_000, "its head deadline still holds")
    }

    @Test func anAnswerTheSocketDoesNotTakeWaitsForItUnderTheWriteDeadlineAndReadsNothingMeanwhile() {
        var m = fresh(at: 0)
        #expect(m.readsRequests)
        _ = m.requestComplete()
        #expect(!m.readsRequests, "no further request is read while one is with its handler")
        m.writeStarted(now: 1_000)
        #expect(m.writeBlocked() == .awaitWritable)
        #expect(!m.readsRequests, "a pipelining client that does not read gets no further answers made")
        #expect(m.writeBlocked() == .awaitWritable, "the socket taking a little more does not move the deadline")
        #expect(m.deadline == 21_000)
        #expect(m.tick(now: 20_999) == .none)
        #expect(m.tick(now: 21_000) == .close)
        #expect(m.state == .closed)
        #expect(m.writeBlocked() == .close, "an answer for a closed connection is not waited for")
    }

    @Test func anAnswerTakenInTimeGoesBackToReadingRequests() {
        var m = fresh(at: 0)
        _ = m.requestComplete()
        m.writeStarted(now: 1_000)
        #expect(m.writeBlocked() == .awaitWritable)
        #expect(m.writeFinished(written: true, keepAlive: true, now: 15_000) == .none)
        #expect(m.readsRequests)
        #expect(m.deadline == 20_000, "idle from the moment the answer was out")
    }

    @Test func anAnsweredErrorLingersUntilThePeerClosesOrTheLingerDeadline() {
        var m = fresh(at: 0)
        _ = m.partialHead(now: 100)
        m.linger(now: 500)
        #expect(m.isLingering && !m.readsRequests && !m.isIdle)
        #expect(m.deadline == 2_500)
        #expect(m.readMore(stopping: false) == .read, "what the client still sends is read and dropped")
        #expect(m.readMore(stopping: true) == .read)
        #expect(m.tick(now: 2_499) == .none)
        #expect(m.tick(now: 2_500) == .close)
        var closedByPeer = fresh(at: 0)
        closedByPeer.linger(now: 0)
        closedByPeer.peerDidClose()
        #expect(closedByPeer.readMore(stopping: false) == .close)
    }

    @Test func theDrainDeadlineClosesEveryConnectionButOneWhoseHandlerRuns() {
        var writing = fresh()
        _ = writing.requestComplete()
        writing.writeStarted(now: 1_100)
        _ = writing.writeBlocked()
        #expect(writing.drainDeadlinePassed() == .close, "an answer the client does not take is given up")
        var reading = fresh()
        _ = reading.partialHead(now: 1_100)
        #expect(reading.drainDeadlinePassed() == .close)
        var handling = fresh()
        _ = handling.requestComplete()
        #expect(handling.drainDeadlinePassed() == .none, "a handler under way still answers")
        #expect(handling.state == .handling)
    }

    @Test func limitsInSecondsBecomeMilliseconds() {
        var limits = HTTPLimits()
        limits.headDeadlineSeconds = 0.6
        limits.idleTimeoutSeconds = 0.4
        limits.bodyGraceSeconds = 1.5
        let t = ConnectionStateMachine.Timeouts(limits)
        #expect(
            t == ConnectionStateMachine.Timeouts(head: 600, body: 30_000, idle: 400, write: 30_000, minimumBodyRate: 1024, bodyGrace: 1_500)
        )
        #expect(ConnectionStateMachine.text(600) == "600 ms" && ConnectionStateMachine.text(10_000) == "10 s")
    }
}

/// The graceful stop's schedule, on a manual clock.
struct DrainScheduleTests {
    @Test func finishesAsSoonAsEveryConnectionIsClosed() {
        var s = DrainSchedule(now: 1_000, drainMilliseconds: 10_000)
        #expect(s.next(now: 1_000, connections: 2, inFlight: 1) == .wait(until: 11_000))
        #expect(s.next(now: 4_000, connections: 0, inFlight: 0) == .finish)
    }

    @Test func atTheDeadlineRequestsInFlightAreInterruptedOnceThenAwaited() {
        var s = DrainSchedule(now: 0, drainMilliseconds: 500)
        #expect(s.next(now: 499, connections: 3, inFlight: 2) == .wait(until: 500))
        #expect(s.next(now: 500, connections: 3, inFlight: 2) == .interrupt(inFlight: 2))
        #expect(s.next(now: 600, connections: 3, inFlight: 1) == .wait(until: nil), "no second interruption, no cut-off")
        #expect(s.next(now: 9_000, connections: 3, inFlight: 1) == .wait(until: nil))
        #expect(s.next(now: 9_001, connections: 1, inFlight: 0) == .finish)
    }

    @Test func idleConnectionsLeftAtTheDeadlineNeedNoInterruption() {
        var s = DrainSchedule(now: 0, drainMilliseconds: 500)
        #expect(s.next(now: 700, connections: 2, inFlight: 0) == .finish)
    }
}
