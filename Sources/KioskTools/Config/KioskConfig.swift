import Fleet
#if canImport(Glibc)
import Glibc
#endif
import Appearance
import KioskEngine
import KioskSupport

/// The kiosk's settings file (JSON). Every key is optional: a missing key keeps its default,
/// an unknown key is an error. The defaults are `KioskConfig.defaults`, which equal the
/// shipped `config/kiosk.json` (a test holds them together):
///
/// ```json
/// {
///   "display": { "windowed": false, "size": null, "rotate": 0, "scale": null, "showFPS": false, "connector": null,
///                "sleep": { "afterIdleSeconds": null, "schedule": null } },
///   "toggle": { "width": 260 },
///   "theme": { "light": { "page": [235, 246, 255] }, "dark": { "page": [66, 66, 66] } },
///   "reduceMotion": false,
///   "preferences": null,
///   "colors": null,
///   "highContrast": false,
///   "language": null,
///   "page": { "background": { "light": null, "dark": null, "fit": "cover" } },
///   "appearance": {
///     "systemSources": ["portal", "light-sensor", "schedule"],
///     "lightSensor": { "darkBelowLux": 30, "lightAboveLux": 100, "holdSeconds": 10 },
///     "schedule": null
///   },
///   "input": { "calibration": null }
/// }
/// ```
///
/// `appearance` is what the "system" preference follows (docs/appearance-sources.md): it is
/// decoded as a whole by `AppearanceConfig.decode` (keys it leaves out take their defaults);
/// `schedule` is null (none) or `{"darkFrom": "19:30", "lightFrom": "07:00"}` or
/// `{"latitude": 52.52, "longitude": 13.40}`.
///
/// `page.background` names a PNG image per appearance (a path relative to the config file's
/// folder, or absolute; null for none) and how it fills the page (`cover` or `contain`); the
/// files are read and checked by `PageBackgroundFile.load` (`"background": null` means none).
///
/// `input.calibration` is null (none: each device's `LIBINPUT_CALIBRATION_MATRIX`, if any) or
/// libinput's six numbers `[a, b, c, d, e, f]` (`CalibrationMatrix`), applied on KMS/DRM to
/// touch screens and absolute pointers in place of their udev matrix, and under a compositor to
/// SDL's touch (window-normalised) on top of the compositor's own matrix (`FingerCalibration`).
///
/// `display.sleep` turns the screen off (KMS/DRM: the output's power; under a compositor: a
/// black page, no frames) after `afterIdleSeconds` without input and/or inside a nightly
/// `schedule` window of local time, `"22:00-06:30"` (`SleepSettings`); both null: never.
///
/// `display.size` null means the screen's size (full-screen) or the host's default window;
/// `display.scale` null means automatic; `preferences` null means the XDG default location,
/// and a relative path is taken relative to the config file's folder.
public struct KioskConfig: Equatable, Sendable {
    public struct Display: Equatable, Sendable {
        public var windowed: Bool = false
        public var size: PixelSize? = nil
        public var rotate: Rotation = .none
        public var scale: Double? = nil
        public var showFPS: Bool = false
        /// The KMS/DRM connector to show the page on (`HDMI-A-1`); nil: the first connected one.
        public var connector: String? = nil
        /// When the screen sleeps (`display.sleep`); off by default.
        public var sleep: SleepSettings = .off
        public init() {}

