import Foundation
import Testing
import Raster
import Appearance
import Fleet
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

@Suite struct ConfigTests {
    static let shippedPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/kiosk.json").path

    func decode(_ text: String, file: String = "/etc/kiosk.json") throws(KioskError) -> KioskConfig {
        try KioskConfig.decode(Array(text.utf8), file: file)
    }

    func error(_ text: String) -> KioskError? {
        do { _ = try decode(text); return nil } catch { return error }
    }

    /// A config that differs from the defaults in every field.
    static var everythingDifferent: KioskConfig {
        var c = KioskConfig()
        c.display.windowed = true
        c.display.size = PixelSize(width: 7, height: 9)
        c.display.rotate = .clockwise270
        c.display.scale = 3
        c.display.showFPS = true
        c.display.sleep = SleepSettings(afterIdleSeconds: 5, schedule: SleepWindow(parsing: "01:00-02:00"))
        c.toggle.width = 99
        c.theme.light.page = ConfigColor(r: 1, g: 2, b: 3)
        c.theme.dark.page = ConfigColor(r: 4, g: 5, b: 6)
        c.reduceMotion = true
        c.preferences = "/somewhere"
        c.page.background.light = "/l.png"
        c.page.background.dark = "/d.png"
        c.page.background.fit = .contain
        c.input.calibration = CalibrationMatrix(0, 1, 0, -1, 0, 1)
        c.fleet.mqtt = MQTTSettings(broker: BrokerAddress(host: "b", port: 1, tls: false))
        c.appearance = AppearanceConfig(systemSources: [.schedule], lightSensor: LightSensorSettings(darkBelowLux: 1, lightAboveLux: 2, holdSeconds: 3),
                                        schedule: .fixed(darkFrom: WallClock(hour: 1, minute: 2)!, lightFrom: WallClock(hour: 3, minute: 4)!))
        return c
    }

    @Test func shippedFileEqualsBuiltInDefaults() throws {
        let bytes = try #require(readBytes(Self.shippedPath), "config/kiosk.json missing")
        #expect(try KioskConfig.decode(bytes, file: Self.shippedPath) == .defaults)
        // Decoding over a config that differs everywhere proves the file spells every value.
        #expect(try KioskConfig.decode(bytes, file: Self.shippedPath, base: Self.everythingDifferent) == .defaults)
        #expect(Self.everythingDifferent != .defaults)
    }

    @Test func shippedFileHoldsEveryKnownKey() throws {
        let root = try StrictJSONParser.parse(readBytes(Self.shippedPath)!)
        var paths: [String] = []
        func walk(_ v: JSONValue, _ prefix: String) {
            guard case .object(let o) = v else { return }
            for m in o.members {
                let p = prefix.isEmpty ? m.key : "\(prefix).\(m.key)"
                paths.append(p)
                walk(m.value, p)
            }
        }
        walk(root, "")
        #expect(Set(paths) == Set(KioskConfig.knownKeyPaths))
    }

    /// `fleet.mqtt` (issue 43): off by default; decoded with paths from the config's folder;
    /// each problem names its key.
    @Test func fleetMQTT() throws {
        #expect(KioskConfig.defaults.fleet.mqtt == nil)
        let c = try decode(#"{"fleet": {"mqtt": {"broker": "mqtts://b.lan", "username": "k", "passwordFile": "pw", "caFile": "/ca.pem", "groups": ["a", "b"], "discovery": false}}}"#,
                           file: "/etc/dk/kiosk.json")
        let m = try #require(c.fleet.mqtt)
        #expect(m.broker == BrokerAddress(host: "b.lan", port: 8883, tls: true))
        #expect(m.passwordFile == "/etc/dk/pw" && m.caFile == "/ca.pem" && m.groups == ["a", "b"] && !m.discovery)
        #expect(m.topicPrefix == "darkmode-kiosk" && m.discoveryPrefix == "homeassistant" && m.clientId == nil)
        let e = try #require(error(#"{"fleet": {"mqtt": {"broker": "http://x", "grups": []}}}"#))
        #expect(e.message.contains("fleet.mqtt.broker: expected a broker URL"), "\(e.message)")
        let missing = try #require(error(#"{"fleet": {"mqtt": {"clientId": "x"}}}"#))
        #expect(missing.message.contains("fleet.mqtt.broker: missing"), "\(missing.message)")
        let typo = try #require(error(#"{"fleet": {"mqtt": {"broker": "mqtt://x", "grups": ["a"]}}}"#))
        #expect(typo.message.contains("unknown key \"fleet.mqtt.grups\" (did you mean \"fleet.mqtt.groups\"?)"), "\(typo.message)")
        let bad = try #require(error(#"{"fleet": {"mqtt": {"broker": "mqtt://x", "groups": ["a/b"], "clientKey": "k.pem"}}}"#))
        #expect(bad.message.contains("fleet.mqtt.groups[0]") && bad.message.contains("clientCertificate and clientKey"), "\(bad.message)")
    }

