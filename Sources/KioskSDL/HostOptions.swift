import KioskEngine

/// How the SDL host opens its window. The host knows nothing of config or preference files:
/// the caller turns those into these options and a closure that builds the app.
public struct HostOptions: Sendable, Equatable {
    /// A window instead of full-screen-desktop (development). Escape quits only in this mode.
    public var windowed: Bool
    /// Window size in window units (windowed mode only; full-screen uses the display size).
    /// `nil` means 1024×640.
    public var size: (width: Int, height: Int)?
    /// Clockwise rotation of the page on the display, for portrait-mounted panels.
    public var rotation: Rotation
    /// Pixels per point; `nil` derives it from the drawable-vs-window ratio and the display DPI.
    public var scale: Double?
    /// Window title prefix; the app's accessibility summary follows it.
    public var titleBase: String

    public init(windowed: Bool = false, size: (width: Int, height: Int)? = nil, rotation: Rotation = .none,
                scale: Double? = nil, titleBase: String = "DarkModeKiosk") {
        self.windowed = windowed
        self.size = size
        self.rotation = rotation
        self.scale = scale
        self.titleBase = titleBase
    }

    public static func == (a: HostOptions, b: HostOptions) -> Bool {
        a.windowed == b.windowed && a.size?.width == b.size?.width && a.size?.height == b.size?.height
            && a.rotation == b.rotation && a.scale == b.scale && a.titleBase == b.titleBase
    }
}

/// The page as the host found it: what the app must be built for.
public struct PageGeometry: Sendable, Equatable {
    /// Page size in pixels (already rotated: the page's own width and height).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Pixels per point.
    public var scale: Double

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
    }
}
