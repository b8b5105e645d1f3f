import DarkModeToggle
import Raster
import Synchronization

/// What the app needs to know about its surroundings at start.
public struct KioskOptions {
    /// Page size in pixels (already rotated: the page's own width and height).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Pixels per point.
    public var scale: Double
    /// Reduce Motion forced on (a flag or the config); when false the system's
    /// `reducedMotion` hint decides (`KioskApp.reduceMotion`).
    public var reduceMotion: Bool
    public var showFPS: Bool
    /// Toggle width in points.
    public var toggleWidth: Double
    /// Every named colour of the page.
    public var colors: ColorSets
    /// Draw with the high-contrast variants, forced on (a flag or the config); when false the
    /// system's `highContrast` hint decides (`KioskApp.highContrast`).
    public var highContrast: Bool
    /// The page's words and who shapes them (nil: estimated sizes, no text drawn).
    public var strings: PageStrings
    public var typesetter: LabelTypesetter?
    /// Background images for light and dark (nil: the page colour alone).
    public var background: PageBackground?

    /// The page's light and dark background (the `pageBackground` colour set).
    public var theme: PageTheme {
        get { PageTheme(light: colors[.pageBackground].light, dark: colors[.pageBackground].dark) }
        set {
            colors[.pageBackground].light = newValue.light
            colors[.pageBackground].dark = newValue.dark
        }
    }

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double = 1, reduceMotion: Bool = false,
                showFPS: Bool = false, toggleWidth: Double = 260, theme: PageTheme? = nil,
                colors: ColorSets = .standard, highContrast: Bool = false,
                strings: PageStrings = .english, typesetter: LabelTypesetter? = nil,
                background: PageBackground? = nil) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.reduceMotion = reduceMotion
        self.showFPS = showFPS
        self.toggleWidth = toggleWidth
        self.colors = colors
        self.highContrast = highContrast
        self.strings = strings
        self.typesetter = typesetter
        self.background = background
        if let theme { self.theme = theme }
    }
}

/// The kiosk page without SDL: state, input, motion and rendering into one persistent frame.
/// Every driver (SDL host, replay, bench) calls the same methods with its own clock; nothing
/// here reads a clock, the file system or the display.
///
/// The page holds three controls: the Original toggle, the Vivid toggle and the "Use System
/// Setting" button. Both toggles show the one effective mode; a commit on one makes the other
/// follow. Each frame re-renders only what changed: the whole page when anything static changed
/// (named colours during the cross-fade, the button's label, focus, layout), otherwise only the
/// toggles' dirty rectangles (everything under them redrawn, clipped), and the FPS overlay.
public final class KioskApp {
    public private(set) var options: KioskOptions
    /// The persistent CPU frame (page pixels, premultiplied RGBA, R,G,B,A byte order).
    public let frame: Pixmap
    public private(set) var layout: PageLayout
    private var interactions: [ToggleInteraction]
    private var renderers: [any ToggleStyleRenderer]
    private let canvas: Canvas
    private let typesetter: LabelTypesetter
    private var labelSlots = [LabelSlot](repeating: LabelSlot(), count: 3)
    /// Page darkness 0…1 (cross-fades on commit).
    private var pageFade: ProgressAnimation
    /// Time origin of the ambient loops (the scene's first appearance; nil until the first
    /// frame, and again after Reduce Motion is switched off by the system).
    public private(set) var ambientStart: Double?
    private var lastTime: Double = 0
    /// The person's choice: a fixed mode, or follow the system.
    public private(set) var appearancePreference: AppearancePreference
    /// What the system input says (default: no preference, which resolves to light).
    public private(set) var systemAppearance: SystemAppearance
    /// Commits that started a page cross-fade (person's or system's).
    public private(set) var commitCount = 0
    /// The focused control (keyboard), and whether the ring shows (after Tab/arrows).
    public private(set) var focus: PageControl = .original
    public private(set) var focusVisible = false
    /// Pointer ids pressing the button (a tap commits when it lifts inside).
    private var buttonPointer: Int?
    // What the frame currently shows.
    private var shownStatic: StaticKey?
    private var shownToggles: [ToggleFrame?] = [nil, nil]
    private var material = MaterialCache()
    /// The background images scaled and composed for this page size and colours.
    private var preparedBackground = PreparedBackground()
    private var backdropMaterial = BackdropMaterialCache()
    /// When false, every frame is drawn from scratch (no caches, whole page): the baseline
    /// that shows what caching and invalidation buy.
    public var incremental = true
    /// Helper threads for frames: with more than one lane, a frame that changes at least
    /// `parallelMinPixels` is cut into bands that the lanes draw at once, each with its own
    /// canvas, after the frame's pieces are made on the calling thread. The same pixels as one
    /// lane (tested).
    public var workers: FrameWorkers? {
        didSet { laneCanvases = (1..<max(1, workers?.lanes ?? 1)).map { _ in Canvas(frame) } }
    }
    /// Canvases of lanes 1… (lane 0 draws with `canvas`), each with its own layer pool.
    private var laneCanvases: [Canvas] = []
    /// Memory for each toggle's pieces when several lanes make them from scratch: one pool per
    /// part a toggle's pieces are made in (`ToggleStyleRenderer.fromScratchParts`), grown on use.
    private var scratchPools: [[LayerPool]] = [[], []]
    /// Labels are drawn one lane at a time: the typesetter keeps a glyph cache.
    private let textLock = Mutex(())
    public let fps = FrameTimeOverlay()