    @Test func defaultsMatchTheLaterAppPageColours() {
        #expect(KioskConfig.defaults.theme.light.page.color == Color(r255: 235, g255: 246, b255: 255))
        #expect(KioskConfig.defaults.theme.dark.page.color == Color(r255: 66, g255: 66, b255: 66))
        #expect(KioskConfig.defaults.toggle.width == 260)
    }

    @Test func noFileGivesDefaults() throws {
        #expect(try KioskConfig.load(path: nil) == .defaults)
        #expect(try decode("{}") == .defaults)
    }

    @Test func partialFileOverridesOnlyItsKeys() throws {
        let c = try decode(#"{"display": {"rotate": 90, "size": "1024x600", "scale": 1.5}, "theme": {"dark": {"page": [10, 20, 30, 255]}}}"#)
        var expected = KioskConfig.defaults
        expected.display.rotate = .clockwise90
        expected.display.size = PixelSize(width: 1024, height: 600)
        expected.display.scale = 1.5
        expected.theme.dark.page = ConfigColor(r: 10, g: 20, b: 30, a: 255)
        #expect(c == expected)
        #expect(c.theme.dark.page.color.a == 1.0)
    }

    @Test func nullsMeanAutomatic() throws {
        var base = KioskConfig.defaults
        base.display.size = PixelSize(width: 5, height: 5)
        base.display.scale = 2
        base.preferences = "/x"
        let c = try KioskConfig.decode(Array(#"{"display": {"size": null, "scale": null}, "preferences": null}"#.utf8), file: "f", base: base)
        #expect(c.display.size == nil)
        #expect(c.display.scale == nil)
        #expect(c.preferences == nil)
    }

    @Test func backgroundImagePathsAreRelativeToTheConfigFile() throws {
        let c = try decode(#"{"page": {"background": {"light": "img/day.png", "dark": "/srv/night.png", "fit": "contain"}}}"#,
                           file: "/etc/kiosk/kiosk.json")
        #expect(c.page.background.light == "/etc/kiosk/img/day.png")
        #expect(c.page.background.dark == "/srv/night.png")
        #expect(c.page.background.fit == .contain)
        #expect(try decode(#"{"page": {"background": null}}"#).page.background.isEmpty)
        // Keys left out keep the base's values; null clears one appearance.
        var base = KioskConfig.defaults
        base.page.background.light = "/a.png"
        base.page.background.dark = "/b.png"
        let d = try KioskConfig.decode(Array(#"{"page": {"background": {"dark": null}}}"#.utf8), file: "f", base: base)
        #expect(d.page.background.light == "/a.png" && d.page.background.dark == nil && d.page.background.fit == .cover)
    }

    @Test func relativePreferencesPathIsRelativeToTheConfigFile() throws {
        #expect(try decode(#"{"preferences": "state/prefs.json"}"#, file: "/etc/kiosk/kiosk.json").preferences == "/etc/kiosk/state/prefs.json")
        #expect(try decode(#"{"preferences": "/var/p.json"}"#).preferences == "/var/p.json")
    }

    @Test(arguments: [
        (#"{"display": {"rotat": 90}}"#, #"display.rotat"#, #"did you mean "display.rotate"?"#),
        (#"{"displya": {}}"#, #"unknown key "displya""#, #"did you mean "display""#),
        (#"{"theme": {"dark": {"page": [1, 2, 3], "text": [0, 0, 0]}}}"#, #"unknown key "theme.dark.text""#, ""),
        (#"{"display": {"windowed": "yes"}}"#, "display.windowed: expected true or false, found a string", ""),
        (#"{"display": {"rotate": 45}}"#, "display.rotate: expected one of 0, 90, 180, 270, found 45", ""),
        (#"{"display": {"rotate": "90"}}"#, "display.rotate: expected one of 0, 90, 180, 270, found a string", ""),
        (#"{"display": {"rotate": 90.5}}"#, "found 90.5", ""),
        (#"{"display": {"scale": 0}}"#, "display.scale: expected a scale (pixels per point) or null for automatic in 0.25…16, found 0", ""),
        (#"{"display": {"scale": -2}}"#, "display.scale", "found -2"),
        (#"{"display": {"scale": 1e999}}"#, "not valid JSON", "out of range"),
        (#"{"display": {"scale": NaN}}"#, "not valid JSON", "NaN"),
        (#"{"display": {"scale": -Infinity}}"#, "not valid JSON", "NaN and Infinity"),
        (#"{"display": {"size": "0x10"}}"#, #"display.size: expected a size WxH"#, #"found "0x10""#),
        (#"{"display": {"size": "abc"}}"#, "display.size", #"found "abc""#),
        (#"{"display": {"size": "20000x10"}}"#, "display.size", "20000x10"),
        (#"{"display": {"size": 1024}}"#, "display.size", "found a number"),
        (#"{"toggle": {"width": 0}}"#, "toggle.width: expected a width in points in 60…1024, found 0", ""),
        (#"{"toggle": []}"#, "toggle: expected an object, found an array", ""),
        (#"{"theme": {"light": {"page": [1, 2]}}}"#, "theme.light.page", "array of 2 items"),
        (#"{"theme": {"light": {"page": [256, 0, 0]}}}"#, "theme.light.page[0]: expected a number in 0…255, found 256", ""),
        (#"{"theme": {"light": {"page": [0, "a", 0]}}}"#, "theme.light.page[1]", "found a string"),
        (#"{"preferences": ""}"#, "preferences: expected a file path or null", ""),
        (#"{"preferences": 3}"#, "preferences: expected a file path or null, found a number", ""),
        (#"{"reduceMotion": 1}"#, "reduceMotion: expected true or false", ""),
        (#"{"page": {"background": {"light": 3}}}"#, "page.background.light: expected a PNG file path or null, found a number", ""),
        (#"{"page": {"background": {"dark": ""}}}"#, "page.background.dark: expected a PNG file path or null, found an empty string", ""),
        (#"{"page": {"background": {"fit": "cove"}}}"#, #"page.background.fit: expected "cover" or "contain", found "cove""#, #"did you mean "cover"?"#),
        (#"{"page": {"background": {"fit": 1}}}"#, "page.background.fit: expected", "found a number"),
        (#"{"page": {"background": {"lihgt": "a.png"}}}"#, #"unknown key "page.background.lihgt""#, #"did you mean "page.background.light"?"#),
        (#"{"page": {"background": "a.png"}}"#, "page.background: expected an object, found a string", ""),
        (#"{"page": {"image": null}}"#, #"unknown key "page.image""#, ""),
        (#"{"input": {"calibration": [1, 0, 0, 0, 1]}}"#, "input.calibration: expected 6 numbers [a, b, c, d, e, f], found 5", ""),
        (#"{"input": {"calibration": "1 0 0 0 1 0"}}"#, "input.calibration: expected an array of 6 finite numbers", "found a string"),
        (#"{"input": {"calibration": [1, 0, 0, 0, "1", 0]}}"#, "input.calibration[4]: expected a number, found a string", ""),
        (#"{"input": {"calibration": [1, 2, 0, 2, 4, 0]}}"#, "input.calibration: the matrix is singular", ""),
        (#"{"input": {"calibration": [1, 0, 0, 0, 1, 1000]}}"#, "input.calibration: item 5 (1000) is outside -100…100", ""),
        (#"{"input": {"calibraton": null}}"#, #"unknown key "input.calibraton""#, #"did you mean "input.calibration"?"#),
        (#"{"input": []}"#, "input: expected an object, found an array", ""),
        (#"{"display": {"connector": "HDMI A 1"}}"#, #"display.connector: expected a KMS/DRM connector name like "HDMI-A-1""#, #"found "HDMI A 1""#),
        (#"{"display": {"connector": "HDMI-A"}}"#, "display.connector: expected a KMS/DRM connector name", ""),
        (#"{"display": {"connector": 1}}"#, "display.connector: expected a KMS/DRM connector name", "found a number"),
        ("[]", "expected a JSON object at the top level, found an array", ""),
        (#"{"display": {}, "display": {}}"#, "duplicate key", "line 1"),
        ("{\n  \"a\": 1,\n}", "trailing comma", "line 3"),
    ])
    func badValuesNameTheFileAndKeyPath(_ text: String, _ phrase: String, _ phrase2: String) throws {
        let e = try #require(error(text))
        #expect(e.kind == .input)
        #expect(e.exitStatus == 2)
        #expect(e.message.hasPrefix("config file /etc/kiosk.json: "), "\(e.message)")
        #expect(e.message.contains(phrase), "\(e.message)")
        #expect(phrase2.isEmpty || e.message.contains(phrase2), "\(e.message)")
    }

    @Test func displayConnectorIsRead() throws {
        #expect(try decode(#"{"display": {"connector": "HDMI-A-1"}}"#).display.connector == "HDMI-A-1")
        #expect(try decode(#"{"display": {"connector": "Virtual-1"}}"#).display.connector == "Virtual-1")
        #expect(try decode(#"{"display": {"connector": null}}"#).display.connector == nil)
        let s = RunSettings.merge(config: try decode(#"{"display": {"connector": "DP-2"}}"#),
                                  flags: RunOptions(), environment: ["HOME": "/home/k"])
        #expect(s.connector == "DP-2")
        #expect(s.summary.contains(", connector DP-2\n"), "\(s.summary)")
    }

    @Test func calibrationMatrixIsRead() throws {
        #expect(try decode(#"{"input": {"calibration": [0, 1, 0, -1, 0, 1]}}"#).input.calibration == CalibrationMatrix(0, 1, 0, -1, 0, 1))
        #expect(try decode(#"{"input": {"calibration": null}}"#).input.calibration == nil)
        let s = RunSettings.merge(config: try decode(#"{"input": {"calibration": [1.1, 0, -0.05, 0, 1.1, -0.05]}}"#),
                                  flags: RunOptions(), environment: ["HOME": "/home/k"])
        #expect(s.calibration == CalibrationMatrix(1.1, 0, -0.05, 0, 1.1, -0.05))
        #expect(s.summary.contains("input calibration: [1.1, 0, -0.05, 0, 1.1, -0.05] (KMS/DRM: in place of each device's LIBINPUT_CALIBRATION_MATRIX; "
                                 + "under a compositor: touch only, on top of the compositor's)\n"), "\(s.summary)")
    }

    @Test func displaySleepIsRead() throws {
        #expect(try decode(#"{"display": {"sleep": null}}"#).display.sleep == .off)
        #expect(try decode(#"{"display": {"sleep": {}}}"#).display.sleep == .off)
        let both = try decode(#"{"display": {"sleep": {"afterIdleSeconds": 300, "schedule": "22:00-06:30"}}}"#).display.sleep
        #expect(both == SleepSettings(afterIdleSeconds: 300, schedule: SleepWindow(parsing: "22:00-06:30")))
        let s = RunSettings.merge(config: try decode(#"{"display": {"sleep": {"afterIdleSeconds": 300, "schedule": "22:00-06:30"}}}"#),
                                  flags: RunOptions(), environment: ["HOME": "/home/k"])
        #expect(s.summary.contains("\nscreen sleep: after 300 s without input, every night 22:00-06:30 (local time)\n"), "\(s.summary)")
        #expect(RunSettings.merge(config: .defaults, flags: RunOptions(), environment: [:]).summary.contains("\nscreen sleep: off\n"))
    }

    @Test(arguments: [
        (#"{"display": {"sleep": {"afterIdleSeconds": 0}}}"#, "display.sleep.afterIdleSeconds: expected seconds without input before the screen sleeps, or null in 1…604800, found 0"),
        (#"{"display": {"sleep": {"afterIdleSeconds": "5"}}}"#, "display.sleep.afterIdleSeconds: expected seconds"),
        (#"{"display": {"sleep": {"schedule": "22:00-22:00"}}}"#, #"display.sleep.schedule: expected a window of local time "HH:MM-HH:MM" (e.g. "22:00-06:30", two different times) or null, found "22:00-22:00""#),
        (#"{"display": {"sleep": {"schedule": "25:00-06:00"}}}"#, #"display.sleep.schedule: expected a window"#),
        (#"{"display": {"sleep": {"schedule": 22}}}"#, "display.sleep.schedule: expected a window of local time"),
        (#"{"display": {"sleep": {"afterIdleSecond": 5}}}"#, #"unknown key "display.sleep.afterIdleSecond" (did you mean "display.sleep.afterIdleSeconds"?)"#),
        (#"{"display": {"sleep": true}}"#, "display.sleep: expected an object, found"),
    ])
    func badSleepSettingsAreNamed(_ text: String, _ phrase: String) throws {
        let e = try #require(error(text))
        #expect(e.message.contains(phrase), "\(e.message)")
    }

    @Test func everyProblemIsReportedAtOnce() throws {
        let e = try #require(error(#"{"display": {"rotate": 1, "size": "x"}, "toggle": {"widht": 3}, "extra": true}"#))
        let lines = e.message.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.hasPrefix("config file /etc/kiosk.json: ") })
        #expect(e.message.contains("toggle.widht"))
        #expect(e.message.contains(#""extra""#))
    }

    @Test func loadReportsFileProblems() throws {
        let dir = TempFolder()
        #expect(throws: KioskError.input("config file \(dir.file("none.json")): no such file")) {
            try KioskConfig.load(path: dir.file("none.json"))
        }
        #expect(throws: KioskError.input("config file \(dir.path): is a directory, expected a JSON file")) {
            try KioskConfig.load(path: dir.path)
        }
        writeText(#"{"reduceMotion": true}"#, to: dir.file("k.json"))
        #expect(try KioskConfig.load(path: dir.file("k.json")).reduceMotion == true)
    }

    @Test func pixelSizeParsing() {
        #expect(PixelSize(parsing: "1024x600") == PixelSize(width: 1024, height: 600))
        #expect(PixelSize(parsing: "1X1") == PixelSize(width: 1, height: 1))
        #expect(PixelSize(parsing: "16384x16384") != nil)
        for bad in ["", "x", "0x10", "10x0", "16385x10", "abc", "10x", "x10", "10x10x10", "-5x5", "+5x5", "5 x5", "1e3x5", "١٢x5"] {
            #expect(PixelSize(parsing: bad) == nil, "\(bad)")
        }
        #expect(PixelSize(width: 3, height: 4).description == "3x4")
    }
}

@Suite struct RunSettingsTests {
    let env = ["XDG_CONFIG_HOME": "/xdg", "HOME": "/home/k"]

    @Test func defaultsPassThrough() throws {
        let s = RunSettings.merge(config: .defaults, flags: RunOptions(), environment: env, passwdHome: { nil })
        #expect(s == RunSettings(windowed: false, size: nil, rotate: .none, scale: nil, reduceMotion: false, showFPS: false,
                                 toggleWidth: 260, pageLight: Color(r255: 235, g255: 246, b255: 255),
                                 pageDark: Color(r255: 66, g255: 66, b255: 66),
                                 preferencesPath: "/xdg/darkmode-kiosk/preferences.json"))
    }

    @Test func flagsOverrideTheConfig() throws {
        var config = KioskConfig.defaults
        config.display.size = PixelSize(width: 800, height: 480)
        config.display.rotate = .clockwise90
        config.display.scale = 2
        config.display.showFPS = true
        config.preferences = "/cfg/prefs.json"
        var flags = RunOptions()
        flags.size = PixelSize(width: 1280, height: 720)
        flags.rotate = .upsideDown
        flags.scale = 1.25
        flags.windowed = true
        flags.prefsPath = "/flag/prefs.json"
        let s = RunSettings.merge(config: config, flags: flags, environment: env)
        #expect(s.size == PixelSize(width: 1280, height: 720))
        #expect(s.rotate == .upsideDown)
        #expect(s.scale == 1.25)
        #expect(s.windowed)
        #expect(s.showFPS)  // from the config; flags only switch on
        #expect(s.preferencesPath == "/flag/prefs.json")
        flags.prefsPath = nil
        #expect(RunSettings.merge(config: config, flags: flags, environment: env).preferencesPath == "/cfg/prefs.json")
        #expect(RunSettings.merge(config: config, flags: RunOptions(), environment: env).size == PixelSize(width: 800, height: 480))
    }

    @Test func kioskOptionsCarryTheSettings() throws {
        var config = KioskConfig.defaults
        config.toggle.width = 300
        config.reduceMotion = true
        let s = RunSettings.merge(config: config, flags: RunOptions(), environment: env)
        let o = s.kioskOptions(pixelWidth: 640, pixelHeight: 480, scale: 2)
        #expect(o.pixelWidth == 640 && o.pixelHeight == 480 && o.scale == 2)
        #expect(o.toggleWidth == 300 && o.reduceMotion)
        #expect(o.theme == PageTheme(light: s.pageLight, dark: s.pageDark))
    }
}