        /// A connector's name as the kernel writes it: a type (letters, digits, dashes) and a
        /// number after a dash, at most 32 characters.
        public static func isConnectorName(_ s: String) -> Bool {
            guard s.count <= 32, let dash = s.lastIndex(of: "-"), dash != s.startIndex else { return false }
            let type = s[..<dash], number = s[s.index(after: dash)...]
            return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
                && type.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    public struct Toggle: Equatable, Sendable {
        /// Width in points.
        public var width: Double = 260
        public init() {}
    }

    public struct ThemeColors: Equatable, Sendable {
        public var page: ConfigColor
        public init(page: ConfigColor) { self.page = page }
    }

    public struct Theme: Equatable, Sendable {
        public var light = ThemeColors(page: ConfigColor(r: 235, g: 246, b: 255))
        public var dark = ThemeColors(page: ConfigColor(r: 66, g: 66, b: 66))
        public init() {}
    }

    /// The page's background images.
    public struct Page: Equatable, Sendable {
        public struct Background: Equatable, Sendable {
            /// PNG files (already resolved against the config file's folder), nil: none.
            public var light: String? = nil
            public var dark: String? = nil
            public var fit: PageBackgroundFit = .cover
            public init() {}
            /// True when neither appearance has an image.
            public var isEmpty: Bool { light == nil && dark == nil }
        }
        public var background = Background()
        public init() {}
    }

    public var display = Display()
    public var toggle = Toggle()
    public var theme = Theme()
    public var reduceMotion = false
    /// The preferences file, or nil for the default location.
    public var preferences: String? = nil
    /// What the "system" preference follows: sources, light-sensor thresholds, schedule.
    public var appearance = AppearanceConfig()
    /// A colour-sets file (like `config/colors.json`), or nil for the built-in sets.
    public var colors: String? = nil
    /// Draw with the high-contrast colour variants.
    public var highContrast = false
    /// Label language code, or nil for LC_ALL/LC_MESSAGES/LANG.
    public var language: String? = nil
    /// Background images for the page.
    public var page = Page()

    /// How touch screens and pointers are read on KMS/DRM.
    public struct Input: Equatable, Sendable {
        /// Replaces each absolute device's `LIBINPUT_CALIBRATION_MATRIX`; nil: none.
        public var calibration: CalibrationMatrix? = nil
        public init() {}
    }
    public var input = Input()

    /// `fleet.mqtt`: the kiosk as one of a fleet over MQTT (docs/fleet.md); nil: off.
    public struct FleetSection: Equatable, Sendable {
        public var mqtt: MQTTSettings? = nil
    }
    public var fleet = FleetSection()

    public init() {}

    /// The built-in defaults (identical to `config/kiosk.json`).
    public static let defaults = KioskConfig()

    /// Largest config file accepted.
    public static let sizeLimit = 1024 * 1024

    /// Every key path the file may hold, e.g. "display.rotate".
    public static let knownKeyPaths: [String] = [
        "display", "display.windowed", "display.size", "display.rotate", "display.scale", "display.showFPS", "display.connector",
        "display.sleep", "display.sleep.afterIdleSeconds", "display.sleep.schedule",
        "toggle", "toggle.width",
        "theme", "theme.light", "theme.light.page", "theme.dark", "theme.dark.page",
        "reduceMotion", "preferences", "colors", "highContrast", "language",
        "page", "page.background", "page.background.light", "page.background.dark", "page.background.fit",
        "appearance", "appearance.systemSources", "appearance.lightSensor", "appearance.lightSensor.darkBelowLux",
        "appearance.lightSensor.lightAboveLux", "appearance.lightSensor.holdSeconds", "appearance.schedule",
        "input", "input.calibration",
        "fleet", "fleet.mqtt",
    ]

    /// The keys inside `fleet.mqtt` (off in the shipped file, `null`, so not spelled there;
    /// docs/fleet.md lists them): for "did you mean" too.
    public static let fleetMQTTKeyPaths: [String] = [
        "fleet.mqtt.broker", "fleet.mqtt.clientId", "fleet.mqtt.username", "fleet.mqtt.passwordFile",
        "fleet.mqtt.passwordCredential", "fleet.mqtt.caFile", "fleet.mqtt.clientCertificate", "fleet.mqtt.clientKey",
        "fleet.mqtt.topicPrefix", "fleet.mqtt.groups", "fleet.mqtt.discovery", "fleet.mqtt.discoveryPrefix",
    ]

    /// Loads `path` over the defaults, or returns the defaults when `path` is nil.
    /// Throws an input error (exit 2) naming the file and every bad key path.
    public static func load(path: String?) throws(KioskError) -> KioskConfig {
        guard let path else { return .defaults }
        switch FileIO.readFile(at: path, limit: sizeLimit) {
        case .bytes(let bytes):
            return try decode(bytes, file: path)
        case .notFound:
            throw .input("config file \(path): no such file")
        case .notRegularFile(let kind):
            throw .input("config file \(path): is a \(kind), expected a JSON file")
        case .tooLarge:
            throw .input("config file \(path): larger than \(sizeLimit) bytes, expected a small JSON file")
        case .failed(let reason):
            throw .input("config file \(path): cannot be read (\(reason))")
        }
    }

    /// Decodes config bytes over `base`. `file` is used in messages and to resolve a relative
    /// `preferences` path.
    public static func decode(_ bytes: [UInt8], file: String, base: KioskConfig = .defaults) throws(KioskError) -> KioskConfig {
        let root: JSONValue
        do { root = try StrictJSONParser.parse(bytes) } catch {
            throw .input("config file \(file): not valid JSON: \(error)")
        }
        var decoder = ConfigDecoder(file: file, config: base)
        decoder.decodeRoot(root)
        if !decoder.errors.isEmpty {
            throw .input(decoder.errors.map { "config file \(file): \($0)" }.joined(separator: "\n"))
        }
        return decoder.config
    }
}

/// The colour-sets file (`config/colors.json`): named colours with light, dark and high-contrast
/// variants over `ColorSets.standard`. Errors name the file and the key.
public enum ColorSetsFile {
    public static func load(path: String?) throws(KioskError) -> ColorSets {
        guard let path else { return .standard }
        switch FileIO.readFile(at: path, limit: KioskConfig.sizeLimit) {
        case .bytes(let bytes): return try decode(bytes, file: path)
        case .notFound: throw .input("colour sets \(path): no such file")
        case .notRegularFile(let kind): throw .input("colour sets \(path): is a \(kind), expected a JSON file")
        case .tooLarge: throw .input("colour sets \(path): larger than \(KioskConfig.sizeLimit) bytes")
        case .failed(let reason): throw .input("colour sets \(path): cannot be read (\(reason))")
        }
    }

    public static func decode(_ bytes: [UInt8], file: String) throws(KioskError) -> ColorSets {
        let root: JSONValue
        do { root = try StrictJSONParser.parse(bytes) } catch {
            throw .input("colour sets \(file): not valid JSON: \(error)")
        }
        var decoder = ConfigDecoder(file: file, config: .defaults)
        let sets = decoder.decodeColorSets(root, base: .standard)
        if !decoder.errors.isEmpty {
            throw .input(decoder.errors.map { "colour sets \(file): \($0)" }.joined(separator: "\n"))
        }
        return sets
    }
}
