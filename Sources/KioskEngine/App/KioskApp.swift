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
    /// The page's light and dark colours.
    public var theme: PageTheme

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double = 1, reduceMotion: Bool = false,
                showFPS: Bool = false, toggleWidth: Double = 260,
                theme: PageTheme = .standard) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.reduceMotion = reduceMotion
        self.showFPS = showFPS
        self.toggleWidth = toggleWidth
        self.theme = theme
    }
}

/// The kiosk page without SDL: state, input, motion and rendering into one persistent frame.
/// Every driver (SDL host, replay, bench) calls the same methods with its own clock; nothing
/// here reads a clock, the file system or the display.
///
/// Each frame re-renders only what changed: the whole page when the page colour changes (the
/// cross-fade after a commit), otherwise only the toggle's rectangle when its visual state or
/// ambient animation moved, and the FPS overlay when shown. `renderFrame` returns those
/// rectangles so the host uploads only them.
public final class KioskApp {
    public private(set) var options: KioskOptions
    /// The persistent CPU frame (page pixels, premultiplied RGBA, R,G,B,A byte order).
    public let frame: Pixmap
    public private(set) var layout: PageLayout
    private var interaction: ToggleInteraction
    private var renderer: ToggleRenderer
    private let canvas: Canvas
    /// Page darkness 0…1 (cross-fades on commit).
    private var pageFade: ProgressAnimation
    /// Time origin of the ambient loops (the scene's first appearance).
    private var ambientStart: Double?
    private var lastTime: Double = 0
    // What the frame currently shows.
    private var shownPage: UInt32?
    private var shownToggle: ToggleFrame?
    /// When false, every frame is drawn from scratch (no caches, whole page): the baseline
    /// that shows what caching and invalidation buy.
    public var incremental = true
    public let fps = FrameTimeOverlay()

    /// The person's choice: a fixed mode, or follow the system.
    public private(set) var appearancePreference: AppearancePreference
    /// What the system input says (default: no preference, which resolves to light).
    public private(set) var systemAppearance: SystemAppearance