    public init(options: KioskOptions, preference: AppearancePreference, system: SystemAppearance = .noPreference) {
        appearancePreference = preference
        systemAppearance = system
        let isDarkMode = system.resolves(preference)
        let reduce = Self.effective(forced: options.reduceMotion, hint: system.hints.reducedMotion)
        self.options = options
        typesetter = options.typesetter ?? EstimatingTypesetter()
        layout = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight,
                            scale: options.scale, toggleWidth: options.toggleWidth)
        let m = ToggleMetrics(width: options.toggleWidth)
        interactions = [ToggleInteraction(metrics: m, isOn: isDarkMode, reduceMotion: reduce),
                        ToggleInteraction(metrics: m, isOn: isDarkMode, reduceMotion: reduce)]
        renderers = []
        frame = Pixmap(width: options.pixelWidth, height: options.pixelHeight)
        canvas = Canvas(frame)
        pageFade = .still(isDarkMode ? 1 : 0)
        relayout()
    }

    /// Starts in a fixed mode (the preference `.dark` or `.light`).
    public convenience init(options: KioskOptions, isDarkMode: Bool) {
        self.init(options: options, preference: AppearancePreference(isDark: isDarkMode))
    }

    // MARK: State

    /// The effective mode (the preference resolved against the system input), as the toggles
    /// show it once they settle.
    public var isDarkMode: Bool { interactions[0].isOn }
    /// True while the page follows the system.
    public var followsSystem: Bool { appearancePreference == .system }
    public var accessibility: AccessibilityState { interactions[0].accessibility }
    /// The button's words now: "Use System Setting", or while following the system the source
    /// that drives the mode ("Following System · light sensor"; plain "Following System" when
    /// no source states a scheme).
    public var buttonText: String {
        followsSystem ? options.strings.followingLabel(source: systemAppearance.source) : options.strings.useSystemSetting
    }

    /// High contrast now: forced by the options, else the system's hint (nil: off).
    public var highContrast: Bool { Self.effective(forced: options.highContrast, hint: systemAppearance.hints.highContrast) }
    /// Reduce Motion now: forced by the options, else the system's hint (nil: off).
    public var reduceMotion: Bool { Self.effective(forced: options.reduceMotion, hint: systemAppearance.hints.reducedMotion) }

    /// An accessibility setting a flag or the config can force on; otherwise the system's hint.
    static func effective(forced: Bool, hint: Bool?) -> Bool { forced || hint == true }

    /// The accessibility summary for window titles, sd_notify STATUS and `replay`, e.g.
    /// "Dark Mode: On (following system)" or "Dark Mode: Off".
    public var accessibilitySummary: String {
        accessibility.summary + (followsSystem ? " (following system)" : "")
    }
    /// The same summary (the name sd_notify STATUS uses).
    public var statusSummary: String { accessibilitySummary }

    /// Each control's accessibility label and value, each toggle from its own state: both
    /// toggles "Dark Mode (<group label>)" On/Off, the button "Follow System Appearance" On/Off.
    public var controlAccessibility: [(control: PageControl, label: String, value: String)] {
        let original = interactions[0].accessibility, vivid = interactions[1].accessibility
        return [(.original, "\(original.label) (\(options.strings.original))", original.value),
                (.vivid, "\(vivid.label) (\(options.strings.vivid))", vivid.value),
                (.button, options.strings.followSystemAppearance,
                 followsSystem ? AccessibilityState.valueOn : AccessibilityState.valueOff)]
    }

    /// All three controls in one line, for the window title: "Dark Mode (Original): On ·
    /// Dark Mode (Vivid): On · Follow System Appearance: Off".
    public var pageAccessibilitySummary: String {
        controlAccessibility.map { "\($0.label): \($0.value)" }.joined(separator: " · ")
    }

    /// The original toggle's frame on the page, in points.
    public var toggleFrame: Rect { layout.toggleFrame }

    /// A control's frame on the page, in points.
    public func frame(of control: PageControl) -> Rect { layout.frame(of: control) }

    /// A point given in a control's own points ((0,0) its top-left, unscaled content points) →
    /// page points.
    public func pagePoint(in control: PageControl, x: Double, y: Double) -> Point {
        let f = layout.frame(of: control), k = control == .button ? 1 : layout.contentScale
        return Point(f.minX + x * k, f.minY + y * k)
    }

    /// What the original toggle shows at `time` (appearance and position progress).
    public func visualState(at time: Double) -> ToggleVisualState { interactions[0].visualState(at: time) }
    /// What a toggle shows at `time`.
    public func visualState(of control: PageControl, at time: Double) -> ToggleVisualState {
        interactions[control == .vivid ? 1 : 0].visualState(at: time)
    }

    /// Page darkness 0…1 at `time`.
    public func darkness(at time: Double) -> Double { pageFade.value(at: time) }

    /// Every named colour at `time` (all cross-fading together).
    public func colors(at time: Double) -> ResolvedColors {
        options.colors.resolve(darkness: pageFade.value(at: time), highContrast: highContrast)
    }

    /// The page colour at `time` (cross-fading after a commit).
    public func pageColor(at time: Double) -> Color { colors(at: time)[.pageBackground] }

    /// True when the toggles, the page cross-fade and any gesture are at rest at `time`
    /// (ambient loops aside).
    public func isSettled(at time: Double) -> Bool {
        interactions.allSatisfy { $0.isSettled(at: time) } && pageFade.isSettled(at: time)
    }

    /// True while anything moves (as of the last frame or input); when false the host may
    /// block waiting for events.
    public var needsFrames: Bool {
        shownStatic == nil || !isSettled(at: lastTime) || Ambient.isActive(reduceMotion: reduceMotion)
            || options.showFPS && fps.needsRedraw
    }

    // MARK: Layout

    /// Shapes the labels at the current scale (only when text or size changed) and lays out.
    private func relayout() {
        func measure(_ i: Int, _ text: String, _ size: Double, _ tracking: Double, scale: Double) -> Double {
            labelSlots[i].update(text, pixelSize: size * scale, tracking: tracking / size, with: typesetter).width / scale
        }
        let s = options.scale
        func metrics(at k: Double) -> LabelMetrics {
            LabelMetrics(originalWidth: measure(0, options.strings.original, PageLayout.headlineSize, PageLayout.headlineTracking, scale: k),
                         vividWidth: measure(1, options.strings.vivid, PageLayout.headlineSize, PageLayout.headlineTracking, scale: k),
                         buttonTextWidth: measure(2, buttonText, PageLayout.calloutSize, PageLayout.calloutTracking, scale: k))
        }
        var l = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight, scale: s,
                           toggleWidth: options.toggleWidth, labels: metrics(at: s))
        if l.contentScale < 1 {
            // Shaped at the scaled size; widths in content points stay close, lay out again with them.
            l = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight, scale: s,
                           toggleWidth: options.toggleWidth, labels: metrics(at: l.effectiveScale))
        }
        let rendererScaleChanged = layout.effectiveScale != l.effectiveScale || renderers.isEmpty
        layout = l
        if rendererScaleChanged {
            renderers = [ToggleStyle.original.makeRenderer(width: options.toggleWidth, scale: l.effectiveScale),
                         ToggleStyle.vivid.makeRenderer(width: options.toggleWidth, scale: l.effectiveScale)]
        }
        shownStatic = nil
    }

    /// New page size (pixels) and scale, e.g. after a window resize or rotation.
    public func resize(pixelWidth: Int, pixelHeight: Int, scale: Double) {
        options.pixelWidth = pixelWidth
        options.pixelHeight = pixelHeight
        options.scale = scale
        frame.reset(width: pixelWidth, height: pixelHeight)
        canvas.retarget(frame)
        for c in laneCanvases { c.retarget(frame) }
        relayout()
        invalidate()
    }

    /// Forgets what the frame shows, so the next `renderFrame` redraws the whole page (e.g.
    /// after the host lost its window contents).
    public func invalidate() {
        shownStatic = nil
        shownToggles = [nil, nil]
    }

    /// Labels (e.g. another language) and who shapes them.
    public func setStrings(_ strings: PageStrings) {
        options.strings = strings
        relayout()
    }

    /// Forces high contrast on (true), or leaves it to the system's hint (false).
    public func setHighContrast(_ on: Bool) {
        options.highContrast = on
        shownStatic = nil
    }

    // MARK: Input

    // Input methods return what the driver must do (save the new preference), or nil; the
    // driver decides what that means (save it, print it, count it).

    /// A pointer event with its location in page points.
    @discardableResult
    public func handle(_ event: PointerEvent) -> KioskOutput? {
        noteInput(at: event.timestamp)
        var output: KioskOutput?
        for (i, control) in [PageControl.original, .vivid].enumerated() {
            let f = layout.frame(of: control), k = layout.contentScale
            var e = event
            e.location = Point((event.location.x - f.minX) / k, (event.location.y - f.minY) / k)
            if let dark = interactions[i].handle(e) {
                if output == nil { focus = control }
                output = manualCommit(dark, from: i, at: event.timestamp) ?? output
            }
        }
        if let o = handleButton(event) { output = o }
        return output
    }

    private func handleButton(_ e: PointerEvent) -> KioskOutput? {
        guard e.timestamp.isFinite, e.location.x.isFinite, e.location.y.isFinite else { return nil }
        let inside = layout.buttonFrame.contains(e.location)
        switch e.phase {
        case .down:
            if buttonPointer == nil, inside { buttonPointer = e.id }
        case .move:
            break
        case .up:
            guard buttonPointer == e.id else { return nil }
            buttonPointer = nil
            if inside {
                focus = .button
                return choosePreference(.system, at: e.timestamp)
            }
        case .cancel:
            if buttonPointer == e.id { buttonPointer = nil }
        }
        return nil
    }

    /// A key by its SDL name (traces use the same names): Tab/Shift-Tab and arrows move the
    /// focus ring, Space/Return activate the focused control.
    @discardableResult
    public func handleKey(named name: String, shift: Bool = false, at time: Double) -> KioskOutput? {
        noteInput(at: time)
        guard time.isFinite, let action = KeyBindings.pageAction(forKeyName: name, shift: shift) else { return nil }
        switch action {
        case .focusNext, .focusPrevious:
            let all = PageControl.allCases
            let i = all.firstIndex(of: focus)!
            let step = action == .focusNext ? 1 : all.count - 1
            // The first Tab shows the ring on the current control's neighbour.
            focus = all[(i + step) % all.count]
            focusVisible = true
            return nil
        case .activate:
            return activate(focus, at: time)
        }
    }

    /// Space/Return on the focused control (what `KeyEvent(.activate)` means).
    @discardableResult
    public func handle(_ key: KeyEvent) -> KioskOutput? {
        noteInput(at: key.timestamp)
        guard key.isActivation, key.timestamp.isFinite else { return nil }
        return activate(focus, at: key.timestamp)
    }

    private func activate(_ control: PageControl, at time: Double) -> KioskOutput? {
        switch control {
        case .button: return choosePreference(.system, at: time)
        case .original, .vivid:
            let i = control == .vivid ? 1 : 0
            return manualCommit(interactions[i].handle(KeyEvent(action: .activate, timestamp: time)), from: i, at: time)
        }
    }

    /// A toggle commit by the person: the other toggle follows; stores the fixed preference.
    private func manualCommit(_ commit: Bool?, from index: Int, at time: Double) -> KioskOutput? {
        guard let dark = commit else { return nil }
        _ = interactions[1 - index].setOn(dark, at: time)
        startFade(dark: dark, at: time)
        let before = followsSystem
        appearancePreference = AppearancePreference(isDark: dark)
        // Leaving the system: the button's label changes ("Use System Setting"), shape it again.
        if before { shownStatic = nil; relayout() }
        return .preferenceChanged(appearancePreference)
    }

    /// Both toggles to `dark` (animating like a tap) and the page cross-fade, when it changes.
    private func animate(to dark: Bool, at time: Double) {
        var changed = false
        for i in interactions.indices where interactions[i].setOn(dark, at: time) != nil { changed = true }
        if changed { startFade(dark: dark, at: time) }
    }

    /// The system input changed. While following the system the page animates to the new
    /// effective mode exactly like a tap (toggle spring and page cross-fade); nothing is stored.
    /// The button names the source that now drives the mode; its label is shaped again (and
    /// the page laid out, the capsule re-centred) only when its words change.
    ///
    /// The system's accessibility hints apply whatever the preference, unless the options force
    /// them on: high contrast switches the colour set at once (the next frame redraws the page
    /// in the other variant; no cross-fade), Reduce Motion stops or restarts the ambient loops
    /// at once and governs every animation that starts from now on (one already running ends
    /// as it began).
    public func setSystemAppearance(_ system: SystemAppearance, at time: Double) {
        noteInput(at: time)
        let label = buttonText, reduced = reduceMotion, contrast = highContrast
        systemAppearance = system
        if reduceMotion != reduced {
            for i in interactions.indices { interactions[i].reduceMotion = reduceMotion }
            // Loops that start again begin at their start, as when the scene first appears.
            if !reduceMotion { ambientStart = nil }
        }
        // Other colours, or loops stopping at their rest values: the page needs a frame even
        // when nothing animates (`needsFrames`).
        if reduceMotion != reduced || highContrast != contrast { shownStatic = nil }
        if followsSystem { animate(to: system.resolves(.system), at: time) }
        if buttonText != label { relayout() }
    }

    /// An external change of the preference (a fleet rewrite of the file): animates like a tap
    /// and returns nothing to save.
    public func setAppearancePreference(_ preference: AppearancePreference, at time: Double) {
        noteInput(at: time)
        if preference != appearancePreference { shownStatic = nil }
        appearancePreference = preference
        animate(to: systemAppearance.resolves(preference), at: time)
        relayout()
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
        for i in interactions.indices { interactions[i].cancel(at: time) }
        buttonPointer = nil
    }

    /// External activation (e.g. an accessibility bridge): stores the fixed mode `dark`.
    @discardableResult
    public func setDarkMode(_ dark: Bool, at time: Double) -> KioskOutput? {
        choosePreference(AppearancePreference(isDark: dark), at: time)
    }

    private func noteInput(at time: Double) {
        if time.isFinite { lastTime = max(lastTime, time) }
    }

    /// Starts the page cross-fade towards `dark`.
    private func startFade(dark: Bool, at time: Double) {
        commitCount += 1
        let target: Double = dark ? 1 : 0
        if reduceMotion {
            pageFade = pageFade.easing(to: target, at: time, curve: .easeOut, duration: EaseAnimator.reduceMotionDuration)
        } else {
            pageFade = pageFade.easing(to: target, at: time, curve: .easeInOut, duration: 0.5)
        }
    }

    // MARK: Frames

    /// Everything but the toggles: equal keys draw equal pixels outside the toggles.
    private struct StaticKey: Equatable {
        var colors: [UInt32]
        var buttonText: String
        var focus: PageControl?
        var layout: PageLayout
        /// The page's darkness in 1/256 steps (what the background images' cross-fade and the
        /// button icon's halves draw with), and the composed images' generation (0 without).
        var darknessWeight: Int
        var backgroundGeneration: Int
    }

    /// The background images' cross-fade weight at darkness `d` (0 light … 256 dark).
    static func backgroundWeight(darkness d: Double) -> UInt32 { UInt32((clamp(d, 0, 1) * 256).rounded()) }

    /// The background images ready for this size and these colours; nil without images.
    private func backgroundImages() -> PreparedBackground? {
        guard let bg = options.background, !bg.isEmpty else { return nil }
        let page = options.colors[.pageBackground]
        let (l, d) = options.highContrast ? (page.highContrastLight, page.highContrastDark) : (page.light, page.dark)
        preparedBackground.prepare(bg, width: frame.width, height: frame.height,
                                   lightColor: l.premultiplied8.packed, darkColor: d.premultiplied8.packed)
        return preparedBackground
    }

    /// A toggle's frame state at `time`.
    func toggleFrameState(_ index: Int, at time: Double) -> ToggleFrame {
        if ambientStart == nil { ambientStart = time }
        return ToggleFrame(interactions[index].visualState(at: time), ambientTime: time - ambientStart!,
                           reduceMotion: reduceMotion)
    }

    /// Rows per band when a frame is drawn and handed to `present` band by band: a band of a
    /// 1920-pixel-wide page (480 KB) is still in the core's cache when it is copied out.
    public static let presentBandRows = 64
    /// Rectangles smaller than this (pixels, 2 MB) are drawn whole, then presented: a toggle's
    /// changed rectangle (drag, ambient) is drawn faster in one piece, since each band would
    /// repeat the toggle's per-layer work.
    public static let presentBandMinPixels = 1 << 19

    /// Frames that change fewer pixels than this are drawn on the calling thread alone: waking
    /// a helper and handing pieces over costs CPU and saves no time on a few twinkling stars or
    /// a cloud group (measured: a drag's p50 frame, ~40 000 px, took 0.13 ms either way and
    /// 0.17-0.20 ms of CPU on two lanes against 0.13 on one).
    public var parallelMinPixels = 1 << 17

    /// What a frame draws with besides its colours: made before any lane draws, read by all.
    private struct FrameAssets {
        var colors: ResolvedColors
        var toggles: [ToggleFrame]
        var images: PreparedBackground?
        var weight: UInt32
        /// The button's material backdrop (nil when no changed rectangle reaches the button).
        var material: Sprite?
        /// The button capsule's and hairline's coverage (with the material).
        var buttonShapes: ButtonShapes?
    }

    /// The button capsule's and hairline's anti-aliased coverage, rasterized once per layout:
    /// every frame that redraws the button masks the material with the one and fills the other
    /// through it (the bytes of rasterizing both paths again).
    struct ButtonShapes {
        var frame: Rect
        var lineWidth: Double
        var capsule: AlphaPlane
        var hairline: AlphaPlane
        var icon: IconShapes

        init(frame r: Rect, lineWidth: Double, iconDisc: Rect) {
            frame = r
            self.lineWidth = lineWidth
            icon = IconShapes(disc: iconDisc)
            let box = r.roundedOut
            capsule = AlphaPlane(coverageOf: Path.roundedRect(r, radius: r.height / 2), bounds: box)
            hairline = AlphaPlane(coverageOf: Path.roundedRectStroke(r, radius: r.height / 2, lineWidth: lineWidth, alignment: .inside),
                                  bounds: box)
        }
    }
    private var buttonShapes: ButtonShapes?

    /// The button's shapes for the current layout: kept (made when the layout changed), or
    /// rasterized anew for a frame drawn from scratch. Not thread-safe when kept.
    private func frameButtonShapes() -> ButtonShapes {
        let r = layout.buttonPixelFrame, w = max(1, 0.5 * layout.effectiveScale), disc = buttonIcon().disc
        guard incremental else { return ButtonShapes(frame: r, lineWidth: w, iconDisc: disc) }
        if let s = buttonShapes, s.frame == r, s.lineWidth == w, s.icon.disc == disc { return s }
        let s = ButtonShapes(frame: r, lineWidth: w, iconDisc: disc)
        buttonShapes = s
        return s
    }

    /// Advances to `time` (seconds, driver clock) and renders what changed into `frame`.
    /// Returns the rectangles (pixels) that changed and must be presented; they are disjoint.
    ///
    /// With `present`, each large changed rectangle is drawn in bands of `presentBandRows` rows and
    /// every band is handed to `present` as soon as it is finished, while its rows are still in
    /// the cache (fill, composite and the presenter's copy touch each row back to back); the
    /// FPS overlay's rectangle follows last. With `workers`, a frame that changes at least
    /// `parallelMinPixels` is cut into bands that several lanes draw at once, and `present` is
    /// still called on the calling thread, for each band as it is finished. The pixels are the same either way
    /// (drawing is clip-independent, tested), and the returned rectangles too. Frames drawn
    /// from scratch (`incremental == false`) on one lane are drawn whole and then presented,
    /// since every piece would be rasterized again for each band; on several lanes their pieces
    /// are made once, a toggle or the button's material per lane, and then composed in bands.
    public func renderFrame(at time: Double, present: ((IntRect) -> Void)? = nil) -> [IntRect] {
        if time.isFinite { lastTime = max(lastTime, time) }
        let colors = colors(at: time)
        let images = backgroundImages()
        let weight = Self.backgroundWeight(darkness: pageFade.value(at: time))
        let key = StaticKey(colors: colors.key, buttonText: buttonText, focus: focusVisible ? focus : nil, layout: layout,
                            darknessWeight: Int(weight), backgroundGeneration: images?.generation ?? 0)
        let toggles = [toggleFrameState(0, at: time), toggleFrameState(1, at: time)]
        var dirty: [IntRect] = []
        let pageRedrawn = !incremental || key != shownStatic
        if pageRedrawn {
            dirty = pageDirtyRects(key, toggles)
        } else {
            let changed = (0..<2).flatMap { i in
                toggles[i] == shownToggles[i] ? []
                    : renderers[i].dirtyRects(from: shownToggles[i], to: toggles[i], origin: layout.origin(of: i == 0 ? .original : .vivid))
                        .map { $0.intersection(frame.bounds) }
            }
            dirty = IntRect.disjointUnion(IntRect.clustered(changed))
        }
        var assets = FrameAssets(colors: colors, toggles: toggles, images: images, weight: weight, material: nil)
        let lanes = workers.map { $0.lanes } ?? 1
        let buttonChanged = dirty.contains { !$0.intersection(buttonReach).isEmpty }
        // From scratch on several lanes, one of them makes the material (below).
        if buttonChanged && (incremental || lanes == 1) {
            assets.material = buttonMaterial(colors: colors, images: images, weight: weight)
            assets.buttonShapes = frameButtonShapes()
        }
        if incremental, lanes > 1 || present != nil {
            if let workers, lanes > 1, dirty.reduce(0, { $0 + $1.area }) >= parallelMinPixels {
                // Every rectangle in bands: the lanes share the work evenly, and each lane's
                // layers stay band-sized.
                let pieces = dirty.flatMap { $0.bands(rows: Self.presentBandRows) }
                for i in 0..<2 where dirty.contains(where: { !$0.intersection(toggleReach(i)).isEmpty }) {
                    renderers[i].prepare(toggles[i], pool: canvas.pool)
                }
                workers.run(pieces.count, { item, lane in
                    self.drawPage(clip: pieces[item], on: self.canvas(lane: lane), assets)
                }, { item in present?(pieces[item]) })
            } else {
                // Large rectangles in bands, the rest whole.
                let pieces = dirty.flatMap { $0.area >= Self.presentBandMinPixels ? $0.bands(rows: Self.presentBandRows) : [$0] }
                for piece in pieces {
                    drawPage(clip: piece, on: canvas, assets)
                    present?(piece)
                }
            }
        } else if let workers, lanes > 1 {
            // From scratch on several lanes: each toggle's pieces (in parts, where a style's
            // pieces fall into independent groups) and the button's material and shapes are made
            // anew at once, then the page is composed in bands.
            // The lanes take jobs in order; the largest go first so that the small ones fill in
            // at the end: the Vivid's (renderers[1]) parts before the Original's, each style's
            // in its own order (the Vivid's first two 2.5-3 ms at 1920x1080 @2x, its sun and
            // moon and the Original's parts 1-2, the button 1; timed in a local build).
            var jobs: [(toggle: Int, part: Int)] = []
            for i in [1, 0] {
                let parts = renderers[i].fromScratchParts
                // One pool per part, whichever lane makes it: each keeps one part's pieces.
                while scratchPools[i].count < parts { scratchPools[i].append(LayerPool()) }
                renderers[i].beginFromScratch(pools: Array(scratchPools[i].prefix(parts)))
                jobs += (0..<parts).map { (i, $0) }
            }
            var material: Sprite?, shapes: ButtonShapes?
            workers.run(jobs.count + 1, { item, lane in
                if item < jobs.count {
                    let job = jobs[item]
                    self.renderers[job.toggle].makeFromScratch(toggles[job.toggle], part: job.part)
                } else if buttonChanged {
                    material = self.buttonMaterial(colors: colors, images: images, weight: weight)
                    shapes = self.frameButtonShapes()
                }
            }, { _ in })
            for i in 0..<2 { renderers[i].joinFromScratch(toggles[i]) }
            assets.material = material
            assets.buttonShapes = shapes
            let pieces = dirty.flatMap { $0.bands(rows: Self.presentBandRows) }
            workers.run(pieces.count, { item, lane in
                self.drawPage(clip: pieces[item], on: self.canvas(lane: lane), assets)
            }, { item in present?(pieces[item]) })
            for r in renderers { r.endFromScratch() }
        } else {
            for r in dirty {
                drawPage(clip: r, on: canvas, assets)
                present?(r)
            }
        }
        shownStatic = key
        shownToggles = toggles
        if options.showFPS {
            let page = colors[.pageBackground].premultiplied8.packed
            let r = fps.draw(on: canvas, page: page, force: pageRedrawn)
            dirty += r.subtracting(dirty)   // what the rectangles drawn do not cover yet
            if !r.isEmpty { present?(r) }
        }
        return dirty
    }

    /// What a frame that redraws the page (its colours cross-fade, the button's text changes)
    /// must draw: the whole page, except each toggle's opaque core (`opaqueCore`, at rest),
    /// where the toggle's pixels depend only on its frame, as shown and as now; inside a core
    /// only what the toggle itself changes (a twinkling star, a drifting cloud). The whole page
    /// after `invalidate`, on a new layout, or with a focus ring showing (it may cross a
    /// toggle). Disjoint rectangles; the frame equals a whole-page redraw (tested).
    private func pageDirtyRects(_ key: StaticKey, _ toggles: [ToggleFrame]) -> [IntRect] {
        guard incremental, let shown = shownStatic, shown.layout == key.layout, shown.focus == nil, key.focus == nil else {
            return [frame.bounds]
        }
        var cores: [IntRect] = [], inside: [IntRect] = []
        for i in 0..<2 {
            let o = layout.origin(of: i == 0 ? .original : .vivid)
            guard let old = shownToggles[i], let before = renderers[i].opaqueCore(old, origin: o),
                  let now = renderers[i].opaqueCore(toggles[i], origin: o) else { continue }
            var core = before.intersection(now).intersection(frame.bounds)
            // The FPS overlay repaints its panel whole: never inside a core.
            if options.showFPS { core = core.subtracting(fps.bounds).max { $0.area < $1.area } ?? .zero }
            guard !core.isEmpty else { continue }
            cores.append(core)
            inside += renderers[i].dirtyRects(from: old, to: toggles[i], origin: o).map { $0.intersection(core) }
        }
        return frame.bounds.subtracting(cores) + IntRect.disjointUnion(IntRect.clustered(inside))
    }

    /// The canvas lane `lane` draws with.
    private func canvas(lane: Int) -> Canvas { lane == 0 ? canvas : laneCanvases[lane - 1] }

    /// The device rectangle toggle `i` can touch.
    private func toggleReach(_ i: Int) -> IntRect {
        renderers[i].bounds(origin: layout.origin(of: i == 0 ? .original : .vivid))
    }

    /// The device rectangle the button (capsule, hairline, and its focus ring's slack) can touch.
    private var buttonReach: IntRect { layout.buttonPixelFrame.roundedOut.insetBy(dx: -2, dy: -2) }

    /// The button's material: a blurred copy of what lies behind (the page background, or the
    /// background images cross-fading), tinted; kept between frames by its cache.
    private func buttonMaterial(colors: ResolvedColors, images: PreparedBackground?, weight: UInt32) -> Sprite {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        if let images {
            return backdropMaterial.sprite(for: r.roundedOut, background: images, weight: weight, tint: colors[.materialTint],
                                           sigma: 10 * k, incremental: incremental)
        }
        return material.sprite(for: r, background: colors[.pageBackground].premultiplied8.packed, tint: colors[.materialTint],
                               sigma: 10 * k, canvasPool: canvas.pool, incremental: incremental)
    }

    /// Draws everything that touches `clip`: background, labels, toggles, button, focus ring.
    /// Reads the app's state and writes only `clip`'s pixels and `canvas`, so lanes with their
    /// own canvases may draw disjoint clips at once (the toggles' pieces prepared first).
    private func drawPage(clip: IntRect, on canvas: Canvas, _ a: FrameAssets) {
        canvas.clip = clip
        canvas.transform = .identity
        let colors = a.colors
        let background = colors[.pageBackground].premultiplied8.packed
        if let images = a.images {
            let r = clip.intersection(frame.bounds)
            images.draw(r, weight: a.weight, into: frame, at: (r.x, r.y))
        } else {
            frame.fill(clip, with: background)
        }
        let s = layout.scale, k = layout.effectiveScale
        // Labels.
        for (i, box) in [layout.originalLabelBox, layout.vividLabelBox].enumerated() {
            let device = Rect(x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s).roundedOut
            guard !device.insetBy(dx: -2, dy: -2).intersection(clip).isEmpty, let label = labelSlots[i].label else { continue }
            let lineH = PageLayout.headlineLineHeight * k
            let baseline = box.y * s + (lineH - (label.ascent + label.descent)) / 2 + label.ascent
            textLock.withLock { _ in
                typesetter.draw(label, on: canvas, baselineOrigin: Point((box.x * s).rounded(), baseline.rounded()), color: colors[.label])
            }
        }
        // Toggles.
        for i in 0..<2 {
            let o = layout.origin(of: i == 0 ? .original : .vivid)
            guard !renderers[i].bounds(origin: o).intersection(clip).isEmpty else { continue }
            renderers[i].draw(a.toggles[i], on: canvas, origin: o, cached: incremental)
            canvas.clip = clip
            canvas.transform = .identity
        }
        if let material = a.material, let shapes = a.buttonShapes {
            drawButton(on: canvas, clip: clip, colors: colors, material: material, shapes: shapes, weight: a.weight)
        }
        if focusVisible { drawFocusRing(on: canvas, clip: clip, colors: colors) }
        canvas.clip = frame.bounds
        canvas.transform = .identity
    }

    /// The button icon's box (pixels) and the disc drawn in it.
    private func buttonIcon() -> (box: Rect, disc: Rect) {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        let pad = PageLayout.buttonPadding.h * k
        let iconW = PageLayout.iconSize * k, iconD = PageLayout.iconDisc * k
        let box = Rect(x: r.minX + pad, y: r.midY - iconW / 2, width: iconW, height: iconW)
        return (box, box.insetBy(dx: (iconW - iconD) / 2, dy: (iconW - iconD) / 2))
    }

    private func drawButton(on canvas: Canvas, clip: IntRect, colors: ResolvedColors, material: Sprite, shapes: ButtonShapes,
                            weight: UInt32) {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        guard !r.roundedOut.insetBy(dx: -2, dy: -2).intersection(clip).isEmpty else { return }
        canvas.draw(material, mask: .plane(shapes.capsule, offset: (0, 0)))
        canvas.fill(plane: shapes.hairline, colors[.hairline])
        // Icon and label.
        let cy = r.midY
        let icon = buttonIcon().box
        drawIcon(on: canvas, shapes.icon, followsSystem: followsSystem, color: colors[.buttonLabel], darkness: Double(weight) / 256)
        if let label = labelSlots[2].label {
            let x = icon.maxX + PageLayout.iconSpacing * k
            let lineH = PageLayout.calloutLineHeight * k
            let top = cy - lineH / 2
            let baseline = top + (lineH - (label.ascent + label.descent)) / 2 + label.ascent
            textLock.withLock { _ in
                typesetter.draw(label, on: canvas, baselineOrigin: Point(x.rounded(), baseline.rounded()), color: colors[.buttonLabel])
            }
        }
    }

    /// "circle.lefthalf.filled" (a ring with half of it filled) or, while following the system,
    /// "checkmark.circle.fill" (a filled disc with the check knocked out). The screenshots show
    /// the filled half on the left in light and on the right in dark; during the page cross-fade
    /// the halves trade places (each at its share of the page's `darkness`, 0 light … 1 dark).
    /// The shapes' coverage is kept per layout (`IconShapes`): the bytes of filling the paths.
    private func drawIcon(on canvas: Canvas, _ icon: IconShapes, followsSystem: Bool, color: Color, darkness: Double) {
        if followsSystem {
            canvas.fill(plane: icon.check, color)
        } else {
            canvas.fill(plane: icon.ring, color)
            let d = clamp(darkness, 0, 1)
            if d < 1 { canvas.fill(plane: icon.leftHalf, color.withAlpha(color.a * (1 - d))) }
            if d > 0 { canvas.fill(plane: icon.rightHalf, color.withAlpha(color.a * d)) }
        }
    }

    /// The button icon's shapes in the disc `r`, as coverage: the check disc (even-odd), the
    /// ring, and the left half (top → left → bottom) and right half (top → right → bottom) of
    /// the disc inside the ring.
    struct IconShapes {
        var disc: Rect
        var check: AlphaPlane
        var ring: AlphaPlane
        var leftHalf: AlphaPlane
        var rightHalf: AlphaPlane

        init(disc r: Rect) {
            disc = r
            let box = r.roundedOut.insetBy(dx: -1, dy: -1)
            let c = r.center, radius = r.width / 2
            var check = Path.circle(center: c, radius: radius)
            // The check mark as a knocked-out stroke polygon.
            let w = radius * 0.2
            let a = Point(c.x - radius * 0.45, c.y + radius * 0.02)
            let b = Point(c.x - radius * 0.1, c.y + radius * 0.38)
            let d = Point(c.x + radius * 0.48, c.y - radius * 0.35)
            check.append(Path.polygon([Point(a.x - w * 0.7, a.y + w * 0.7), Point(a.x + w * 0.7, a.y - w * 0.7),
                                       Point(b.x, b.y - w), Point(d.x - w * 0.75, d.y - w * 0.65),
                                       Point(d.x + w * 0.75, d.y + w * 0.65), Point(b.x, b.y + w)]))
            self.check = AlphaPlane(coverageOf: check, rule: .evenOdd, bounds: box)
            let ringWidth = max(1, radius * 0.16), inner = radius - ringWidth
            var ring = Path.circle(center: c, radius: radius)
            ring.append(Path.circle(center: c, radius: inner).reversed())
            self.ring = AlphaPlane(coverageOf: ring, bounds: box)
            func half(to end: Double) -> AlphaPlane {
                var p = Path()
                p.move(to: Point(c.x, c.y - inner))
                p.appendArc(center: c, rx: inner, ry: inner, from: -Double.pi / 2, to: end)
                p.close()
                return AlphaPlane(coverageOf: p, bounds: box)
            }
            leftHalf = half(to: -3 * Double.pi / 2)
            rightHalf = half(to: Double.pi / 2)
        }
    }

    private func drawFocusRing(on canvas: Canvas, clip: IntRect, colors: ResolvedColors) {
        let s = layout.scale, k = layout.effectiveScale
        let r: Rect, radius: Double
        switch focus {
        case .button:
            r = layout.buttonPixelFrame.insetBy(dx: -3 * k, dy: -3 * k)
            radius = r.height / 2
        case .original, .vivid:
            let t = layout.frame(of: focus), m = layout.metrics.trackFrame
            r = Rect(x: t.minX * s + m.minX * k, y: t.minY * s + m.minY * k, width: m.width * k, height: m.height * k)
                .insetBy(dx: -4 * k, dy: -4 * k)
            radius = r.height / 2
        }
        guard !r.roundedOut.insetBy(dx: -4, dy: -4).intersection(clip).isEmpty else { return }
        canvas.fill(Path.roundedRectStroke(r, radius: radius, lineWidth: max(2, 3 * k), alignment: .centered), .solid(colors[.focusRing]))
    }

    /// Tells the FPS overlay how long the last frame took (host-measured, milliseconds).
    public func recordFrameTime(milliseconds: Double) {
        if options.showFPS { fps.record(milliseconds: milliseconds) }
    }

    /// How many times the button's material backdrop was built (blurred and tinted).
    public var materialBuilds: Int { material.builds }
    /// How many of those builds blurred (the rest were one colour, see `MaterialCache`).
    public var materialBlurs: Int { material.blurredBuilds }
    /// How many times the background images were scaled to the page, and how many times the
    /// material's backdrop over them was blurred.
    public var backgroundScalings: Int { preparedBackground.scalings }
    public var backdropBlurs: Int { backdropMaterial.blurs }

    /// How many times each label was shaped (checks that shaping is not per frame).
    public var labelShapeCounts: [Int] { labelSlots.map(\.shapeCount) }
}

