import Testing
import KioskSupport
import KioskTools
import Raster

/// The one merge of the environment with the config and the flags (`RunSettings.merge`,
/// `HostEnvironment.parse`): what each variable gives, what wins, and a bad value's warning.
@Suite struct HostEnvironmentTests {
    func parse(_ env: [String: String]) -> HostEnvironment { HostEnvironment.parse(env) }

    @Test func nothingSetGivesTheDefaults() {
        let e = parse([:])
        #expect(e == HostEnvironment())
        #expect(!e.timing && e.logind && e.present == nil && e.input == nil && e.drmFormat == nil && e.drmFlip == nil)
        #expect(e.drmDevice == nil && e.videoDriver == nil && !e.hasX11Display && !e.hasWaylandDisplay && e.seat == "seat0")
        #expect(e.logWindowSeconds == 60 && e.fsyncDelaySeconds == 0)
    }

    @Test func eachVariableReachesItsSetting() {
        let e = parse([
            "DARKMODE_KIOSK_PRESENT": " Texture ", "DARKMODE_KIOSK_INPUT": "evdev", "DARKMODE_KIOSK_DRM_DEVICE": "/dev/dri/card1",
            "DARKMODE_KIOSK_DRM_FORMAT": "RGB565", "DARKMODE_KIOSK_DRM_FLIP": "legacy", "DARKMODE_KIOSK_LOGIND": "0",
            "DARKMODE_KIOSK_TIMING": "yes", "SDL_VIDEODRIVER": "kmsdrm", "DISPLAY": ":1", "WAYLAND_DISPLAY": "wayland-0",
            "XDG_SEAT": "seat1", "DARKMODE_KIOSK_TEST_LOG_WINDOW_S": "5", "DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS": "200",
        ])
        #expect(e.present == .texture && e.input == .evdev && e.drmDevice == "/dev/dri/card1")
        #expect(e.drmFormat == .rgb565 && e.drmFlip == .legacy && !e.logind && e.timing)
        #expect(e.videoDriver == "kmsdrm" && e.hasX11Display && e.hasWaylandDisplay && e.seat == "seat1")
        #expect(e.logWindowSeconds == 5 && e.fsyncDelaySeconds == 0.2 && e.warnings.isEmpty)
        // Empty is unset; "auto" is the automatic choice; numbers are capped.
        let f = parse(["DARKMODE_KIOSK_PRESENT": "auto", "DARKMODE_KIOSK_INPUT": "", "DARKMODE_KIOSK_DRM_FLIP": "AUTO",
                           "DARKMODE_KIOSK_DRM_DEVICE": "", "DISPLAY": "", "XDG_SEAT": "", "DARKMODE_KIOSK_LOGIND": "",
                           "DARKMODE_KIOSK_TEST_LOG_WINDOW_S": "99999", "DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS": "99999"])
        #expect(f.present == nil && f.input == nil && f.drmFlip == nil && f.drmDevice == nil && !f.hasX11Display)
        #expect(f.seat == "seat0" && f.logind && f.logWindowSeconds == 3600 && f.fsyncDelaySeconds == 10 && f.warnings.isEmpty)
        #expect(parse(["SDL_VIDEODRIVER": ""]).videoDriver == "", "set but empty is still set: SDL was asked")
    }

    /// The state file: named, switched off by an empty value, or by default in systemd's
    /// runtime directory (the first of several).
    @Test func theStateFileIsNamedOrInTheRuntimeDirectory() {
        #expect(parse([:]).stateFile == nil)
        #expect(parse(["DARKMODE_KIOSK_STATE_FILE": "/run/k/state.json"]).stateFile == "/run/k/state.json")
        #expect(parse(["RUNTIME_DIRECTORY": "/run/darkmode-kiosk"]).stateFile == "/run/darkmode-kiosk/state.json")
        #expect(parse(["RUNTIME_DIRECTORY": "/run/a/:/run/b"]).stateFile == "/run/a/state.json")
        #expect(parse(["RUNTIME_DIRECTORY": "/run/a", "DARKMODE_KIOSK_STATE_FILE": ""]).stateFile == nil, "empty: none")
        #expect(parse(["RUNTIME_DIRECTORY": "/run/a", "DARKMODE_KIOSK_STATE_FILE": "/tmp/s.json"]).stateFile == "/tmp/s.json")
        #expect(parse(["RUNTIME_DIRECTORY": ""]).stateFile == nil)
    }

