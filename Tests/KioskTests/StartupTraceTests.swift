import Glibc
@testable import KioskSupport
import Testing
import Threads

/// `DARKMODE_KIOSK_TIMING=1`'s start-up stages: nothing is kept until enabled, marks from any
/// thread are kept in order with their thread's CPU time, and the line the host prints.
@Suite(.serialized) struct StartupTraceTests {
    @Test func marksOnlyWhenEnabledFromAnyThread() {
        StartupTrace.mark("before")
        StartupTrace.enable()
        #expect(StartupTrace.isEnabled)
        #expect(StartupTrace.marks.isEmpty, "enable() starts afresh")
        StartupTrace.mark("main")
        var t = pthread_t()
        #expect(pthread_create(&t, nil, { _ in StartupTrace.mark("worker"); return nil }, nil) == 0)
        pthread_join(t, nil)
        let marks = StartupTrace.marks
        #expect(marks.map(\.stage) == ["main", "worker"])
        #expect(marks[0].time <= marks[1].time)
        #expect(marks.allSatisfy { $0.threadCPU >= 0 })
        for i in 0..<(StartupTrace.capacity + 5) { StartupTrace.mark("m\(i)") }
        #expect(StartupTrace.marks.count == StartupTrace.capacity)
    }

    @Test func summaryIsMillisecondsAfterTheOriginAndThreadCPU() {
        let marks = [StartupTrace.Mark(stage: "main", time: 10.0124, threadCPU: 0.0151),
                     StartupTrace.Mark(stage: "SDL_Init", time: 10.0905, threadCPU: 0.0224)]
        #expect(StartupTrace.summary(marks, since: 10) == "main 12/15, SDL_Init 91/22")
    }

    @Test func processStartIsInThePastOnTheMonotonicClock() throws {
        let start = try #require(StartupTrace.processStart())
        let now = MonotonicClock.seconds()
        #expect(start <= now + 0.02, "ticks are 10 ms coarse")
        #expect(now - start < 24 * 3600, "this test process did not start a day ago")
    }
}
