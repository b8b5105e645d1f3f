import Testing
import Fleet

/// The state's frame statistics cover exactly the last minute, by time, whatever the frame
/// rate (issue 43): synthetic times, no clock.
@Suite struct FrameTimeWindowTests {
    @Test func exactlyTheLastMinuteAt60Hz() throws {
        var w = FrameTimeWindow(seconds: 60, capacity: 16)
        // 90 s of frames at 60 Hz: frame k presented at k/60 s.
        for k in 1...5400 { w.add(at: Double(k) / 60, milliseconds: 1000.0 / 60) }
        // The window ending at 90 s holds the frames after 30 s: 3601..5400 (1,800 at 30 s is out).
        #expect(w.window(now: 90).count == 3600)
        let s = try #require(w.statistics(now: 90))
        #expect(s.count == 3600)
        // Ten seconds later with no frame: only the ones after 40 s are left.
        #expect(w.window(now: 100).count == 3000)
        // Two minutes without a frame: none, no statistics.
        #expect(w.statistics(now: 220) == nil)
    }

    @Test func notTheLast3600FramesWhenTheRateChanges() throws {
        var w = FrameTimeWindow(seconds: 60)
        // 30 s at 120 Hz (3,600 frames), then 30 s at 30 Hz (900 frames): all 4,500 are in the minute.
        for k in 1...3600 { w.add(at: Double(k) / 120, milliseconds: 1000.0 / 120) }
        for k in 1...900 { w.add(at: 30 + Double(k) / 30, milliseconds: 1000.0 / 30) }
        let t = 60.0
        let s = try #require(w.statistics(now: t))
        #expect(s.count == 4500)
        #expect(s.overBudget == 900)  // 33.3 ms > 25 ms
        // 15 s later (no frames): the first 15 s of 120 Hz frames (1,800) have left the window.
        let later = try #require(w.statistics(now: t + 15))
        #expect(later.count == 4500 - 1800)
    }

    @Test func aLongFreezeIsOneSampleAndLeavesWithItsTime() throws {
        var w = FrameTimeWindow(seconds: 60)
        w.add(at: 10, milliseconds: 16)
        w.add(at: 10.5, milliseconds: 500)
        w.add(at: 69.9, milliseconds: 16)
        #expect(w.window(now: 69.9) == [16, 500, 16])
        #expect(w.window(now: 70.0) == [500, 16])   // presented at 10.0: exactly 60 s old, out
        #expect(w.window(now: 70.5) == [16])
    }

    @Test func constantWorkPerFrameAndBoundedMemory() {
        var w = FrameTimeWindow(seconds: 60, capacity: 4096)
        // Ten minutes at 60 Hz: the ring never needs more than one minute of frames.
        for k in 1...36_000 { w.add(at: Double(k) / 60, milliseconds: 16.7) }
        #expect(w.capacity == 4096)
        #expect(w.count == 3600)
        // A 144 Hz display fills it: it grows once (8,640 a minute) and then stays.
        for k in 1...(144 * 120) { w.add(at: 600 + Double(k) / 144, milliseconds: 6.9) }
        #expect(w.capacity == 16384)
        #expect(w.count == 144 * 60)
    }
}
