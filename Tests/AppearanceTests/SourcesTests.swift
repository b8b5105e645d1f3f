import Appearance
import Testing

@Suite struct ArbitrationTests {
    @Test func firstPresentSourceInOrderWins() {
        let a = SourceArbiter()
        let all: [AppearanceSourceKind: SourceReading] = [.portal: .scheme(.dark), .lightSensor: .scheme(.light), .schedule: .scheme(.light)]
        #expect(a.arbitrate(all) == SystemAppearance(scheme: .dark, source: .portal))
        var r = all
        r[.portal] = .absent
        #expect(a.arbitrate(r) == SystemAppearance(scheme: .light, source: .lightSensor))
        r[.portal] = .scheme(.noPreference) // the desktop has no preference: fall through
        #expect(a.arbitrate(r).source == .lightSensor)
        r[.lightSensor] = .absent
        r[.schedule] = .scheme(.dark)
        #expect(a.arbitrate(r) == SystemAppearance(scheme: .dark, source: .schedule))
        #expect(a.arbitrate([:]) == .noPreference)
        #expect(a.arbitrate([.schedule: .absent]).followingLabel == "Following System")  // nothing after a dot when no source drives
        #expect(a.arbitrate([.schedule: .absent]).sourceLabel == "no preference")
    }

    @Test func configuredOrderIsRespected() {
        let a = SourceArbiter(order: [.schedule, .portal])
        let r: [AppearanceSourceKind: SourceReading] = [.portal: .scheme(.dark), .lightSensor: .scheme(.light), .schedule: .scheme(.light)]
        #expect(a.arbitrate(r).source == .schedule)
        // A source left out of the order never drives, even when it is the only one present.
        #expect(SourceArbiter(order: [.portal]).arbitrate([.lightSensor: .scheme(.dark)]).source == nil)
    }

    @Test func labelsAndResolution() {
        let s = SystemAppearance(scheme: .dark, source: .lightSensor, hints: AccessibilityHints(highContrast: true))
        #expect(s.followingLabel == "Following System · light sensor")
        #expect(s.isDark(for: .system) && !s.isDark(for: .light) && s.isDark(for: .dark))
        #expect(!SystemAppearance.noPreference.isDark(for: .system))
        #expect(SystemAppearance.noPreference.isDark(for: .system, noPreferenceIsDark: true))
        #expect(SourceArbiter().arbitrate([.portal: .scheme(.light)], hints: s.hints).hints.highContrast == true)
    }
}

@Suite struct HysteresisTests {
    let settings = LightSensorSettings(darkBelowLux: 30, lightAboveLux: 100, holdSeconds: 10)

    @Test func firstReadingDecidesAtOnce() {
        for (lux, want) in [(5.0, ColorScheme.dark), (500, .light), (40, .dark), (90, .light)] {
            var h = LightSensorHysteresis(settings: settings)
            #expect(h.scheme == .noPreference)
            #expect(h.observe(lux: lux, at: 0) == nil)
            #expect(h.scheme == want, "\(lux) lux")
        }
    }

    @Test func darknessMustHoldForTheHoldTime() {
        var h = LightSensorHysteresis(settings: settings)
        h.observe(lux: 300, at: 0)
        #expect(h.observe(lux: 10, at: 100) == 110) // dark pending, wake at 110
        #expect(h.scheme == .light)
        #expect(h.advance(to: 109.9) == 110)
        #expect(h.scheme == .light)
        #expect(h.observe(lux: 12, at: 105) == 110) // still dark: the clock is not restarted
        #expect(h.advance(to: 110) == nil)
        #expect(h.scheme == .dark)
    }

    @Test func aPassingShadowDoesNotFlip() {
        var h = LightSensorHysteresis(settings: settings)
        h.observe(lux: 300, at: 0)
        h.observe(lux: 5, at: 50)           // shadow
        #expect(h.observe(lux: 60, at: 55) == nil) // back between thresholds: pending dropped
        #expect(h.advance(to: 70) == nil)
        #expect(h.scheme == .light)
        h.observe(lux: 5, at: 80)            // a new shadow starts a new hold
        #expect(h.deadline == 90)
    }

    @Test func lightNeedsTheUpperThreshold() {
        var h = LightSensorHysteresis(settings: settings)
        h.observe(lux: 5, at: 0)
        #expect(h.observe(lux: 99, at: 1) == nil) // between: stays dark, nothing pending
        #expect(h.observe(lux: 101, at: 2) == 12)
        h.advance(to: 12)
        #expect(h.scheme == .light)
        h.reset()
        #expect(h.scheme == .noPreference && h.lastLux == nil)
    }

