import Foundation
import Glibc
import Testing
import Appearance
@testable import AppearanceBus
import SDBus
import Threads

/// The runner against real buses: a private dbus-daemon per test (one standing in for the
/// session bus, one for the system bus) and python3-dbusmock serving the portal's Settings and
/// iio-sensor-proxy. Every daemon and mock is stopped before the test returns.
@Suite(.serialized) struct LiveSourceTests {
    func runner(_ sources: [AppearanceSourceKind], session: PrivateBus? = nil, system: PrivateBus? = nil,
                hold: Double = 0.3, schedule: ScheduleRule? = nil, prefs: String? = nil, recorder: Recorder) -> AppearanceRunner {
        let config = AppearanceConfig(systemSources: sources,
                                      lightSensor: LightSensorSettings(darkBelowLux: 30, lightAboveLux: 100, holdSeconds: hold),
                                      schedule: schedule)
        // An unreachable address for a bus the test does not start.
        let none = BusAddress.address("unix:path=/nonexistent/appearance-test-bus")
        let options = AppearanceRunnerOptions(config: config,
                                              sessionBus: session.map { .address($0.address) } ?? none,
                                              systemBus: system.map { .address($0.address) } ?? none,
                                              preferencesPath: prefs, callTimeoutSeconds: 2)
        return AppearanceRunner(options: options, onEvent: recorder.callback)
    }

    @Test func portalInitialReadFlipAndLatency() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let portal = try BusMock(bus: bus, kind: "portal", parameters: #"{"color-scheme": 1, "contrast": 1}"#)
        defer { portal.stop() }
        let rec = Recorder()
        let r = runner([.portal, .lightSensor, .schedule], session: bus, recorder: rec)
        #expect(r.start())
        defer { r.stop() }

        let first = rec.waitAppearance { $0.source == .portal }
        #expect(first?.0 == SystemAppearance(scheme: .dark, source: .portal, hints: AccessibilityHints(highContrast: true, reducedMotion: nil)))
        #expect(first?.0.followingLabel == "Following System · desktop")
        // The light sensor's bus is missing: one log line says so.
        #expect(rec.logs.filter { $0.hasPrefix("light sensor:") }.count == 1)

        var latencies: [Double] = []
        for i in 0..<21 {
            let value = i % 2 == 0 ? 2 : 1
            let want: ColorScheme = value == 2 ? .light : .dark
            let mark = rec.count
            guard let emitted = portal.emit("set color-scheme \(value)") else { Issue.record("mock did not emit"); return }
            guard let (_, at) = rec.waitAppearance(from: mark, { $0.scheme == want && $0.source == .portal }) else {
                Issue.record("flip \(i) to \(want) never arrived"); return
            }
            if i > 0 { latencies.append(at - emitted) } // the first warms the mock up
        }
        #expect(r.current.scheme == .light)
        print(String(format: "portal SettingChanged → callback: median %.2f ms, max %.2f ms over %d flips",
                     median(latencies) * 1000, (latencies.max() ?? .nan) * 1000, latencies.count))

        // Contrast off arrives as a hint change.
        let mark = rec.count
        _ = portal.emit("set contrast 0")
        #expect(rec.waitAppearance(from: mark) { $0.hints.highContrast == false } != nil)
    }

    /// The desktop's contrast and reduced-motion are followed live, each key on its own, while
    /// another source (the schedule) drives the mode; the portal leaving clears them.
    @Test func contrastAndReducedMotionAreLive() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let portal = try BusMock(bus: bus, kind: "portal", parameters: #"{"color-scheme": 0}"#)
        defer { portal.stop() }
        let rec = Recorder()
        // A schedule that is light all day but for one minute at 03:00 local.
        let rule = ScheduleRule.fixed(darkFrom: WallClock(hour: 3, minute: 0)!, lightFrom: WallClock(hour: 3, minute: 1)!)
        let r = runner([.portal, .schedule], session: bus, schedule: rule, recorder: rec)
        #expect(r.start())
        defer { r.stop() }
        let first = rec.waitAppearance { _ in true }
        // The portal has neither key: no hints; it says "no preference", so the schedule drives.
        #expect(first?.0.hints == AccessibilityHints(highContrast: nil, reducedMotion: nil))
        #expect(first?.0.source == .schedule || first?.0.source == nil)

        func step(_ command: String, _ want: AccessibilityHints) -> Double? {
            let mark = rec.count
            guard let emitted = portal.emit(command) else { Issue.record("mock did not emit \(command)"); return nil }
            guard let (a, at) = rec.waitAppearance(from: mark, { $0.hints == want }) else {
                Issue.record("\(command): hints never became \(want); current \(r.current)"); return nil
            }
            // Only the hints changed: the scheme and its source stay as they were.
            #expect(a.source == first?.0.source && a.scheme == first?.0.scheme, "\(command): \(a)")
            return at - emitted
        }
        var latencies: [Double] = []
        var hints = AccessibilityHints()
        for _ in 0..<5 {
            for (key, on) in [("contrast", true), ("reduced-motion", true), ("contrast", false), ("reduced-motion", false)] {
                if key == "contrast" { hints.highContrast = on } else { hints.reducedMotion = on }
                if let l = step("set \(key) \(on ? 1 : 0)", hints) { latencies.append(l) }
            }
        }
        #expect(latencies.count == 20)
        print(String(format: "portal contrast/reduced-motion SettingChanged → callback: median %.2f ms, max %.2f ms over %d changes",
                     median(latencies) * 1000, (latencies.max() ?? .nan) * 1000, latencies.count))
        // One event per change: no duplicates for a value that did not change.
        let mark = rec.count
        _ = portal.emit("set contrast 0")
        usleep(300_000)
        #expect(rec.count == mark, "a SettingChanged with an unchanged value produced an event")

        // The portal leaves: its hints go with it.
        _ = portal.emit("set contrast 1")
        #expect(rec.waitAppearance(from: mark) { $0.hints.highContrast == true } != nil)
        let leaving = rec.count
        portal.stop()
        #expect(rec.waitAppearance(from: leaving) { $0.hints == AccessibilityHints() } != nil)
    }

