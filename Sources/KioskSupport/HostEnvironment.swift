import Raster

/// Every environment variable `darkmode-kiosk run` reads, parsed once at start (by
/// `RunSettings.merge`, with the config and the flags) and handed down as values: nothing below
/// `main` reads the environment for a setting. Pure: `parse` takes the environment as a
/// dictionary. The table of the variables, their values and defaults is in
/// docs/kiosk-operation.md ("Environment variables"); `HostEnvironment.variables` names them.
///
/// A value the kiosk cannot use is never silent and never stops a kiosk: the default is used
/// and `warnings` holds one line naming the variable, the value and what it takes (`run`
/// logs them at start; `run --check` lists them and fails).
public struct HostEnvironment: Equatable, Sendable {
    /// `DARKMODE_KIOSK_TIMING`: start-up and present timing on stderr.
    public var timing = false
    /// `DARKMODE_KIOSK_PRESENT`: the presenter asked for by name; nil: automatic.
    public var present: PresenterKind?
    /// `DARKMODE_KIOSK_INPUT`: who reads touch screens and mice; nil: automatic.
    public var input: InputReaderChoice?
    /// `DARKMODE_KIOSK_DRM_DEVICE`: the one DRM card to try; nil: /dev/dri/card0…card15.
    public var drmDevice: String?
    /// `DARKMODE_KIOSK_DRM_FORMAT`: the scanout pixel format asked for; nil: the plane's best.
    public var drmFormat: ScanoutFormat?
    /// `DARKMODE_KIOSK_DRM_FLIP`: the flip method to start from; nil: the card's best.
    public var drmFlip: FlipMethod?
    /// `DARKMODE_KIOSK_LOGIND`: take the DRM card from the logind session when there is one.
    public var logind = true
    /// `SDL_VIDEODRIVER` as set (nil: unset). SDL reads it itself too; the kiosk routes on it.
    public var videoDriver: String?
    /// `DISPLAY` is set (an X server to talk to).
    public var hasX11Display = false
    /// `WAYLAND_DISPLAY` is set (a Wayland compositor to talk to).
    public var hasWaylandDisplay = false
    /// `XDG_SEAT`: libinput's seat.
    public var seat = "seat0"
    /// `DARKMODE_KIOSK_KERNELS`: the copy of the span kernels asked for; nil: the best this CPU runs.
    public var kernels: Kernels.Level?
    /// `DARKMODE_KIOSK_TEST_LOG_WINDOW_S`: the rate-limited log's window, seconds (tests).
    public var logWindowSeconds = 60.0
    /// `DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS`: a delay before each preferences fsync, seconds (tests).
    public var fsyncDelaySeconds = 0.0
    /// `CREDENTIALS_DIRECTORY`: systemd's folder of the unit's credentials (`LoadCredential=`);
    /// the fleet's `passwordCredential` is read there.
    public var credentialsDirectory: String?
    /// `DARKMODE_KIOSK_STATE_FILE`: where the kiosk keeps its state for machines (`StateFile`);
    /// set but empty: nowhere. Unset: `state.json` in systemd's `RUNTIME_DIRECTORY` (the unit's
    /// `RuntimeDirectory=`) when there is one, else nowhere.
    public var stateFile: String?
    /// One line per variable whose value could not be used (its default was), in the order of
    /// `variables`.
    public var warnings: [String] = []

    public init() {}

    /// The variables `parse` reads, in the order of the docs' table.
    public static let variables = [
        "DARKMODE_KIOSK_PRESENT", "DARKMODE_KIOSK_INPUT", "DARKMODE_KIOSK_DRM_DEVICE", "DARKMODE_KIOSK_DRM_FORMAT",
        "DARKMODE_KIOSK_DRM_FLIP", "DARKMODE_KIOSK_LOGIND", "DARKMODE_KIOSK_TIMING", "SDL_VIDEODRIVER", "DISPLAY",
        "WAYLAND_DISPLAY", "XDG_SEAT", "DARKMODE_KIOSK_KERNELS", "DARKMODE_KIOSK_TEST_LOG_WINDOW_S", "DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS",
        "CREDENTIALS_DIRECTORY", "DARKMODE_KIOSK_STATE_FILE", "RUNTIME_DIRECTORY",
    ]

