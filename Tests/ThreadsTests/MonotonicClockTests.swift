import Glibc
import Synchronization
import Testing
import Threads

@Suite struct MonotonicClockTests {
    @Test func readingsNeverGoBackwards() {
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= last)
            last = now
        }
    }

    @Test func theUnitsAgree() {
        let ns = MonotonicClock.nanoseconds()
        let us = MonotonicClock.microseconds()
        let s = MonotonicClock.seconds()
        #expect(us >= ns / 1000 && us - ns / 1000 < 1_000_000, "read within a second of each other")
        #expect(s >= Double(ns) / 1e9 && s - Double(ns) / 1e9 < 1)
        #expect(MonotonicClock.seconds(nanoseconds: 2_500_000_000) == 2.5)
    }

    @Test func aSleepIsMeasured() {
        let before = MonotonicClock.seconds()
        usleep(20_000)
        let slept = MonotonicClock.seconds() - before
        #expect(slept >= 0.02, "\(slept) s")
    }

    @Test func aDeadlineIsThatFarAheadOnTheSameClock() {
        let now = MonotonicClock.nanoseconds()
        let t = MonotonicClock.timespec(after: 1.5)
        let at = UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
        #expect(at >= now + 1_500_000_000 && at < now + 2_500_000_000)
        let past = MonotonicClock.timespec(after: -3)
        #expect(UInt64(past.tv_sec) * 1_000_000_000 + UInt64(past.tv_nsec) >= now, "negative counts as zero")
        #expect(t.tv_nsec >= 0 && t.tv_nsec < 1_000_000_000)
    }
}
