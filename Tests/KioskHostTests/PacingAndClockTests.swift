import Testing
@testable import KioskHost
import KioskSupport

@Suite struct FramePacerTests {
    @Test func nonsenseRefreshRatesMeanSixtyHertz() {
        for hz in [0.0, -5, .nan, .infinity, 10, 1000] { #expect(FramePacer(refreshRate: hz, vsync: false).period == 1.0 / 60) }
        #expect(FramePacer(refreshRate: 144, vsync: false).period == 1.0 / 144)
    }

    @Test func withoutVsyncItSleepsToTheNextDeadline() {
        var p = FramePacer(refreshRate: 50, vsync: false)
        #expect(p.delay(at: 0) == 0, "nothing scheduled yet")
        p.frameBegan(at: 1.0)
        p.framePresented(interval: nil)
        #expect(abs(p.delay(at: 1.005) - 0.015) < 1e-12)
        #expect(p.delay(at: 1.03) == 0, "late: due at once")
        // On schedule: the next deadline follows the previous one, not the late start.
        p.frameBegan(at: 1.021)
        #expect(abs(p.delay(at: 1.021) - 0.019) < 1e-12)
    }

    @Test func afterAStallTheScheduleRestarts() {
        var p = FramePacer(refreshRate: 50, vsync: false)
        p.frameBegan(at: 0)
        p.frameBegan(at: 5)   // far past the deadline at 0.02
        #expect(abs(p.delay(at: 5) - 0.02) < 1e-12)
        p.reset()
        #expect(p.delay(at: 5.001) == 0)
    }

    @Test func aVsyncedPresentIsTrustedUntilItReturnsEarlyThreeTimes() {
        var p = FramePacer(refreshRate: 60, vsync: true)
        p.frameBegan(at: 0)
        p.framePresented(interval: 1.0 / 60)
        #expect(p.delay(at: 0.001) == 0, "the present waited for the refresh")
        for _ in 0..<2 { p.framePresented(interval: 0.001) }
        #expect(p.presentPaces)
        p.framePresented(interval: 1.0 / 60)   // a good one resets the count
        for _ in 0..<2 { p.framePresented(interval: 0.001) }
        #expect(p.presentPaces)
        p.framePresented(interval: 0.001)
        #expect(!p.presentPaces)
        p.frameBegan(at: 1)
        p.framePresented(interval: 0.001)
        #expect(p.delay(at: 1) > 0, "now it sleeps even after a present")
    }

    @Test func aFrameThatPresentsNothingIsPacedBySleeping() {
        var p = FramePacer(refreshRate: 60, vsync: true)
        p.frameBegan(at: 0)
        #expect(p.delay(at: 0) > 0)
    }
}

@Suite struct HostClockTests {
    @Test func eventTimestampsBeforeTheWrapUnwrap() {
        // 10 ms before now, where now is just past the 32-bit wrap (49.7 days).
        let now: UInt64 = (1 << 32) + 5
        let ms = UInt32.max - 4   // = now - 10 in 32-bit ticks
        #expect(HostClock.seconds(fromEventTimestamp: ms, ticksNow: now) == Double(now - 10) / 1000)
    }

    @Test func timestampsAfterSeveralWrapsAndWithoutWrap() {
        let now: UInt64 = 3 * (1 << 32) + 1_000
        #expect(HostClock.seconds(fromEventTimestamp: 990, ticksNow: now) == Double(now - 10) / 1000)
        #expect(HostClock.seconds(fromEventTimestamp: 1_000, ticksNow: 1_250) == 1.0)
        #expect(HostClock.seconds(fromEventTimestamp: 1_250, ticksNow: 1_250) == 1.25)
    }

    @Test func anAgeLongerThanTheClockClampsToZero() {
        // 20 ms "ago" when only 5 ms have passed since SDL started.
        #expect(HostClock.seconds(fromEventTimestamp: UInt32.max - 14, ticksNow: 5) == 0)
    }
}