/// The button's backdrop: the page background behind the capsule, Gaussian-blurred and tinted,
/// kept until the background, tint or size changes (not recomputed per frame).
///
/// What lies behind is one colour, so the blurred backdrop is that colour wherever the blur's
/// reach stays inside the blurred box — in float arithmetic, only as far as rounding to 8 bits
/// says so. The cache therefore remembers, per channel value and geometry, whether the blur of
/// a plane of that value rounds back to the value at every pixel the capsule covers (one
/// single-channel blur the first time a value is seen; for bright values the rectangle's
/// extreme corners do not, but the capsule never covers them). When all four channels do, the
/// backdrop is drawn as the one colour `tint over background`: inside the capsule the same
/// bytes the full build gives (outside it the sprite is never read), without blurring.
/// Otherwise, and when drawing from scratch, it is built in full. During a page cross-fade every
/// frame has a new background, so this keeps the fade from blurring every frame once each
/// colour level has been seen.
struct MaterialCache {
    private var key: (rect: IntRect, background: UInt32, tint: UInt32, sigma: Double)?
    private var cached: Sprite?
    private(set) var builds = 0
    /// Builds that blurred (not derived from the uniform-value table).
    private(set) var blurredBuilds = 0
    /// Per channel value: 0 not known, 1 the blurred plane rounds back to it everywhere in the
    /// rectangle, 2 it does not. Valid for `uniformGeometry`.
    private var uniform = [UInt8](repeating: 0, count: 256)
    private var uniformGeometry: (width: Int, height: Int, sigma: Double, margin: Int, capsule: Rect)?
    /// Per row of the rectangle, the pixels the capsule covers (x ranges, rectangle coordinates).
    private var covered: [[Range<Int>]] = []
    private var plane: [Float] = []
    private var scratch: [Float] = []

