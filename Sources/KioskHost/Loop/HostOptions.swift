import KioskEngine
import KioskSupport

/// How the SDL host opens its window. The host knows nothing of config or preference files:
/// the caller turns those into these options and a closure that builds the app.
public struct HostOptions: Sendable, Equatable {
    /// A window instead of full-screen-desktop (development). Escape quits only in this mode.
    public var windowed: Bool
    /// Window size in window units (windowed mode only; full-screen uses the display size).
    /// `nil` means 1024×640.
    public var size: PixelSize?
    /// Clockwise rotation of the page on the display, for portrait-mounted panels.
    public var rotation: Rotation
    /// Pixels per point; `nil` derives it from the drawable-vs-window ratio and the display DPI.
    public var scale: Double?
    /// Window title prefix; the app's accessibility summary follows it.
    public var titleBase: String
    /// Config `input.calibration`: applied to touch screens and absolute pointers read through
    /// libinput (KMS/DRM), in place of their `LIBINPUT_CALIBRATION_MATRIX`, and to the fingers
    /// SDL delivers (under a compositor, full screen: `FingerCalibration`); nil: none.
    public var calibration: CalibrationMatrix?
    /// Config `display.connector`: the KMS/DRM connector to show the page on (e.g. `HDMI-A-1`);
    /// nil, or when it is not connected: the first connected one.
    public var connector: String?
    /// What the environment asks of the host (presenter, input, DRM card, format and flip,
    /// logind, timing, SDL's video driver, the seat), read once at start (`HostEnvironment`).
    public var environment: HostEnvironment
    /// Config `display.sleep`: when the screen sleeps and wakes (`ScreenSleepPolicy`); off by default.
    public var sleep: SleepSettings = .off
    /// The threads the run starts besides the main one (the caller's, e.g. the appearance
    /// runner, the preferences writer, the fleet client, and the host's: the first page, the
    /// render helpers, the input reader): each gets a `ThreadStacks.bytes` stack, counted in
    /// the address space the run needs (`ProcessLimits.addressSpaceForRun`).
    public var threads = 0

    public init(windowed: Bool = false, size: PixelSize? = nil, rotation: Rotation = .none,
                scale: Double? = nil, titleBase: String = "DarkModeKiosk", calibration: CalibrationMatrix? = nil,
                connector: String? = nil, environment: HostEnvironment = HostEnvironment()) {
        self.connector = connector
        self.environment = environment
        self.windowed = windowed
        self.size = size
        self.rotation = rotation
        self.scale = scale
        self.titleBase = titleBase
        self.calibration = calibration
    }
}

/// The page as the host found it: what the app must be built for (pixel size and scale).
public struct PageGeometry: Sendable, Equatable {
    /// Page size in pixels (already rotated: the page's own width and height).
    public var size: PixelSize
    /// Pixels per point.
    public var scale: Double

    public init(size: PixelSize, scale: Double) {
        self.size = size
        self.scale = scale
    }

    public var pixelWidth: Int { size.width }
    public var pixelHeight: Int { size.height }
}