    public init(options: KioskOptions, preference: AppearancePreference, system: SystemAppearance = .noPreference) {
        appearancePreference = preference
        systemAppearance = system
        let isDarkMode = system.resolves(preference)
        self.options = options
        layout = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight,
                            scale: options.scale, toggleWidth: options.toggleWidth)
        interaction = ToggleInteraction(metrics: layout.metrics, isOn: isDarkMode, reduceMotion: options.reduceMotion)
        renderer = ToggleRenderer(width: options.toggleWidth, scale: options.scale)
        frame = Pixmap(width: options.pixelWidth, height: options.pixelHeight)
        canvas = Canvas(frame)
        pageFade = .still(isDarkMode ? 1 : 0)
    }

    /// Starts in a fixed mode (the preference `.dark` or `.light`).
    public convenience init(options: KioskOptions, isDarkMode: Bool) {
        self.init(options: options, preference: AppearancePreference(isDark: isDarkMode))
    }

    // MARK: State

    /// The effective mode (the preference resolved against the system input), as the toggles
    /// show it once they settle.
    public var isDarkMode: Bool { interaction.isOn }
    /// True while the page follows the system.
    public var followsSystem: Bool { appearancePreference == .system }
    public var commitCount: Int { interaction.commitCount }
    public var accessibility: AccessibilityState { interaction.accessibility }
    /// The accessibility summary for window titles, sd_notify STATUS and `replay`, e.g.
    /// "Dark Mode: On (following system)" or "Dark Mode: Off".
    public var accessibilitySummary: String {
        accessibility.summary + (followsSystem ? " (following system)" : "")
    }
    /// The same summary (the name sd_notify STATUS uses).
    public var statusSummary: String { accessibilitySummary }

    /// The toggle's frame on the page, in points.
    public var toggleFrame: Rect { layout.toggleFrame }

    /// What the toggle shows at `time` (appearance and position progress).
    public func visualState(at time: Double) -> ToggleVisualState { interaction.visualState(at: time) }

    /// The page colour at `time` (cross-fading after a commit).
    public func pageColor(at time: Double) -> Color {
        options.theme.pageColor(darkness: pageFade.value(at: time))
    }

    /// True when the toggle, the page cross-fade and any gesture are at rest at `time`
    /// (ambient loops aside).
    public func isSettled(at time: Double) -> Bool {
        interaction.isSettled(at: time) && pageFade.isSettled(at: time)
    }

    /// True while anything moves (as of the last frame or input); when false the host may
    /// block waiting for events.
    public var needsFrames: Bool {
        shownPage == nil || !isSettled(at: lastTime) || Ambient.isActive(reduceMotion: options.reduceMotion)
            || options.showFPS && fps.needsRedraw
    }

    // MARK: Layout

    /// New page size (pixels) and scale, e.g. after a window resize or rotation.
    public func resize(pixelWidth: Int, pixelHeight: Int, scale: Double) {
        options.pixelWidth = pixelWidth
        options.pixelHeight = pixelHeight
        let scaleChanged = scale != options.scale
        options.scale = scale
        layout = PageLayout(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, toggleWidth: options.toggleWidth)
        frame.reset(width: pixelWidth, height: pixelHeight)
        canvas.retarget(frame)
        if scaleChanged { renderer = ToggleRenderer(width: options.toggleWidth, scale: scale) }
        shownPage = nil
        shownToggle = nil
    }

    /// Forgets what the frame shows, so the next `renderFrame` redraws the whole page (e.g.
    /// after the host lost its window contents).
    public func invalidate() {
        shownPage = nil
        shownToggle = nil
    }

    // MARK: Input

    // Input methods return what the driver must do (save the new preference), or nil; the
    // driver decides what that means (save it, print it, count it).

    /// A pointer event with its location in page points.
    @discardableResult
    public func handle(_ event: PointerEvent) -> KioskOutput? {
        var e = event
        let f = layout.toggleFrame
        e.location = Point(event.location.x - f.minX, event.location.y - f.minY)
        noteInput(at: event.timestamp)
        return manualCommit(interaction.handle(e), at: event.timestamp)
    }

    @discardableResult
    public func handle(_ key: KeyEvent) -> KioskOutput? {
        noteInput(at: key.timestamp)
        return manualCommit(interaction.handle(key), at: key.timestamp)
    }

    /// A toggle commit by the person: stores the fixed preference.
    private func manualCommit(_ commit: Bool?, at time: Double) -> KioskOutput? {
        guard let dark = didCommit(commit, at: time) else { return nil }
        appearancePreference = AppearancePreference(isDark: dark)
        return .preferenceChanged(appearancePreference)
    }

    /// The system input changed. While following the system the page animates to the new
    /// effective mode exactly like a tap (toggle spring and page cross-fade); nothing is stored.
    public func setSystemAppearance(_ system: SystemAppearance, at time: Double) {
        noteInput(at: time)
        systemAppearance = system
        if followsSystem { _ = didCommit(interaction.setOn(system.resolves(.system), at: time), at: time) }
    }

    /// An external change of the preference (a fleet rewrite of the file): animates like a tap
    /// and returns nothing to save.
    public func setAppearancePreference(_ preference: AppearancePreference, at time: Double) {
        noteInput(at: time)
        appearancePreference = preference
        _ = didCommit(interaction.setOn(systemAppearance.resolves(preference), at: time), at: time)
    }

    /// The person chose a preference by other means than the toggles (the button stores
    /// `.system`; an accessibility bridge may store any): animates, and returns the output to save.
    @discardableResult
    public func choosePreference(_ preference: AppearancePreference, at time: Double) -> KioskOutput? {
        guard preference != appearancePreference else { return nil }
        setAppearancePreference(preference, at: time)
        return .preferenceChanged(preference)
    }

    /// Cancels any gesture in progress (focus loss, window hidden).
    public func cancelPointers(at time: Double) {
        noteInput(at: time)
        interaction.cancel(at: time)
    }

    /// External activation (e.g. an accessibility bridge): stores the fixed mode `dark`.
    @discardableResult
    public func setDarkMode(_ dark: Bool, at time: Double) -> KioskOutput? {
        choosePreference(AppearancePreference(isDark: dark), at: time)
    }

    private func noteInput(at time: Double) {
        if time.isFinite { lastTime = max(lastTime, time) }
    }

    /// Starts the page cross-fade for a commit; passes the commit through.
    private func didCommit(_ commit: Bool?, at time: Double) -> Bool? {
        guard let dark = commit else { return nil }
        let target: Double = dark ? 1 : 0
        if options.reduceMotion {
            pageFade = pageFade.easing(to: target, at: time, curve: .easeOut, duration: EaseAnimator.reduceMotionDuration)
        } else {
            pageFade = pageFade.easing(to: target, at: time, curve: .easeInOut, duration: 0.5)
        }
        return dark
    }

    // MARK: Frames

    /// The toggle's frame state at `time`.
    func toggleFrameState(at time: Double) -> ToggleFrame {
        if ambientStart == nil { ambientStart = time }
        return ToggleFrame(interaction.visualState(at: time), ambientTime: time - ambientStart!,
                           reduceMotion: options.reduceMotion)
    }

    /// Advances to `time` (seconds, driver clock) and renders what changed into `frame`.
    /// Returns the rectangles (pixels) that changed and must be presented.
    public func renderFrame(at time: Double) -> [IntRect] {
        if time.isFinite { lastTime = max(lastTime, time) }
        let page = pageColor(at: time).premultiplied8.packed
        let toggle = toggleFrameState(at: time)
        var dirty: [IntRect] = []
        if !incremental || page != shownPage {
            frame.fill(frame.bounds, with: page)
            drawToggle(toggle, clip: frame.bounds)
            dirty = [frame.bounds]
        } else if toggle != shownToggle {
            let changed = renderer.dirtyBounds(from: shownToggle, to: toggle, origin: layout.toggleOrigin)
                .intersection(frame.bounds)
            frame.fill(changed, with: page)
            drawToggle(toggle, clip: changed)
            dirty = [changed]
        }
        shownPage = page
        shownToggle = toggle
        if options.showFPS {
            let r = fps.draw(on: canvas, page: page, force: !dirty.isEmpty && dirty[0] == frame.bounds)
            if !r.isEmpty, !(dirty.first.map { $0.contains(r) } ?? false) { dirty.append(r) }
        }
        return dirty
    }

    private func drawToggle(_ toggle: ToggleFrame, clip: IntRect) {
        canvas.clip = clip
        renderer.draw(toggle, on: canvas, origin: layout.toggleOrigin, cached: incremental)
        canvas.clip = frame.bounds
        canvas.transform = .identity
    }

    /// Tells the FPS overlay how long the last frame took (host-measured, milliseconds).
    public func recordFrameTime(milliseconds: Double) {
        if options.showFPS { fps.record(milliseconds: milliseconds) }
    }
}
