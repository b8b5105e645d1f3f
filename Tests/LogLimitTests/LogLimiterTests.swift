import Testing
import LogLimit

/// The per-cause rate limit with an injected clock (issue 39, item 6).
@Suite struct LogLimiterTests {
    final class Lines: @unchecked Sendable { var all: [String] = [] }

    @Test func aFloodGivesBurstLinesAndOneSummaryAMinute() {
        var t = 0.0
        var lines: [String] = []
        let l = LogLimiter(interval: 60, burst: 3, now: { t }, log: { lines.append($0) })
        // 50 a second for 60 s.
        for i in 0..<3000 {
            t = Double(i) / 50
            l.note(key: "preferences file invalid", line: "preferences file p is not JSON (\(i))")
        }
        #expect(lines == (0..<3).map { "preferences file p is not JSON (\($0))" })
        #expect(l.deadline == 60)
        l.flush(at: 59.99)
        #expect(lines.count == 3)
        l.flush(at: 60)
        #expect(lines.count == 4)
        #expect(lines.last == "preferences file invalid: 2997 more in the last 60 s (first of them: preferences file p is not JSON (3))")
        #expect(l.deadline == nil)
        // The flood goes on in the next minute: 3 lines again, one summary at its end.
        for i in 0..<3000 {
            t = 60 + Double(i) / 50
            l.note(key: "preferences file invalid", line: "again \(i)")
        }
        #expect(lines.count == 7)
        l.flush(at: 120)
        #expect(lines.count == 8 && lines.last?.hasPrefix("preferences file invalid: 2997 more in the last 60 s") == true)
    }

    @Test func causesAreCountedApart() {
        var t = 0.0
        var lines: [String] = []
        let l = LogLimiter(interval: 60, burst: 2, now: { t }, log: { lines.append($0) })
        for _ in 0..<10 { l.note("high contrast on"); l.note("high contrast off"); t += 0.1 }
        #expect(lines == ["high contrast on", "high contrast off", "high contrast on", "high contrast off"])
        #expect(l.pending("high contrast on") == 8 && l.pending("high contrast off") == 8)
        l.flush(at: 60)
        #expect(lines.suffix(2) == ["high contrast on: 8 more in the last 60 s (first of them: -)",
                                    "high contrast off: 8 more in the last 60 s (first of them: -)"])
    }

    @Test func aQuietCauseIsNewAgainAndNothingIsLostAtExit() {
        var t = 0.0
        var lines: [String] = []
        let l = LogLimiter(interval: 10, burst: 1, now: { t }, log: { lines.append($0) })
        l.note("bus error", "(a)")
        l.note("bus error", "(b)")
        #expect(lines == ["bus error (a)"])
        t = 25  // after the window: the count first, then the new line
        l.note("bus error", "(c)")
        #expect(lines == ["bus error (a)", "bus error: 1 more in the last 25 s (first of them: (b))", "bus error (c)"])
        l.note("bus error", "(d)")
        t = 26
        l.flushAll(at: t)  // not due yet, written anyway at exit
        #expect(lines.last == "bus error: 1 more in the last 1 s (first of them: (d))")
        #expect(l.deadline == nil)
    }

    @Test func theSharedLimiterWritesOutsideItsLock() {
        let out = Lines()
        let l = SharedLogLimiter(interval: 60, burst: 1, now: { 5 }, log: { line in out.all.append(line) })
        for _ in 0..<100 { l.note(key: "save failed", line: "could not save") }
        #expect(out.all == ["could not save"])
        #expect(l.secondsUntilDue == 60)
        l.flushAll()
        #expect(out.all.last == "save failed: 99 more in the last 0 s (first of them: could not save)")
        #expect(l.secondsUntilDue == nil)
    }

    @Test func quietKeysAreForgottenSoMemoryStaysBounded() {
        var t = 0.0
        var lines: [String] = []
        let l = LogLimiter(interval: 60, burst: 1, now: { t }, log: { lines.append($0) })
        for i in 0..<10_000 {
            t = Double(i)  // one new line a second, each its own key
            l.note(key: "line \(i)", line: "line \(i)")
        }
        #expect(lines.count == 10_000, "every new cause is still logged")
        #expect(l.keyCount <= LogLimiter.maxKeys)
        // A cause counted in its window is not forgotten.
        t = 20_000
        l.note("busy"); l.note("busy")
        for i in 0..<300 { l.note(key: "other \(i)", line: "other \(i)") }
        #expect(l.pending("busy") == 1)
    }
}
