import Testing
@testable import KioskSupport

/// When a frame begins: as late as its vblank allows, at most one in flight, input while idle at once.
@Suite struct FrameSchedulerTests {
    static let p = 1.0 / 60

    @Test func withoutAVblankFramesBeginAtOnce() {
        let s = FrameScheduler(period: Self.p)
        #expect(s.start(now: 5) == 5)
        #expect(s.nextVblank(after: 5) == nil)
    }

    @Test func beginsTheEstimateAndMarginBeforeTheNextVblank() {
        var s = FrameScheduler(period: Self.p, margin: 0.001)
        s.vblank(at: 10)
        for r in [0.002, 0.002, 0.002, 0.002] { s.rendered(seconds: r) }
        #expect(abs(s.estimate - 0.002) < 1e-12)
        // 1 ms after a vblank: the next is at 10 + p; begin 3 ms before it.
        #expect(abs(s.start(now: 10.001) - (10 + Self.p - 0.003)) < 1e-9)
        // Too late for that one (2 ms before it): the one after.
        #expect(abs(s.start(now: 10 + Self.p - 0.002) - (10 + 2 * Self.p - 0.003)) < 1e-9)
    }

    @Test func atMostOneFrameInFlight() {
        var s = FrameScheduler(period: Self.p, margin: 0.001)
        s.vblank(at: 0)
        s.rendered(seconds: 0.001)
        // A flip queued at 1 ms completes at the vblank at p; the next frame targets 2p.
        s.flipQueued(at: 0.001)
        #expect(abs(s.inFlightUntil! - Self.p) < 1e-12)
        #expect(abs(s.start(now: 0.002) - (2 * Self.p - 0.002)) < 1e-9)
        // An input does not make it earlier while a flip is in flight.
        #expect(abs(s.start(now: 0.002, inputWaiting: true) - (2 * Self.p - 0.002)) < 1e-9)
        // Once the flip completed, an input is drawn at once.
        s.vblank(at: Self.p)
        #expect(s.inFlightUntil == nil)
        #expect(s.start(now: Self.p + 0.004, inputWaiting: true) == Self.p + 0.004)
    }

    @Test func aRareSlowFrameDoesNotMoveTheEstimate() {
        var s = FrameScheduler(period: Self.p)
        for _ in 0..<15 { s.rendered(seconds: 0.001) }
        s.rendered(seconds: 0.015)
        #expect(abs(s.estimate - 0.001) < 1e-12)
        s.rendered(seconds: .nan)
        s.rendered(seconds: -1)
        #expect(abs(s.estimate - 0.001) < 1e-12)
    }
}
