import Testing
import Glibc
import Threads

/// The one eventfd wake-up: readable once signalled (however often), not after a drain; a
/// wait ends at the signal or at its timeout.
@Suite struct WakeDescriptorTests {
    static func readable(_ w: WakeDescriptor) -> Bool {
        var p = pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    @Test func signalledUntilDrained() throws {
        let w = try #require(WakeDescriptor())
        #expect(!Self.readable(w))
        #expect(w.signal())
        #expect(w.signal())
        #expect(Self.readable(w))
        w.drain()
        #expect(!Self.readable(w), "one drain reads every signal so far")
        w.drain()      // nothing to read: does not block (non-blocking)
        #expect(fcntl(w.fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func aWaitEndsAtTheSignalOrItsTimeout() throws {
        let w = try #require(WakeDescriptor())
        let t0 = MonotonicClock.seconds()
        w.wait(milliseconds: 30)
        #expect(MonotonicClock.seconds() - t0 >= 0.025, "no signal: the whole timeout")
        w.signal()
        let t1 = MonotonicClock.seconds()
        w.wait(milliseconds: 10_000)
        #expect(MonotonicClock.seconds() - t1 < 5, "signalled: at once")
        #expect(!Self.readable(w), "the wait drained it")
    }
}
