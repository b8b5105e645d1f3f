import Appearance
import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// `ScreenSleepPolicy`: idle, the schedule across midnight and both DST nights, the wake
/// gesture swallowed through its up. Host seconds and the wall clock move together here:
/// host second `t` is UTC `origin + t`.
@Suite struct ScreenSleepTests {
    /// Central European time in 2026 (a pure rule, no tz database): CEST from 2026-03-29 01:00
    /// UTC to 2026-10-25 01:00 UTC, CET otherwise.
    static let spring = CivilTime.utc(year: 2026, month: 3, day: 29, hour: 1)
    static let autumn = CivilTime.utc(year: 2026, month: 10, day: 25, hour: 1)
    static let cet = LocalZone { t in (t >= spring && t < autumn) ? 7200 : 3600 }

    static func local(_ zone: LocalZone, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> Int64 {
        zone.firstInstant(atOrAfterWall: CivilTime.utc(year: 2026, month: mo, day: d, hour: h, minute: mi))
    }

    static func press(_ id: Int, _ phase: PointerPhase) -> PointerEvent {
        PointerEvent(id: id, phase: phase, location: Point(x: 10, y: 10), timestamp: 0)
    }

    /// A policy whose host second 0 is UTC `origin`.
    struct Clocked {
        var policy: ScreenSleepPolicy
        let origin: Int64
        init(_ settings: SleepSettings, zone: LocalZone = .utc, origin: Int64, lastInputAt t: Double = 0) {
            policy = ScreenSleepPolicy(settings: settings, zone: zone, now: t)
            self.origin = origin
        }
        mutating func update(at t: Double) -> ScreenSleepPolicy.Change? { policy.update(now: t, utc: origin + Int64(t)) }
        func next(at t: Double) -> Double? { policy.nextCheck(now: t, utc: origin + Int64(t)) }
    }

    static let noon = CivilTime.utc(year: 2026, month: 6, day: 1, hour: 12)

    @Test func offByDefault() {
        #expect(!SleepSettings.off.isOn)
        #expect(SleepSettings.off.summary == "off")
        var c = Clocked(.off, origin: Self.noon)
        #expect(c.update(at: 1e6) == nil)
        #expect(c.next(at: 1e6) == nil)
    }

    @Test func sleepsAfterIdleAndSaysWhenNext() {
        var c = Clocked(SleepSettings(afterIdleSeconds: 300), origin: Self.noon)
        #expect(c.update(at: 0) == nil)
        #expect(c.next(at: 0) == 300)
        #expect(c.update(at: 299.5) == nil)
        #expect(c.next(at: 299.5) == 0.5)
        #expect(c.update(at: 300) == .fellAsleep(.idle))
        #expect(c.policy.isAsleep)
        // Asleep for idleness: nothing but input changes it, so no wake-up is asked for.
        #expect(c.next(at: 300) == nil)
        #expect(c.update(at: 10_000) == nil)
    }

    @Test func inputPutsOffTheIdleSleep() {
        var c = Clocked(SleepSettings(afterIdleSeconds: 60), origin: Self.noon)
        #expect(c.policy.admit(Self.press(1, .down), now: 50).deliver)
        #expect(c.policy.admit(Self.press(1, .up), now: 51).deliver)
        #expect(c.update(at: 100) == nil)
        #expect(c.next(at: 100) == 11)
        #expect(c.policy.admitKey(now: 105).deliver)
        #expect(c.update(at: 164) == nil)
        #expect(c.update(at: 165) == .fellAsleep(.idle))
    }

    @Test func wakingTapIsSwallowedThroughItsUpAndTheSecondTapGoesThrough() {
        var c = Clocked(SleepSettings(afterIdleSeconds: 10), origin: Self.noon)
        #expect(c.update(at: 10) == .fellAsleep(.idle))
        // A mouse moving over a dark screen is not a wake.
        #expect(c.policy.admit(Self.press(0, .move), now: 20) == (false, nil))
        #expect(c.policy.isAsleep)
        // The press wakes it, and neither it nor its moves nor its up reach the page.
        #expect(c.policy.admit(Self.press(7, .down), now: 30) == (false, .wokeByInput(touch: true)))
        #expect(!c.policy.isAsleep)
        #expect(c.policy.swallowing)
        #expect(c.policy.admit(Self.press(7, .move), now: 30.1) == (false, nil))
        #expect(c.update(at: 30.2) == nil)
        #expect(c.policy.admit(Self.press(7, .up), now: 30.3) == (false, nil))
        #expect(!c.policy.swallowing)
        // The second tap switches.
        #expect(c.policy.admit(Self.press(8, .down), now: 31) == (true, nil))
        #expect(c.policy.admit(Self.press(8, .up), now: 31.1) == (true, nil))
        // Awake again from the wake: the idle time counts from the last input.
        #expect(c.next(at: 31.1) == 10)
    }

    @Test func aSecondFingerDuringTheWakeGestureIsSwallowedToo() {
        var c = Clocked(SleepSettings(afterIdleSeconds: 10), origin: Self.noon)
        _ = c.update(at: 10)
        #expect(c.policy.admit(Self.press(1, .down), now: 11).change == .wokeByInput(touch: true))
        #expect(!c.policy.admit(Self.press(2, .down), now: 11.1).deliver)
        #expect(!c.policy.admit(Self.press(1, .up), now: 11.2).deliver)
        #expect(c.policy.swallowing)
        #expect(!c.policy.admit(Self.press(2, .cancel), now: 11.3).deliver)
        #expect(!c.policy.swallowing)
        #expect(c.policy.admit(Self.press(3, .down), now: 12).deliver)
    }

    @Test func aKeyWakesAndIsSwallowed() {
        var c = Clocked(SleepSettings(afterIdleSeconds: 5), origin: Self.noon)
        _ = c.update(at: 5)
        #expect(c.policy.admitKey(now: 6) == (false, .wokeByInput(touch: false)))
        #expect(c.policy.admitKey(now: 7) == (true, nil))
    }

    @Test func scheduleAcrossMidnight() throws {
        let window = try #require(SleepWindow(parsing: "22:00-06:30"))
        let evening = CivilTime.utc(year: 2026, month: 6, day: 1, hour: 21)
        // The last input long before: host second 0 is 21:00, input at -7200.
        var c = Clocked(SleepSettings(schedule: window), origin: evening, lastInputAt: -7200)
        #expect(c.update(at: 0) == nil)
        #expect(c.next(at: 0) == 3600)
        #expect(c.update(at: 3600) == .fellAsleep(.schedule))
        // Asleep for the schedule: its end (06:30, 8.5 h later) is the next change.
        #expect(c.next(at: 3600) == 8.5 * 3600)
        #expect(c.update(at: 3600 + 8.5 * 3600 - 1) == nil)
        #expect(c.update(at: 3600 + 8.5 * 3600) == .wokeBySchedule)
        // Awake in the day: the next evening's 22:00.
        #expect(c.next(at: 3600 + 8.5 * 3600) == 15.5 * 3600)
    }

    @Test func aTouchAtNightShowsThePageForAMinuteThenItSleepsAgain() throws {
        let window = try #require(SleepWindow(parsing: "22:00-06:30"))
        let midnight = CivilTime.utc(year: 2026, month: 6, day: 2)
        var c = Clocked(SleepSettings(schedule: window), origin: midnight, lastInputAt: -7200)
        #expect(c.update(at: 0) == .fellAsleep(.schedule))
        #expect(c.policy.admit(Self.press(1, .down), now: 100).change == .wokeByInput(touch: true))
        _ = c.policy.admit(Self.press(1, .up), now: 100.1)
        #expect(c.next(at: 100.1) == SleepSettings.scheduleWakeSeconds)
        #expect(c.update(at: 150) == nil)
        #expect(c.update(at: 160.1) == .fellAsleep(.schedule))
    }

    @Test func idleAndScheduleTogether() throws {
        let window = try #require(SleepWindow(parsing: "22:00-06:30"))
        let evening = CivilTime.utc(year: 2026, month: 6, day: 1, hour: 21)
        var c = Clocked(SleepSettings(afterIdleSeconds: 600, schedule: window), origin: evening)
        #expect(c.next(at: 0) == 600)
        #expect(c.update(at: 600) == .fellAsleep(.idle))
        // Asleep for idleness: the window's start and end change nothing; no wake-ups.
        #expect(c.next(at: 600) == nil)
        #expect(c.update(at: 12 * 3600) == nil)
        #expect(c.policy.isAsleep)
        // Touched inside the window: awake for afterIdleSeconds.
        var n = Clocked(SleepSettings(afterIdleSeconds: 600, schedule: window), origin: evening, lastInputAt: 3001)
        #expect(n.update(at: 3600) == nil)          // 22:00, 600 s idle not yet reached
        #expect(n.next(at: 3600) == 1)
        #expect(n.update(at: 3601) == .fellAsleep(.idle))
    }

    @Test func springForwardNightIsAnHourShorter() throws {
        let window = try #require(SleepWindow(parsing: "22:00-06:30"))
        let start = Self.local(Self.cet, 3, 28, 22, 0)
        let end = Self.local(Self.cet, 3, 29, 6, 30)
        #expect(end - start == Int64(7.5 * 3600))
        var c = Clocked(SleepSettings(schedule: window), zone: Self.cet, origin: start, lastInputAt: -7200)
        #expect(c.update(at: 0) == .fellAsleep(.schedule))
        #expect(c.next(at: 0) == 7.5 * 3600)
        #expect(c.update(at: 7.5 * 3600) == .wokeBySchedule)
    }

    @Test func autumnNightIsAnHourLonger() throws {
        let window = try #require(SleepWindow(parsing: "22:00-06:30"))
        let start = Self.local(Self.cet, 10, 24, 22, 0)
        var c = Clocked(SleepSettings(schedule: window), zone: Self.cet, origin: start, lastInputAt: -7200)
        #expect(c.update(at: 0) == .fellAsleep(.schedule))
        #expect(c.next(at: 0) == 9.5 * 3600)
        #expect(c.update(at: 9.5 * 3600 - 1) == nil)
        #expect(c.update(at: 9.5 * 3600) == .wokeBySchedule)
    }

    @Test func aWindowStartingInTheSkippedHourStartsAtTheJump() throws {
        // 02:30 does not exist on 2026-03-29 in CET: the window starts at 03:00 CEST (01:00 UTC).
        let window = try #require(SleepWindow(parsing: "02:30-05:00"))
        let before = Self.local(Self.cet, 3, 29, 1, 0)
        var c = Clocked(SleepSettings(schedule: window), zone: Self.cet, origin: before, lastInputAt: -7200)
        #expect(c.update(at: 0) == nil)
        #expect(Int64(try #require(c.next(at: 0))) == Self.spring - before)
        #expect(c.update(at: Double(Self.spring - before)) == .fellAsleep(.schedule))
    }

    @Test func windowParsing() {
        #expect(SleepWindow(parsing: "22:00-06:30")?.description == "22:00-06:30")
        #expect(SleepWindow(parsing: "06:30-22:00")?.description == "06:30-22:00")
        for bad in ["", "22:00", "22:00-", "22:00-22:00", "24:00-06:00", "22:00 - 06:30", "22:00-06:30-07:00", "2200-0630", "22:0-06:30"] {
            #expect(SleepWindow(parsing: bad) == nil, "\(bad)")
        }
    }

    /// The fleet's `display/set`: `sleep` puts the screen to sleep now whatever the settings (and
    /// the schedule or idleness never wakes it), a touch or `on` wakes it; the waking touch is
    /// swallowed as after any sleep, `on` wakes it with the idle time started again.
    @Test func commandsSleepAndWakeTheScreen() {
        var c = Clocked(.off, origin: Self.noon)
        #expect(c.policy.command(sleep: true, now: 10) == .fellAsleep(.command))
        #expect(c.policy.isAsleep)
        #expect(c.policy.command(sleep: true, now: 11) == nil)
        #expect(c.update(at: 1e5) == nil && c.policy.isAsleep)
        let down = PointerEvent(id: 1, phase: .down, location: Point(x: 5, y: 5), timestamp: 20)
        let (deliver, change) = c.policy.admit(down, now: 20)
        #expect(!deliver && change == .wokeByInput(touch: true))
        #expect(c.policy.command(sleep: false, now: 21) == nil)

        // Asleep for idleness, a command keeps it asleep past the schedule's end; `on` wakes it
        // and the idle time starts again from then.
        var i = Clocked(SleepSettings(afterIdleSeconds: 300), origin: Self.noon)
        #expect(i.update(at: 300) == .fellAsleep(.idle))
        #expect(i.policy.command(sleep: true, now: 301) == nil)
        #expect(i.policy.command(sleep: false, now: 400) == .wokeByCommand)
        #expect(!i.policy.isAsleep)
        #expect(i.update(at: 699) == nil)
        #expect(i.update(at: 700) == .fellAsleep(.idle))

        // In the nightly window the schedule's end does not wake a screen put to sleep by command.
        let window = SleepWindow(parsing: "22:00-06:30")!
        let night = CivilTime.utc(year: 2026, month: 6, day: 1, hour: 23)
        var n = Clocked(SleepSettings(schedule: window), origin: night)
        #expect(n.policy.command(sleep: true, now: 0) == .fellAsleep(.command))
        #expect(n.update(at: 8 * 3600) == nil && n.policy.isAsleep)
    }
}