    @Test func oldPortalReadIsUnwrapped() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let portal = try BusMock(bus: bus, kind: "portal-old", parameters: #"{"color-scheme": 2, "reduced-motion": 1}"#)
        defer { portal.stop() }
        let rec = Recorder()
        let r = runner([.portal], session: bus, recorder: rec)
        r.start()
        defer { r.stop() }
        let got = rec.waitAppearance { $0.source == .portal }
        #expect(got?.0.scheme == .light)
        #expect(got?.0.hints == AccessibilityHints(highContrast: nil, reducedMotion: true))
        let mark = rec.count
        _ = portal.emit("set color-scheme 1")
        #expect(rec.waitAppearance(from: mark) { $0.scheme == .dark } != nil)
    }

    @Test func portalAbsentThenAppearingThenLeaving() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let rec = Recorder()
        let r = runner([.portal], session: bus, recorder: rec)
        r.start()
        defer { r.stop() }
        let first = rec.waitAppearance { _ in true }
        #expect(first?.0 == .noPreference)
        #expect(rec.logs.contains { $0.contains("portal") && $0.contains("not running") })

        let portal = try BusMock(bus: bus, kind: "portal", parameters: #"{"color-scheme": 1}"#)
        let appeared = rec.waitAppearance { $0.source == .portal }
        #expect(appeared?.0.scheme == .dark)
        portal.stop()
        let left = rec.waitAppearance(from: rec.count - 1) { $0.source == nil }
        #expect(left?.0 == .noPreference)
    }

    @Test func busGoingAwayDropsItsSource() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let portal = try BusMock(bus: bus, kind: "portal", parameters: #"{"color-scheme": 1}"#)
        defer { portal.stop() }
        let rec = Recorder()
        let r = runner([.portal], session: bus, recorder: rec)
        r.start()
        defer { r.stop() }
        #expect(rec.waitAppearance { $0.source == .portal } != nil)
        let mark = rec.count
        bus.stop() // the daemon dies under the runner
        #expect(rec.waitAppearance(from: mark) { $0 == .noPreference } != nil)
        #expect(rec.logs.filter { $0.contains("connection is closed") }.count == 1)
    }

