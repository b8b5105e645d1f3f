import Testing
import Appearance
@testable import KioskTools
@testable import KioskSupport
import KioskEngine

/// The `appearance` section of the kiosk config, through the kiosk's own strict decoder.
@Suite struct AppearanceConfigTests {
    func decode(_ text: String) throws(KioskError) -> KioskConfig {
        try KioskConfig.decode(Array(text.utf8), file: "/etc/kiosk.json")
    }

    func message(_ text: String) -> String? {
        do { _ = try decode(text); return nil } catch { return error.message }
    }

    @Test func defaultsFollowPortalThenSensorThenNoSchedule() {
        let a = KioskConfig.defaults.appearance
        #expect(a.systemSources == [.portal, .lightSensor, .schedule])
        #expect(a.lightSensor == LightSensorSettings(darkBelowLux: 30, lightAboveLux: 100, holdSeconds: 10))
        #expect(a.schedule == nil)
    }

    @Test func theIssuesExampleDecodes() throws {
        let c = try decode(#"{"appearance": {"systemSources": ["light-sensor", "portal"], "lightSensor": {"darkBelowLux": 5, "lightAboveLux": 50, "holdSeconds": 0.5}, "schedule": {"darkFrom": "19:30", "lightFrom": "07:00"}}}"#)
        #expect(c.appearance.systemSources == [.lightSensor, .portal])
        #expect(c.appearance.lightSensor == LightSensorSettings(darkBelowLux: 5, lightAboveLux: 50, holdSeconds: 0.5))
        #expect(c.appearance.schedule == .fixed(darkFrom: WallClock(hour: 19, minute: 30)!, lightFrom: WallClock(hour: 7, minute: 0)!))
        let solar = try decode(#"{"appearance": {"schedule": {"latitude": 52.52, "longitude": 13.40}}}"#)
        #expect(solar.appearance.schedule == .solar(latitude: 52.52, longitude: 13.40, civilTwilight: false))
        #expect(solar.appearance.systemSources == AppearanceSourceKind.defaultOrder)
    }

    @Test func nullScheduleMeansNone() throws {
        #expect(try decode(#"{"appearance": {"schedule": null}}"#).appearance.schedule == nil)
    }

    @Test func errorsNameTheFileAndKeyPath() {
        let cases: [(String, String)] = [
            (#"{"appearance": {"systemSources": ["portal", "sun"]}}"#, "appearance.systemSources[1]"),
            (#"{"appearance": {"systemSources": ["portal", "portal"]}}"#, "listed twice"),
            (#"{"appearance": {"lightSensor": {"darkBelowLux": 100, "lightAboveLux": 20}}}"#, "appearance.lightSensor.lightAboveLux: must be greater"),
            (#"{"appearance": {"lightSensor": {"holdSecs": 1}}}"#, "appearance.lightSensor.holdSecs: unknown key"),
            (#"{"appearance": {"schedule": {"darkFrom": "7pm", "lightFrom": "07:00"}}}"#, "appearance.schedule.darkFrom"),
            (#"{"appearance": {"schedule": {"darkFrom": "19:00", "latitude": 1, "longitude": 2}}}"#, "not both"),
            (#"{"appearance": {"colour": 1}}"#, "appearance.colour: unknown key"),
            (#"{"appearance": true}"#, "appearance: expected an object, found a boolean"),
        ]
        for (text, expected) in cases {
            let m = message(text)
            #expect(m?.hasPrefix("config file /etc/kiosk.json: ") == true, "\(text): \(m ?? "no error")")
            #expect(m?.contains(expected) == true, "\(text): \(m ?? "no error"), expected it to mention \(expected)")
        }
    }

    @Test func checkSummaryNamesTheEffectiveSources() throws {
        let c = try decode(#"{"appearance": {"systemSources": ["schedule", "portal"], "schedule": {"darkFrom": "19:30", "lightFrom": "07:00"}}}"#)
        let s = RunSettings.merge(config: c, flags: RunOptions(), environment: ["HOME": "/home/k"]).summary
        #expect(s.contains("system appearance follows: schedule, then portal, then no preference (light)"), "\(s)")
        #expect(s.contains("schedule: dark from 19:30 to 07:00 local time"), "\(s)")
        #expect(!s.contains("light sensor:"), "the sensor is not listed, so no thresholds: \(s)")
        let d = RunSettings.merge(config: .defaults, flags: RunOptions(), environment: ["HOME": "/home/k"]).summary
        #expect(d.contains("light sensor: dark below 30 lux, light above 100 lux, each held 10 s"), "\(d)")
        #expect(d.contains("schedule: none configured (skipped)"), "\(d)")
    }

    @Test func forcedReduceMotionWinsOverThePortal() throws {
        var flags = RunOptions()
        #expect(!RunSettings.merge(config: .defaults, flags: flags, environment: [:]).reduceMotionForced)
        flags.reduceMotion = true
        #expect(RunSettings.merge(config: .defaults, flags: flags, environment: [:]).reduceMotionForced)
        let c = try decode(#"{"reduceMotion": true}"#)
        #expect(RunSettings.merge(config: c, flags: RunOptions(), environment: [:]).reduceMotionForced)
    }

    /// High contrast follows the desktop unless a flag or the config forces it; `run --check`
    /// says which, and prints the high-contrast page colours of the real colour sets.
    @Test func checkNamesHighContrastAndItsColours() throws {
        let follows = RunSettings.merge(config: .defaults, flags: RunOptions(), environment: [:]).summary
        #expect(follows.contains("high contrast: off (follows the desktop portal's contrast)"), "\(follows)")
        var flags = RunOptions()
        flags.highContrast = true
        #expect(RunSettings.merge(config: .defaults, flags: flags, environment: [:]).summary.contains("high contrast: on\n"))
        #expect(RunSettings.merge(config: try decode(#"{"highContrast": true}"#), flags: RunOptions(), environment: [:])
                    .summary.contains("high contrast: on\n"))
        #expect(RunSettings.highContrastLine(.standard) == "high-contrast page colours: light 255,255,255, dark 0,0,0")

        // Through the binary, with a colour-sets file that changes the high-contrast page.
        let dir = TempFolder()
        let colors = dir.file("colors.json"), config = dir.file("kiosk.json")
        writeText(#"{"pageBackground": {"highContrastLight": [250, 250, 240], "highContrastDark": [5, 0, 10]}}"#, to: colors)
        writeText(#"{"colors": "\#(colors)"}"#, to: config)
        let o = try runKiosk(["run", "--check", "--config", config, "--prefs", dir.file("p.json")], in: dir)
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.contains("\nhigh-contrast page colours: light 250,250,240, dark 5,0,10\n"), "\(o.stdout)")
    }

    /// Berlin on the DST day 2026-10-25 (clocks go back at 01:00 UTC): CEST +2 before, CET +1 after.
    static let berlin = LocalZone { t in t < CivilTime.utc(year: 2026, month: 10, day: 25, hour: 1) ? 7200 : 3600 }

    @Test func scheduleNowAcrossTheDSTChange() throws {
        let c = try decode(#"{"appearance": {"schedule": {"darkFrom": "19:30", "lightFrom": "07:00"}}}"#).appearance
        // 2026-10-25 06:59 CET = 05:59 UTC: still dark; light at 07:00 CET = 06:00 UTC.
        let before = AppearanceSummary.scheduleNow(c, atUTC: CivilTime.utc(year: 2026, month: 10, day: 25, hour: 5, minute: 59), zone: Self.berlin)
        #expect(before == "schedule now: dark at 2026-10-25 06:59:00 +0100; next change: light at 2026-10-25 07:00:00 +0100")
        // The evening before, 19:29 CEST: light; dark at 19:30 CEST (17:30 UTC).
        let evening = AppearanceSummary.scheduleNow(c, atUTC: CivilTime.utc(year: 2026, month: 10, day: 24, hour: 17, minute: 29), zone: Self.berlin)
        #expect(evening == "schedule now: light at 2026-10-24 19:29:00 +0200; next change: dark at 2026-10-24 19:30:00 +0200")
        #expect(AppearanceSummary.scheduleNow(KioskConfig.defaults.appearance, atUTC: 0, zone: .utc) == nil)
    }

    /// Berlin on the DST day 2026-03-29 (clocks go forward at 01:00 UTC): CET +1 before, CEST +2 after.
    static let berlinSpring = LocalZone { t in t < CivilTime.utc(year: 2026, month: 3, day: 29, hour: 1) ? 3600 : 7200 }

    /// A window inside the skipped hour: both times become 03:00 CEST and light (listed last)
    /// wins, so the night has no change to announce (the check said "dark at 03:00").
    @Test func scheduleNowWithBothTimesInTheSkippedHour() throws {
        let c = try decode(#"{"appearance": {"schedule": {"darkFrom": "02:00", "lightFrom": "02:59"}}}"#).appearance
        let night = AppearanceSummary.scheduleNow(c, atUTC: CivilTime.utc(year: 2026, month: 3, day: 28, hour: 23, minute: 30), zone: Self.berlinSpring)
        #expect(night == "schedule now: light at 2026-03-29 00:30:00 +0100; next change: dark at 2026-03-30 02:00:00 +0200")
        let after = AppearanceSummary.scheduleNow(c, atUTC: CivilTime.utc(year: 2026, month: 3, day: 29, hour: 1), zone: Self.berlinSpring)
        #expect(after == "schedule now: light at 2026-03-29 03:00:00 +0200; next change: dark at 2026-03-30 02:00:00 +0200")
    }
}