    /// The backdrop for the capsule `capsule` (device pixels; drawn masked by
    /// `Path.roundedRect(capsule, radius: capsule.height / 2)`), covering `capsule.roundedOut`.
    mutating func sprite(for capsule: Rect, background: UInt32, tint: Color, sigma: Double,
                         canvasPool: LayerPool, incremental: Bool) -> Sprite {
        let rect = capsule.roundedOut
        let tintKey = tint.premultiplied8.packed
        if incremental, let k = key, let s = cached, k.rect == rect, k.background == background, k.tint == tintKey, k.sigma == sigma {
            return s
        }
        builds += 1
        // Backdrop with a margin so the blur has real neighbours at the capsule's edge.
        let margin = Int((sigma * 3).rounded(.up))
        let box = rect.insetBy(dx: -margin, dy: -margin)
        let width = max(1, rect.width), height = max(1, rect.height)
        let layerColor = background.color.premultiplied8.packed   // what the layer holds before the blur
        let s: Sprite
        if incremental, let c = uniformBackdrop(layerColor, box: box, capsule: capsule, sigma: sigma, margin: margin) {
            // The blurred layer is `c` everywhere in the rectangle: tint it (src-over, as the fill does).
            let out = cached.map { $0.pixmap.width == width && $0.pixmap.height == height ? $0.pixmap : nil } ?? nil
            let pix = out ?? Pixmap(width: width, height: height)
            pix.fill(pix.bounds, with: Blend.over(tintKey, c))
            s = Sprite(pixmap: pix, origin: (rect.x, rect.y))
        } else {
            blurredBuilds += 1
            s = Sprite(pixmap: Self.blurredBackdrop(layerColor, box: box, margin: margin, width: width, height: height,
                                                    tint: tint, sigma: sigma, scratch: &scratch),
                       origin: (rect.x, rect.y))
        }
        key = (rect, background, tintKey, sigma)
        cached = s
        return s
    }