    @Test func sensorHysteresisOverTheBus() throws {
        let system = try PrivateBus()
        defer { system.stop() }
        let sensor = try BusMock(bus: system, kind: "sensor", parameters: #"{"lux": 300}"#)
        defer { sensor.stop() }
        let rec = Recorder()
        let hold = 0.3
        let r = runner([.portal, .lightSensor], system: system, hold: hold, recorder: rec)
        r.start()
        let first = rec.waitAppearance { $0.source == .lightSensor }
        #expect(first?.0.scheme == .light)
        #expect(first?.0.followingLabel == "Following System · light sensor")
        #expect(sensor.send("owners")?.split(separator: " ").count == 2) // we claimed the light

        // A shadow shorter than the hold time does not flip.
        var mark = rec.count
        _ = sensor.emit("light 5")
        usleep(100_000)
        _ = sensor.emit("light 300")
        usleep(UInt32(hold * 2 * 1e6))
        #expect(!rec.all[mark...].contains { if case .systemAppearance = $0.event { return true }; return false })
        #expect(r.current.scheme == .light)
        #expect(r.lux == 300)

        // Darkness held for the hold time flips, not before.
        mark = rec.count
        guard let emitted = sensor.emit("light 5") else { Issue.record("no emit"); r.stop(); return }
        guard let (_, at) = rec.waitAppearance(from: mark, { $0.scheme == .dark }) else { Issue.record("never dark"); r.stop(); return }
        #expect(at - emitted >= hold)
        #expect(at - emitted < hold + 1)
        print(String(format: "light 5 lux → dark after %.3f s (hold %.1f s)", at - emitted, hold))

        // Between the thresholds stays dark; above the upper one flips back after the hold.
        mark = rec.count
        _ = sensor.emit("light 60")
        usleep(UInt32(hold * 2 * 1e6))
        #expect(r.current.scheme == .dark)
        _ = sensor.emit("light 150")
        #expect(rec.waitAppearance(from: mark) { $0.scheme == .light } != nil)

        r.stop()
        #expect(sensor.send("owners") == "OWNERS ") // ReleaseLight on stop
    }

    @Test func sensorAppearingLaterAndPortalNoPreferenceFallsThrough() throws {
        let session = try PrivateBus()
        defer { session.stop() }
        let system = try PrivateBus()
        defer { system.stop() }
        let portal = try BusMock(bus: session, kind: "portal", parameters: #"{"color-scheme": 0}"#)
        defer { portal.stop() }
        let rec = Recorder()
        let r = runner([.portal, .lightSensor], session: session, system: system, recorder: rec)
        r.start()
        defer { r.stop() }
        #expect(rec.waitAppearance { _ in true }?.0 == .noPreference)
        let sensor = try BusMock(bus: system, kind: "sensor", parameters: #"{"lux": 3}"#)
        defer { sensor.stop() }
        let got = rec.waitAppearance { $0.source == .lightSensor }
        #expect(got?.0.scheme == .dark)
        // The desktop now states a preference: it comes first in the order.
        let mark = rec.count
        _ = portal.emit("set color-scheme 2")
        #expect(rec.waitAppearance(from: mark) { $0.source == .portal && $0.scheme == .light } != nil)
    }

    @Test func idleRunnerThreadUsesNoCPU() throws {
        let session = try PrivateBus()
        defer { session.stop() }
        let system = try PrivateBus()
        defer { system.stop() }
        let portal = try BusMock(bus: session, kind: "portal", parameters: #"{"color-scheme": 1}"#)
        defer { portal.stop() }
        let sensor = try BusMock(bus: system, kind: "sensor", parameters: #"{"lux": 300}"#)
        defer { sensor.stop() }
        let folder = NSTemporaryDirectory() + "appearance-idle-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rec = Recorder()
        let r = runner([.portal, .lightSensor, .schedule], session: session, system: system,
                       schedule: .fixed(darkFrom: WallClock(parsing: "19:30")!, lightFrom: WallClock(parsing: "07:00")!),
                       prefs: folder + "/preferences.json", recorder: rec)
        r.start()
        defer { r.stop() }
        #expect(rec.waitAppearance { $0.source == .portal } != nil)
        usleep(200_000)
        let tid = r.threadID
        guard let before = threadTicks(tid) else { Issue.record("no /proc stat for thread \(tid)"); return }
        sleep(5)
        guard let after = threadTicks(tid) else { Issue.record("no /proc stat for thread \(tid)"); return }
        print("runner thread \(tid): \(after - before) CPU ticks over 5 s idle (portal, light sensor, schedule, file watcher active)")
        #expect(after - before == 0)
        #expect(r.readings[.schedule] != .absent && r.readings[.lightSensor] != .absent)
    }
}

@Suite(.serialized) struct ScheduleTimerTests {
    /// The schedule's timerfd fires at the transition: a zone offset is chosen so the local
    /// wall clock reaches the next full minute about 1.5 s from now, and darkFrom is that minute.
    @Test func fixedTransitionFiresOnTime() {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let now = Int64(ts.tv_sec)
        let target = now + 2 // the UTC second at which the local clock will read hh:mm:00
        let offset = Int((86400 - (target % 86400)) % 86400) + 12 * 3600 // wall(target) = 12:00:00
        let zone = LocalZone { _ in offset }
        let rule = ScheduleRule.fixed(darkFrom: WallClock(hour: 12, minute: 0)!, lightFrom: WallClock(hour: 18, minute: 0)!)
        let rec = Recorder()
        let r = AppearanceRunner(options: AppearanceRunnerOptions(config: AppearanceConfig(systemSources: [.schedule], schedule: rule),
                                                                  zone: zone),
                                 onEvent: rec.callback)
        r.start()
        defer { r.stop() }
        let first = rec.waitAppearance { _ in true }
        #expect(first?.0 == SystemAppearance(scheme: .light, source: .schedule))
        guard let (_, at) = rec.waitAppearance(timeout: 5, { $0.scheme == .dark }) else {
            Issue.record("the schedule never turned dark"); return
        }
        clock_gettime(CLOCK_REALTIME, &ts)
        let nowReal: Double = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        let sinceCallback: Double = MonotonicClock.seconds() - at
        let lateBy: Double = (nowReal - sinceCallback) - Double(target)
        print(String(format: "schedule transition → callback %.2f ms after the instant", lateBy * 1000))
        #expect(lateBy >= 0 && lateBy < 0.5)
        #expect(r.current.followingLabel == "Following System · schedule")
    }
}
