import Foundation
import Locking
import Testing
@testable import HTTP1

struct BlockingPoolTests {
    /// Every job submitted before the stop runs, in order on one thread, and a second stop
    /// (a careless caller) neither hangs nor loses a thread's exit.
    @Test func jobsRunInOrderAndTheThreadsExitAfterTheStop() {
        let pool = BlockingPool(threads: 2)
        let order = Locked<[Int]>([])
        let group = DispatchGroup()
        let first = DispatchSemaphore(value: 0)
        group.enter()
        Thread {
            pool.run(); group.leave()
        }.start()
        pool.submit { first.wait() }  // holds the only running thread until the rest is queued
        for i in 0..<50 { pool.submit { order.withLock { $0.append(i) } } }
        first.signal()
        pool.stop()
        pool.stop()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == Array(0..<50))
        group.enter()
        Thread {
            pool.run(); group.leave()
        }.start()  // the second thread, started late: it exits too
        #expect(group.wait(timeout: .now() + 10) == .success)
    }
}