    /// DARKMODE_KIOSK_TIMING had two meanings (`=false` was on in main, off in the host): one now.
    @Test func timingMeansOneThing() {
        for off in ["0", "false", "FALSE", "no", "Off", ""] { #expect(!parse(["DARKMODE_KIOSK_TIMING": off]).timing, "\(off)") }
        for on in ["1", "true", "Yes", "on"] { #expect(parse(["DARKMODE_KIOSK_TIMING": on]).timing, "\(on)") }
        #expect(!parse([:]).timing)
        for off in ["0", "false", "no", "off"] { #expect(!parse(["DARKMODE_KIOSK_LOGIND": off]).logind, "\(off)") }
        #expect(parse(["DARKMODE_KIOSK_LOGIND": "1"]).logind)
    }

    /// A bad value never stops the kiosk: the default, and one warning naming the variable, the
    /// value and what it takes (`run` logs it; `run --check` fails on it).
    @Test func aBadValueGivesTheDefaultAndAWarningNamingIt() {
        let cases: [(String, String, String)] = [
            ("DARKMODE_KIOSK_PRESENT", "gl", "is not one of auto, surface, shm, texture, drm; using the automatic choice"),
            ("DARKMODE_KIOSK_INPUT", "udev", "is not one of auto, libinput, evdev, sdl; using the automatic choice"),
            ("DARKMODE_KIOSK_DRM_FORMAT", "yuv", "is not one of auto, xrgb8888, rgb565; using the automatic choice"),
            ("DARKMODE_KIOSK_DRM_FLIP", "sideways", "is not one of auto, atomic, legacy, dirty; using the automatic choice"),
            ("DARKMODE_KIOSK_TIMING", "maybe", "is neither on (1, true, yes, on) nor off (0, false, no, off); using off"),
            ("DARKMODE_KIOSK_LOGIND", "2", "is neither on (1, true, yes, on) nor off (0, false, no, off); using on"),
            ("DARKMODE_KIOSK_TEST_LOG_WINDOW_S", "0.5", "is not a number of seconds from 1 to 3600; using 60"),
            ("DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS", "abc", "is not a number of milliseconds from 0 to 10000; using 0"),
            ("DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS", "-5", "is not a number of milliseconds from 0 to 10000; using 0"),
        ]
        for (name, value, says) in cases {
            var e = parse([name: value])
            #expect(e.warnings == ["\(name)=\"\(value)\" \(says)"], "\(name)=\(value)")
            e.warnings = []
            #expect(e == HostEnvironment(), "\(name)=\(value): the default kept")
        }
        // Two bad values: two warnings, in the table's order.
        let two = parse(["DARKMODE_KIOSK_TIMING": "x", "DARKMODE_KIOSK_PRESENT": "y"]).warnings
        #expect(two.count == 2 && two[0].hasPrefix("DARKMODE_KIOSK_PRESENT=") && two[1].hasPrefix("DARKMODE_KIOSK_TIMING="))
    }

    @Test func runSettingsCarryTheEnvironmentAndFlagsWin() throws {
        let config = try KioskConfig.decode(Array(#"{"preferences": "/cfg/prefs.json", "display": {"rotate": 90}}"#.utf8), file: "c.json")
        var flags = RunOptions()
        let env = ["XDG_CONFIG_HOME": "/xdg", "DARKMODE_KIOSK_PRESENT": "drm", "DARKMODE_KIOSK_TIMING": "1"]
        let merged = RunSettings.merge(config: config, flags: flags, environment: env)
        #expect(merged.host.present == .drm && merged.host.timing)
        // Flag over config over the environment's default (the preferences path).
        #expect(merged.preferencesPath == "/cfg/prefs.json")
        #expect(RunSettings.merge(config: .defaults, flags: flags, environment: env).preferencesPath
                == "/xdg/darkmode-kiosk/preferences.json")
        flags.prefsPath = "/flag/prefs.json"
        flags.rotate = .upsideDown
        let flagged = RunSettings.merge(config: config, flags: flags, environment: env)
        #expect(flagged.preferencesPath == "/flag/prefs.json" && flagged.rotate == .upsideDown)
        #expect(merged.rotate == .clockwise90)
        // A bad variable reaches the settings as a warning, the rest merged.
        let bad = RunSettings.merge(config: config, flags: RunOptions(), environment: ["DARKMODE_KIOSK_INPUT": "touch"])
        #expect(bad.host.warnings == ["DARKMODE_KIOSK_INPUT=\"touch\" is not one of auto, libinput, evdev, sdl; using the automatic choice"])
        #expect(bad.host.input == nil && bad.rotate == .clockwise90)
    }
}