    @Test func zeroHoldFlipsOnTheReading() {
        var h = LightSensorHysteresis(settings: LightSensorSettings(darkBelowLux: 30, lightAboveLux: 100, holdSeconds: 0))
        h.observe(lux: 300, at: 0)
        #expect(h.observe(lux: 1, at: 1) == nil)
        #expect(h.scheme == .dark)
    }
}

@Suite struct AppearanceConfigTests {
    func decode(_ v: AppearanceConfigValue) -> Result<AppearanceConfig, AppearanceConfigError> {
        do { return .success(try AppearanceConfig.decode(v)) } catch { return .failure(error) }
    }
    func failureKey(_ v: AppearanceConfigValue) -> String? {
        if case .failure(let e) = decode(v) { return e.key }
        return nil
    }

    @Test func fullExampleDecodes() throws {
        let v = AppearanceConfigValue.object([
            "systemSources": .array([.string("light-sensor"), .string("schedule")]),
            "lightSensor": .object(["darkBelowLux": .number(20), "lightAboveLux": .number(80), "holdSeconds": .number(3)]),
            "schedule": .object(["darkFrom": .string("19:30"), "lightFrom": .string("07:00")]),
        ])
        let c = try AppearanceConfig.decode(v)
        #expect(c.systemSources == [.lightSensor, .schedule])
        #expect(c.lightSensor == LightSensorSettings(darkBelowLux: 20, lightAboveLux: 80, holdSeconds: 3))
        #expect(c.schedule == .fixed(darkFrom: WallClock(hour: 19, minute: 30)!, lightFrom: WallClock(hour: 7, minute: 0)!))
        let solar = try AppearanceConfig.decode(.object(["schedule": .object(["latitude": .number(52.52), "longitude": .number(13.4)])]))
        #expect(solar.schedule == .solar(latitude: 52.52, longitude: 13.4, civilTwilight: false))
        #expect(solar.systemSources == AppearanceSourceKind.defaultOrder)
        #expect(try AppearanceConfig.decode(.object([:])) == AppearanceConfig())
    }

    @Test func errorsNameTheKey() {
        #expect(failureKey(.array([])) == "appearance")
        #expect(failureKey(.object(["sources": .null])) == "appearance.sources")
        #expect(failureKey(.object(["systemSources": .array([.string("portal"), .string("moon")])])) == "appearance.systemSources[1]")
        #expect(failureKey(.object(["systemSources": .array([.string("portal"), .string("portal")])])) == "appearance.systemSources[1]")
        #expect(failureKey(.object(["lightSensor": .object(["darkBelowLux": .string("30")])])) == "appearance.lightSensor.darkBelowLux")
        #expect(failureKey(.object(["lightSensor": .object(["holdSeconds": .number(-1)])])) == "appearance.lightSensor.holdSeconds")
        #expect(failureKey(.object(["lightSensor": .object(["darkBelowLux": .number(200)])])) == "appearance.lightSensor.lightAboveLux")
        #expect(failureKey(.object(["schedule": .object(["darkFrom": .string("7:30"), "lightFrom": .string("07:00")])])) == "appearance.schedule.darkFrom")
        #expect(failureKey(.object(["schedule": .object(["darkFrom": .string("19:30")])])) == "appearance.schedule.lightFrom")
        #expect(failureKey(.object(["schedule": .object(["darkFrom": .string("07:00"), "lightFrom": .string("07:00")])])) == "appearance.schedule.lightFrom")
        #expect(failureKey(.object(["schedule": .object(["darkFrom": .string("24:00"), "lightFrom": .string("07:00")])])) == "appearance.schedule.darkFrom")
        #expect(failureKey(.object(["schedule": .object(["latitude": .number(91), "longitude": .number(0)])])) == "appearance.schedule.latitude")
        #expect(failureKey(.object(["schedule": .object(["latitude": .number(50)])])) == "appearance.schedule.longitude")
        #expect(failureKey(.object(["schedule": .object(["latitude": .number(50), "longitude": .number(0), "civilTwilight": .number(1)])])) == "appearance.schedule.civilTwilight")
        #expect(failureKey(.object(["schedule": .object(["latitude": .number(50), "longitude": .number(0), "darkFrom": .string("19:00")])])) == "appearance.schedule")
        #expect(failureKey(.object(["schedule": .object([:])])) == "appearance.schedule")
    }
}