    /// The backdrop blurred for real: a layer of `layerColor` covering `box`, blurred (all
    /// channels, `Canvas.applyBlur`'s blur), tinted (src-over, as `Canvas.fill` draws), and its
    /// `width`×`height` pixels `margin` in. Only those rows are blurred and only those pixels
    /// tinted: the blur reads the whole layer and writes each row as blurring all of it does.
    static func blurredBackdrop(_ layerColor: UInt32, box: IntRect, margin: Int, width: Int, height: Int, tint: Color,
                                sigma: Double, scratch: inout [Float]) -> Pixmap {
        let layer = Pixmap(width: max(1, box.width), height: max(1, box.height))
        layer.fill(layer.bounds, with: layerColor)
        Canvas.blurChannels(layer, sigma: sigma, rows: margin..<(margin + height), scratch: &scratch)
        let out = Pixmap(width: width, height: height)
        out.copyRegion(from: layer, sourceX: margin, sourceY: margin)
        Canvas(out).fill(deviceRect: out.bounds, tint)
        return out
    }

    /// The blurred layer's colour inside `rect` when the layer is `color` everywhere and every
    /// channel's blurred plane rounds back to its value there (then colour ≤ alpha, as the
    /// blur leaves it); nil when some channel does not, or the box is degenerate.
    private mutating func uniformBackdrop(_ color: UInt32, box: IntRect, capsule: Rect, sigma: Double, margin: Int) -> UInt32? {
        let w = box.width, h = box.height, rect = capsule.roundedOut
        guard w > 0, h > 0, rect.width > 0, rect.height > 0, sigma > 0 else { return nil }
        if let g = uniformGeometry, g.width == w, g.height == h, g.sigma == sigma, g.margin == margin, g.capsule == capsule {
        } else {
            uniformGeometry = (w, h, sigma, margin, capsule)
            uniform = [UInt8](repeating: 0, count: 256)
            // Where the capsule's coverage is not zero: the pixels the masked draw can change.
            var rows = [[Range<Int>]](repeating: [], count: rect.height)
            let rx = rect.x, ry = rect.y
            Rasterizer().fill(Path.roundedRect(capsule, radius: capsule.height / 2), clip: rect) { y, x, n, cov in
                var i = 0
                while i < n {
                    while i < n && cov[i] == 0 { i += 1 }
                    let start = i
                    while i < n && cov[i] != 0 { i += 1 }
                    let lo: Int = x - rx + start, hi: Int = x - rx + i
                    if hi > lo { rows[y - ry].append(lo..<hi) }
                }
            }
            covered = rows
            // Every channel value rounds back at once when a plane of ones blurs close enough
            // to 1 (`everyValueRoundsBack`): one blur per geometry instead of one per new value
            // (a page cross-fade meets up to three new values a frame).
            if everyValueRoundsBack(width: w, height: h, sigma: sigma, margin: margin) {
                for v in 1..<256 { uniform[v] = 1 }
            }
        }
        for shift in [0, 8, 16, 24] as [UInt32] {
            let v = Int((color >> shift) & 0xFF)
            if v == 0 { continue }                      // zeros blur to zeros
            if uniform[v] == 0 { uniform[v] = roundsBack(v, width: w, height: h, sigma: sigma, margin: margin) ? 1 : 2 }
            if uniform[v] != 1 { return nil }
        }
        var c = PremultipliedRGBA8(packed: color)
        c.r = min(c.r, c.a); c.g = min(c.g, c.a); c.b = min(c.b, c.a)
        return c.packed
    }

