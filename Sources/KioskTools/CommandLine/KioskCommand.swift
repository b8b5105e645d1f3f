import DarkModeToggle
import KioskEngine
import KioskSupport
/// A parsed command line (see `CommandLineParser`).
public enum KioskCommand: Equatable, Sendable {
    /// Run the kiosk (the default when no subcommand is given).
    case run(RunOptions)
    /// Render one frame to a PNG file.
    case render(RenderOptions)
    /// Run an input trace through the engine headlessly.
    case replay(ReplayOptions)
    /// Headless frame timing.
    case bench(BenchOptions)
    /// Random interaction through the real app on a virtual clock; memory and drift checks.
    case soak(SoakOptions)
    /// Touch calibration on the spot (KMS/DRM), written to the config's `input.calibration`.
    case calibrate(CalibrateOptions)
    /// Print help (general when nil, else the subcommand's) and exit 0.
    case help(KioskSubcommand?)
    /// Print `KioskVersion.line` and exit 0.
    case version
    /// Print the manual page (`ManPage.roff`) and exit 0: hidden from `--help`, used by
    /// debian/rules to write darkmode-kiosk.1 from the same flag tables as `--help`.
    case manPage
}

public enum KioskSubcommand: String, CaseIterable, Equatable, Sendable {
    case run, render, replay, bench, soak, calibrate
}

/// `darkmode-kiosk [run] …` flags. Optional values are nil when the flag was not given, so
/// `RunSettings.merge` can tell "not given" (config file decides) from a value.
public struct RunOptions: Equatable, Sendable {
    public var windowed = false
    public var size: PixelSize?
    public var rotate: Rotation?
    public var scale: Double?
    public var configPath: String?
    public var prefsPath: String?
    public var reduceMotion = false
    public var showFPS = false
    /// `--check`: validate config and flags, print the effective settings, and exit.
    public var checkOnly = false
    /// `--preflight`: fail (exit 2) exactly where `run` would refuse to start on its inputs,
    /// print nothing otherwise; a warning `run` would log and go past is no failure. For the
    /// cage unit's `ExecCondition=`, whose main process (cage) cannot report the kiosk's exit.
    public var preflightOnly = false
    /// `--high-contrast`: the high-contrast colour variants.
    public var highContrast = false
    /// `--lang CODE`: label language.
    public var language: String?
    /// `--threads N`: lanes that draw a frame; nil for the default (`HelperLanes.defaultLanes`).
    public var lanes: Int?
    public init() {}
}

/// `darkmode-kiosk calibrate …` flags.
public struct CalibrateOptions: Equatable, Sendable {
    /// `--device NAME`: only this input device's touches (its kernel name); nil: the first touched.
    public var deviceName: String?
    /// `--print`: also print the config key and the udev rule line.
    public var printResult = false
    /// `--rotate`: the page's turn the kiosk runs with (targets are shown as the viewer sees them).
    public var rotate: Rotation = .none
    /// `--config FILE`: the file whose `input.calibration` is written (default `CalibrationConfigFile.defaultPath`).
    public var configPath: String?
    public init() {}
}

/// Light or dark, as chosen by `render --light|--dark`.
public enum RenderAppearance: String, Equatable, Sendable {
    case light, dark
}

/// `darkmode-kiosk render …` flags.
public struct RenderOptions: Equatable, Sendable {
    /// The PNG to write (`--out`, required, ends in `.png`).
    public var outPath: String
    /// Image width in pixels without `--page` (the component's box, PX × PX·80/130); with
    /// `--page`, the component's width in pixels on the page. Nil: `resolvedWidth`.
    public var width: Int?
    /// Full page size in pixels; nil renders the component alone on transparency.
    public var page: PixelSize?
    /// Appearance progress 0 (light) … 1 (dark); nil: from the appearance (0 or 1).
    public var progress: Double?
    /// Celestial position progress; nil: same as the progress.
    public var position: Double?
    /// Ambient-animation clock in seconds.
    public var time: Double = 0
    /// Reduce-Motion look (clouds at rest, all stars visible).
    public var isStatic = false
    public var appearance: RenderAppearance?
    /// Pixels per point; nil for 1.
    public var scale: Double?
    /// `--page-color R,G,B`: a page colour overriding the mode's (e.g. to match a screenshot).
    public var pageColor: [Int]?
    /// `--style original|vivid`: the toggle's look.
    public var style: ToggleStyle = .original
    /// `--style` was given (component-only render even with `--page`).
    public var styleGiven = false
    /// `--appearance system|light|dark` (page renders; `--light/--dark` are its short forms).
    public var preference: String?
    /// `--high-contrast`: the high-contrast colour variants.
    public var highContrast = false
    /// `--lang en|zh-Hans` (else LC_ALL/LC_MESSAGES/LANG).
    public var language: String?
    /// `--config FILE`: a page render uses its colours, toggle width, high contrast, language
    /// and background images.
    public var configPath: String?

