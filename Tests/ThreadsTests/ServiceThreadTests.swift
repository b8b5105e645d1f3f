import Glibc
import Synchronization
import Testing
import Threads

@Suite struct ServiceThreadTests {
    @Test func aJoinableThreadRunsItsBodyBeforeTheJoinReturns() throws {
        let ran = Mutex(false)
        let t = try #require(JoinableThread.start(name: "test-join") { usleep(10_000); ran.withLock { $0 = true } })
        t.join()
        #expect(ran.withLock { $0 })
        t.join() // a second join returns at once
    }

    @Test func stopWakesThePollingThreadAndJoinsIt() {
        let service = ServiceThread()
        let wakeUps = Mutex(0)
        let ended = Mutex(false)
        let started = service.start(name: "test-service") { [service] in
            var p = pollfd(fd: service.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            while true {
                _ = poll(&p, 1, -1)
                service.drainWake()
                wakeUps.withLock { $0 += 1 }
                if service.stopping { break }
            }
            ended.withLock { $0 = true }
        }
        #expect(started)
        #expect(!service.start(name: "again") {}, "started once only")
        service.stop()
        #expect(ended.withLock { $0 }, "stop returns after the thread ended")
        #expect(wakeUps.withLock { $0 } >= 1)
        service.stop() // safe twice
    }

    @Test func stopWithoutStartReturns() {
        ServiceThread().stop()
    }
}