    /// The blur is linear and its weights sum to 1 away from the plane's edges, so a plane of
    /// value v blurs to v·m, where m is what a plane of ones blurs to. In float arithmetic each
    /// of the two results is within a relative γ of the exact one, γ ≤ n·2⁻²⁴ for the n
    /// multiply-adds behind an output value (block average, two passes of ≤ 29 taps, bilinear
    /// reconstruction: n ≈ 100, γ ≈ 6·10⁻⁶). So |blur(v) − v| ≤ v·|m − 1| + 2·v·γ, and every
    /// v ≤ 255 rounds back to itself where 255·(|m − 1| + 2γ) < 0.5. γ is taken as 10⁻⁴ (over
    /// 1 600 operations' worth). Returns true when that holds at every covered pixel; false
    /// sends each value to the exact check (`roundsBack`).
    private mutating func everyValueRoundsBack(width w: Int, height h: Int, sigma: Double, margin: Int) -> Bool {
        if plane.count < w * h { plane = [Float](repeating: 0, count: w * h) }
        let covered = self.covered
        let limit = 0.5 / 255 - 2 * 1e-4
        return plane.withUnsafeMutableBufferPointer { pb in
            let p = pb.baseAddress!
            p.update(repeating: 1, count: w * h)
            GaussianBlur.blur(p, width: w, height: h, sigma: sigma, scratch: &scratch)
            for (y, runs) in covered.enumerated() {
                let row = p + (y + margin) * w + margin
                for run in runs {
                    for x in run where abs(Double(row[x]) - 1) >= limit { return false }
                }
            }
            return true
        }
    }

