@testable import AccessibilityBus
import Testing

/// The provider's log lines that a client can repeat at will (IsEnabled switched off and on):
/// a few per cause a minute, the rest summed up.
@Suite struct LogThrottleTests {
    @Test func aFewLinesAMinuteThenASummary() {
        var t = LogThrottle(limit: 3, window: 60)
        var written: [String] = []
        // 200 joins in 10 s.
        for i in 0..<200 { written += t.lines("registered as :1.\(i)", cause: "join", now: Double(i) * 0.05) }
        #expect(written == ["registered as :1.0", "registered as :1.1",
                            "registered as :1.2 (more like this in the next 60 s are counted, not logged)"])
        #expect(t.nextDeadline == 60)
        #expect(t.flush(now: 59.9).isEmpty)
        #expect(t.flush(now: 60) == ["registered as :1.199 — 197 more times in the last 60 s"])
        #expect(t.nextDeadline == nil)
        #expect(t.flush(now: 200).isEmpty)
        // A new window: lines again.
        #expect(t.lines("registered as :1.300", cause: "join", now: 300) == ["registered as :1.300"])
    }

    @Test func causesAreCountedApart() {
        var t = LogThrottle(limit: 1, window: 10)
        #expect(t.lines("a", cause: "join", now: 0) == ["a (more like this in the next 10 s are counted, not logged)"])
        #expect(t.lines("b", cause: "leave", now: 0) == ["b (more like this in the next 10 s are counted, not logged)"])
        #expect(t.lines("a2", cause: "join", now: 1).isEmpty)
        // The next line of a cause after its window: the summary first, then the line.
        #expect(t.lines("a3", cause: "join", now: 12) == ["a2 — 1 more time in the last 12 s",
                                                         "a3 (more like this in the next 10 s are counted, not logged)"])
        // Nothing held back for "leave": no summary.
        #expect(t.flush(now: 100) == [])
    }

    @Test func atExitEverythingHeldBackIsSaid() {
        var t = LogThrottle(limit: 1, window: 60)
        _ = t.lines("x", cause: "c", now: 0)
        _ = t.lines("y", cause: "c", now: 1)
        #expect(t.flush(now: 5).isEmpty)
        #expect(t.flush(now: 5, all: true) == ["y — 1 more time in the last 5 s"])
        // Whatever the clock says, no trap.
        _ = t.lines("x", cause: "c", now: 0)
        _ = t.lines("y", cause: "c", now: 1)
        #expect(t.flush(now: .infinity, all: true) == ["y — 1 more time in the last 1000000000 s"])
    }
}
