import DarkModeToggle
import Raster

/// What the app needs to know about its surroundings at start.
public struct KioskOptions: Sendable {
    /// Page size in pixels (already rotated: the page's own width and height).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Pixels per point.
    public var scale: Double
    public var reduceMotion: Bool
    public var showFPS: Bool
    /// Toggle width in points.
    public var toggleWidth: Double
    public var pageLight: Color
    public var pageDark: Color

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double = 1, reduceMotion: Bool = false,
                showFPS: Bool = false, toggleWidth: Double = 260,
                pageLight: Color = Color(r255: 205, g255: 231, b255: 255),
                pageDark: Color = Color(r255: 83, g255: 92, b255: 114)) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.reduceMotion = reduceMotion
        self.showFPS = showFPS
        self.toggleWidth = toggleWidth
        self.pageLight = pageLight
        self.pageDark = pageDark
    }
}

/// The kiosk page without SDL: state, input, motion and rendering into one persistent frame.
/// Every driver (SDL host, replay, bench) calls the same methods with its own clock.
///
/// NOTE: interim implementation (page colour and tap only); the full engine replaces the
/// internals without changing this interface.
public final class KioskApp {
    public private(set) var options: KioskOptions
    /// The persistent CPU frame (page pixels, premultiplied RGBA, R,G,B,A byte order).
    public let frame: Pixmap
    public private(set) var isDarkMode: Bool
    private let onCommit: (Bool) -> Void
    private var needsFullRedraw = true

    public init(options: KioskOptions, isDarkMode: Bool, onCommit: @escaping (Bool) -> Void = { _ in }) {
        self.options = options
        self.isDarkMode = isDarkMode
        self.onCommit = onCommit
        self.frame = Pixmap(width: options.pixelWidth, height: options.pixelHeight)
    }

    /// Points per page (the page's size in points).
    public var pageSize: (width: Double, height: Double) {
        (Double(options.pixelWidth) / options.scale, Double(options.pixelHeight) / options.scale)
    }

    /// The toggle's frame on the page, in points.
    public var toggleFrame: Rect {
        let m = ToggleMetrics(width: options.toggleWidth)
        let (w, h) = pageSize
        return Rect(x: (w - m.width) / 2, y: (h - m.height) / 2, width: m.width, height: m.height)
    }

    /// New page size (pixels) and scale, e.g. after a window resize or rotation.
    public func resize(pixelWidth: Int, pixelHeight: Int, scale: Double) {
        options.pixelWidth = pixelWidth
        options.pixelHeight = pixelHeight
        options.scale = scale
        frame.reset(width: pixelWidth, height: pixelHeight)
        needsFullRedraw = true
    }

    /// A pointer event with its location in page points.
    public func handle(_ event: PointerEvent) {
        if event.phase == .up, toggleFrame.contains(event.location) { commit(!isDarkMode) }
    }

    public func handle(_ key: KeyEvent) {
        if key.isActivation { commit(!isDarkMode) }
    }

    /// Cancels any gesture in progress (focus loss, window hidden).
    public func cancelPointers(at time: Double) {}

    private func commit(_ dark: Bool) {
        isDarkMode = dark
        needsFullRedraw = true
        onCommit(dark)
    }

    /// True while anything moves; when false the host may block waiting for events.
    public var needsFrames: Bool { needsFullRedraw }

    /// Advances to `time` (seconds, driver clock) and renders what changed into `frame`.
    /// Returns the rectangles (pixels) that changed and must be presented.
    public func renderFrame(at time: Double) -> [IntRect] {
        guard needsFullRedraw else { return [] }
        needsFullRedraw = false
        frame.fill(frame.bounds, with: (isDarkMode ? options.pageDark : options.pageLight).premultiplied8.packed)
        return [frame.bounds]
    }

    /// Tells the FPS overlay how long the last frame took (host-measured, milliseconds).
    public func recordFrameTime(milliseconds: Double) {}

    /// The accessibility summary for window titles and logs, e.g. "Dark Mode: On".
    public var accessibilitySummary: String { "Dark Mode: \(isDarkMode ? "On" : "Off")" }
}