    /// Whether every channel value 1…255 is known to round back for the current geometry (for tests).
    var knowsEveryValueRoundsBack: Bool { uniform[1...].allSatisfy { $0 == 1 } }

    /// Every value 1…255 checked with its own blur for the current geometry (for tests).
    mutating func everyValueRoundsBackExactly() -> Bool {
        guard let g = uniformGeometry else { return false }
        return (1..<256).allSatisfy { roundsBack($0, width: g.width, height: g.height, sigma: g.sigma, margin: g.margin) }
    }

    /// Blurs a `width`×`height` plane of value `v` as `Canvas.applyBlur` blurs a channel and
    /// checks that it rounds to `v` at every covered pixel (the rectangle sits `margin` in).
    private mutating func roundsBack(_ v: Int, width w: Int, height h: Int, sigma: Double, margin: Int) -> Bool {
        if plane.count < w * h { plane = [Float](repeating: 0, count: w * h) }
        let covered = self.covered
        return plane.withUnsafeMutableBufferPointer { pb in
            let p = pb.baseAddress!
            p.update(repeating: Float(v), count: w * h)
            GaussianBlur.blur(p, width: w, height: h, sigma: sigma, scratch: &scratch)
            for (y, runs) in covered.enumerated() {
                let row = p + (y + margin) * w + margin
                for run in runs {
                    for x in run where Int(UInt32(clamp(Double(row[x]), 0, 255) + 0.5)) != v { return false }
                }
            }
            return true
        }
    }
}

extension UInt32 {
    /// A packed premultiplied pixel as a colour.
    var color: Color {
        let p = PremultipliedRGBA8(packed: self)
        guard p.a > 0 else { return .clear }
        let a = Double(p.a) / 255
        return Color(r: Double(p.r) / 255 / a, g: Double(p.g) / 255 / a, b: Double(p.b) / 255 / a, a: a)
    }
}

extension Pixmap {
    /// Copies this pixmap's size worth of pixels from `src` starting at (sourceX, sourceY).
    func copyRegion(from src: Pixmap, sourceX: Int, sourceY: Int) {
        for y in 0..<height where sourceY + y < src.height {
            for x in 0..<width where sourceX + x < src.width {
                self.pixels[y * stride + x] = src.pixels[(sourceY + y) * src.stride + sourceX + x]
            }
        }
    }
}

extension Rect {
    func contains(_ p: Point) -> Bool { p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY }
}