    /// The environment's settings; a value of a known variable the kiosk cannot use leaves the
    /// default and a warning naming it ("DARKMODE_KIOSK_PRESENT="gl" is not one of auto,
    /// surface, …; using the automatic choice").
    public static func parse(_ env: [String: String]) -> HostEnvironment {
        var e = HostEnvironment()
        e.present = choice("DARKMODE_KIOSK_PRESENT", env, PresenterKind.self, &e.warnings)
        e.input = choice("DARKMODE_KIOSK_INPUT", env, InputReaderChoice.self, &e.warnings)
        e.drmDevice = env["DARKMODE_KIOSK_DRM_DEVICE"].flatMap { $0.isEmpty ? nil : $0 }
        e.credentialsDirectory = env["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
        e.stateFile = stateFile(env)
        e.drmFormat = choice("DARKMODE_KIOSK_DRM_FORMAT", env, ScanoutFormat.self, &e.warnings)
        e.drmFlip = choice("DARKMODE_KIOSK_DRM_FLIP", env, FlipMethod.self, &e.warnings)
        e.logind = flag("DARKMODE_KIOSK_LOGIND", env, unset: true, &e.warnings)
        e.timing = flag("DARKMODE_KIOSK_TIMING", env, unset: false, &e.warnings)
        e.videoDriver = env["SDL_VIDEODRIVER"]
        e.hasX11Display = !(env["DISPLAY"] ?? "").isEmpty
        e.hasWaylandDisplay = !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
        e.seat = env["XDG_SEAT"].flatMap { $0.isEmpty ? nil : $0 } ?? "seat0"
        e.kernels = choice("DARKMODE_KIOSK_KERNELS", env, Kernels.Level.self, &e.warnings)
        if let s = number("DARKMODE_KIOSK_TEST_LOG_WINDOW_S", env, from: 1, what: "seconds from 1 to 3600",
                          default: "60", &e.warnings) {
            e.logWindowSeconds = min(s, 3600)
        }
        if let ms = number("DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS", env, from: 0, what: "milliseconds from 0 to 10000",
                           default: "0", &e.warnings) {
            e.fsyncDelaySeconds = min(ms, 10_000) / 1000
        }
        return e
    }

    /// `DARKMODE_KIOSK_STATE_FILE`, else the first of systemd's runtime directories + `/state.json`.
    private static func stateFile(_ env: [String: String]) -> String? {
        if let asked = env["DARKMODE_KIOSK_STATE_FILE"] { return asked.isEmpty ? nil : asked }
        guard let first = env["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !first.isEmpty else { return nil }
        return first.hasSuffix("/") ? first + "state.json" : first + "/state.json"
    }

    /// One of `T`'s names (any case, blanks ignored), or nil for unset, empty, `auto` and a
    /// name it does not know (with a warning).
    private static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ env: [String: String], _: T.Type,
                                                                  _ warnings: inout [String]) -> T? where T.RawValue == String {
        guard let raw = env[name] else { return nil }
        let asked = String(raw.lowercased().filter { !$0.isWhitespace })
        if asked.isEmpty || asked == "auto" { return nil }
        if let value = T(rawValue: asked) { return value }
        let names = (["auto"] + T.allCases.map(\.rawValue)).joined(separator: ", ")
        warnings.append("\(name)=\"\(raw)\" is not one of \(names); using the automatic choice")
        return nil
    }

    /// An on/off variable (`EnvironmentFlag`); a value that is neither gives `unset` and a warning.
    private static func flag(_ name: String, _ env: [String: String], unset: Bool, _ warnings: inout [String]) -> Bool {
        if let on = EnvironmentFlag.parse(env[name], unset: unset) { return on }
        warnings.append("\(name)=\"\(env[name] ?? "")\" is neither on (1, true, yes, on) nor off (0, false, no, off); "
                        + "using \(unset ? "on" : "off")")
        return unset
    }

    /// A number of at least `from` (larger values are capped by the caller), or nil when unset
    /// or unusable (with a warning).
    private static func number(_ name: String, _ env: [String: String], from: Double, what: String, default: String,
                               _ warnings: inout [String]) -> Double? {
        guard let raw = env[name] else { return nil }
        guard let v = Double(String(raw.filter { !$0.isWhitespace })), v.isFinite, v >= from else {
            warnings.append("\(name)=\"\(raw)\" is not a number of \(what); using \(`default`)")
            return nil
        }
        return v
    }
}

/// How frames reach the screen (`DARKMODE_KIOSK_PRESENT`). The host's order of them is
/// `PresenterKind.order` (KioskHost).
public enum PresenterKind: String, CaseIterable, Equatable, Sendable {
    /// SDL's window surface, dirty rectangles only (`SurfacePresenter`).
    case surface
    /// Wayland shared-memory buffers on the window's own surface, no GL (`ShmPresenter`).
    case shm
    /// An SDL renderer with a streaming texture (`TexturePresenter`).
    case texture
    /// KMS/DRM dumb buffers flipped on vblank, no GL (`DrmPresenter`). Chosen before SDL starts
    /// (`DrmRules.route`: SDL then runs its invisible `evdev` driver), never from the order.
    case drm
}

/// Who reads touch screens and mice (`DARKMODE_KIOSK_INPUT`): libinput (`LibinputReader`, or
/// without udevd the kiosk's own evdev reader), the evdev reader, or SDL's own input. The
/// automatic choice is `InputReaderChoice.resolve`'s (KioskHost).
public enum InputReaderChoice: String, CaseIterable, Equatable, Sendable {
    /// libinput while udevd runs, else the kiosk's own evdev reader (`InputBackend`).
    case libinput
    /// The kiosk's own evdev reader (`EvdevReader`) even where udevd runs (to compare, or where
    /// udev's database cannot be trusted).
    case evdev
    case sdl
}

/// How the KMS/DRM presenter's frame reaches the screen (`DARKMODE_KIOSK_DRM_FLIP`), best
/// first. The order tried is `DrmRules.flipOrder`'s (KioskHost).
public enum FlipMethod: String, Sendable, CaseIterable {
    /// An atomic commit of the plane's framebuffer with `FB_DAMAGE_CLIPS`, on vblank.
    case atomic
    /// `drmModePageFlip`, on vblank; its event arrives on the DRM fd.
    case legacy
    /// One buffer drawn in place, `DRM_IOCTL_MODE_DIRTYFB` with the changed rectangles
    /// (panels without vblank).
    case dirty

    /// What the log calls it.
    public var summary: String {
        switch self {
        case .atomic: return "atomic flip with damage clips"
        case .legacy: return "page flip"
        case .dirty: return "drawn in place + DIRTYFB"
        }
    }
}