    public init(outPath: String) { self.outPath = outPath }

    /// A whole-page render through the app (`--page` without component-only flags).
    public var isPageRender: Bool {
        page != nil && !styleGiven && width == nil && progress == nil && position == nil && pageColor == nil
    }

    /// The toggle's width in points on the demo page.
    public static let defaultComponentPoints = 260.0

    public var resolvedScale: Double { scale ?? 1 }
    /// `--width`, else 260 points at the scale, in pixels.
    public var resolvedWidth: Int { width ?? Int((Self.defaultComponentPoints * resolvedScale).rounded()) }
    public var resolvedProgress: Double { progress ?? (appearance == .dark ? 1 : 0) }
    public var resolvedPosition: Double { position ?? resolvedProgress }
    /// The page's mode: `--light/--dark`, else dark when the progress is at least 0.5.
    public var resolvedIsDark: Bool { appearance.map { $0 == .dark } ?? (resolvedProgress >= 0.5) }
}

/// `darkmode-kiosk replay TRACE.jsonl …` flags.
public struct ReplayOptions: Equatable, Sendable {
    public var tracePath: String
    public var size: PixelSize?
    public var scale: Double?
    public var prefsPath: String?
    public var reduceMotion = false
    /// `--frames`: one JSON line per rendered frame.
    public var frames = false
    public init(tracePath: String) { self.tracePath = tracePath }
}

/// Benchmark scenarios (`--scenario`).
public enum BenchScenario: String, CaseIterable, Equatable, Sendable {
    case ambient, tap, drag, theme, idle
    /// The tap scenario with every commit saved through the kiosk's background writer
    /// (`PreferencesSaver`) to a temporary file; not part of `all`.
    case save
    case all

    /// The scenarios `all` stands for, in order.
    public static let individual: [BenchScenario] = [.ambient, .tap, .drag, .theme, .idle]

    public var expanded: [BenchScenario] { self == .all ? Self.individual : [self] }
}

/// `darkmode-kiosk bench …` flags.
public struct BenchOptions: Equatable, Sendable {
    public var size: PixelSize?
    public var scale: Double?
    /// Frames per scenario; nil for the benchmark's default.
    public var frames: Int?
    public var scenario: BenchScenario = .all
    public var jsonPath: String?
    /// `--frames-json FILE`: every counted frame's times and changed pixels.
    public var framesJSONPath: String?
    public var fullRedraw = false
    /// Time the rasterizer alone (no page composition).
    public var raster = false
    /// `--config FILE`: the page as configured (colours, toggle width, language, background images).
    public var configPath: String?
    /// `--threads N`: lanes that draw a frame; nil for the default (`HelperLanes.defaultLanes`).
    public var lanes: Int?
    /// `--latency`: touch-to-screen latency with a simulated display (`LatencyBench`).
    public var latency = false
    /// `--plot FILE.png`: frame times (and latency, with `--latency`) drawn as a picture.
    public var plotPath: String?
    /// `--seed N`: the latency run's random taps and drags.
    public var seed: UInt64 = 1
    public init() {}
}

/// `darkmode-kiosk soak …` flags.
public struct SoakOptions: Equatable, Sendable {
    /// Simulated minutes (at 60 frames per simulated second).
    public var minutes: Double = 1
    public var seed: UInt64 = 1
    public var size: PixelSize?
    public var scale: Double?
    public init() {}
}
