import DarkModeToggle
import Raster

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

/// The kiosk page without SDL: state, input, focus, motion and layout. Each frame it makes a
/// `PageModel` (what the page shows at that instant) and hands it to its `PageRenderer`, which
/// draws it into one persistent frame; an accessibility bridge reads the same model
/// (`pageModel(at:)`). Every driver (SDL host, replay, bench) calls the same methods with its
/// own clock; nothing here reads a clock, the file system or the display.
///
/// The page holds three controls: the Original toggle, the Vivid toggle and the "Use System
/// Setting" button. Both toggles show the one effective mode; a commit on one makes the other
/// follow.
public final class KioskApp {
    public private(set) var options: KioskOptions {
        didSet {
            summaryCache = nil
            statusCache = nil
        }
    }
    /// Draws the page model into the frame (composition, caches, lanes).
    public let renderer: PageRenderer
    /// The persistent CPU frame (page pixels, premultiplied RGBA, R,G,B,A byte order).
    public var frame: Pixmap { renderer.frame }
    public private(set) var layout: PageLayout
    private var interactions: TogglePair<ToggleInteraction>
    private let typesetter: LabelTypesetter
    private var headlineSlots = TogglePair(both: LabelSlot())
    private var buttonSlot = LabelSlot()
    /// The slots' labels as of the last layout (what each frame's model carries; kept, not made per frame).
    private var shapedLabels = PageLabels()
    /// Page darkness 0…1 (cross-fades on commit).
    private var pageFade: ProgressAnimation
    /// Time origin of the ambient loops (the scene's first appearance; nil until the first
    /// frame, and again after Reduce Motion is switched off by the system).
    public private(set) var ambientStart: Double?
    private var lastTime: Double = 0
    /// The time of the last frame that drew something (`ambientFramesToSkip` counts from it).
    private var lastShownTime: Double?
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
    /// When false, every frame is drawn from scratch (`PageRenderer.incremental`).
    public var incremental: Bool {
        get { renderer.incremental }
        set { renderer.incremental = newValue }
    }
    /// Helper threads for frames (`PageRenderer.workers`).
    public var workers: FrameWorkers? {
        get { renderer.workers }
        set { renderer.workers = newValue }
    }
    /// Frames that change fewer pixels are drawn on the calling thread alone (`PageRenderer.parallelMinPixels`).
    public var parallelMinPixels: Int {
        get { renderer.parallelMinPixels }
        set { renderer.parallelMinPixels = newValue }
    }
    public var fps: FrameTimeOverlay { renderer.fps }
    /// Rows per band when a frame is presented band by band (`PageRenderer.presentBandRows`).
    public static var presentBandRows: Int { PageRenderer.presentBandRows }
    /// Rectangles smaller than this are drawn whole (`PageRenderer.presentBandMinPixels`).
    public static var presentBandMinPixels: Int { PageRenderer.presentBandMinPixels }

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
        interactions = TogglePair(both: ToggleInteraction(metrics: m, isOn: isDarkMode, reduceMotion: reduce))
        renderer = PageRenderer(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight,
                                toggleWidth: options.toggleWidth, typesetter: typesetter)
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
    public var isDarkMode: Bool { interactions.original.isOn }
    /// True while the page follows the system.
    public var followsSystem: Bool { appearancePreference == .system }
    /// What decides the shown appearance, for machine-readable state: `preference` (a fixed
    /// light or dark choice), or while following the system the source that answers
    /// (`AppearanceSourceKind.identifier`), `none` when none does.
    public var appearanceDecider: String {
        followsSystem ? (systemAppearance.source?.identifier ?? "none") : "preference"
    }
    public var accessibility: AccessibilityState { interactions.original.accessibility }
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

    /// The labels' size over the standard one: the desktop's text-scaling-factor, kept within
    /// 0.5…3 (1 when it says nothing usable). The layout makes room, or scales the content down
    /// to fit.
    public var textScale: Double {
        guard let f = systemAppearance.hints.textScale, f.isFinite, f > 0 else { return 1 }
        return clamp(f, 0.5, 3)
    }

    /// An accessibility setting a flag or the config can force on; otherwise the system's hint.
    static func effective(forced: Bool, hint: Bool?) -> Bool { forced || hint == true }

    /// The accessibility summary for window titles, sd_notify STATUS and `replay`, e.g.
    /// "Dark Mode: On (following system)" or "Dark Mode: Off".
    public var accessibilitySummary: String {
        let key = SummaryKey(original: interactions.original.isOn, vivid: interactions.vivid.isOn, followsSystem: followsSystem)
        if let statusCache, statusCache.key == key { return statusCache.text }
        let text = accessibility.summary + (followsSystem ? " (following system)" : "")
        statusCache = (key, text)
        return text
    }
    private var statusCache: (key: SummaryKey, text: String)?
    /// The same summary (the name sd_notify STATUS uses).
    public var statusSummary: String { accessibilitySummary }

    /// Each control's accessibility label and value, each toggle from its own state: both
    /// toggles "Dark Mode (<group label>)" On/Off, the button "Follow System Appearance" On/Off.
    public var controlAccessibility: [(control: PageControl, label: String, value: String)] {
        let toggles = ToggleSlot.allCases.map { t in
            let state = interactions[t].accessibility
            return (t.control, "\(state.label) (\(options.strings.groupLabel(of: t)))", state.value)
        }
        return toggles + [(.button, options.strings.followSystemAppearance,
                           followsSystem ? AccessibilityState.valueOn : AccessibilityState.valueOff)]
    }

    /// All three controls in one line, for the window title: "Dark Mode (Original): On ·
    /// Dark Mode (Vivid): On · Follow System Appearance: Off".
    public var pageAccessibilitySummary: String {
        let key = SummaryKey(original: interactions.original.isOn, vivid: interactions.vivid.isOn, followsSystem: followsSystem)
        if let summaryCache, summaryCache.key == key { return summaryCache.text }
        let text = controlAccessibility.map { "\($0.label): \($0.value)" }.joined(separator: " · ")
        summaryCache = (key, text)
        return text
    }

    /// What `pageAccessibilitySummary` and `accessibilitySummary` depend on besides the options
    /// (whose change forgets them): the host asks for both on every pass of its loop (window
    /// title, STATUS), and they change only with these.
    private struct SummaryKey: Equatable {
        var original: Bool
        var vivid: Bool
        var followsSystem: Bool
    }
    private var summaryCache: (key: SummaryKey, text: String)?

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
    public func visualState(at time: Double) -> ToggleVisualState { interactions.original.visualState(at: time) }
    /// What a toggle shows at `time`.
    public func visualState(of control: PageControl, at time: Double) -> ToggleVisualState {
        interactions[control.toggle ?? .original].visualState(at: time)
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
        renderer.needsPage || Ambient.isActive(reduceMotion: reduceMotion) || !isSettled(at: lastTime)
            || options.showFPS && fps.needsRedraw
    }

    // MARK: Layout

    /// Shapes the labels at the current scale (only when text or size changed) and lays out.
    private func relayout() {
        let s = options.scale, t = textScale
        func metrics(at k: Double) -> LabelMetrics {
            func headline(_ toggle: ToggleSlot) -> Double {
                let size = PageLayout.headlineSize * t
                return headlineSlots[toggle].update(options.strings.groupLabel(of: toggle), pixelSize: size * k,
                                                    tracking: PageLayout.headlineTracking * t / size, with: typesetter).width / k
            }
            let size = PageLayout.calloutSize * t
            let button = buttonSlot.update(buttonText, pixelSize: size * k, tracking: PageLayout.calloutTracking * t / size,
                                           with: typesetter).width / k
            return LabelMetrics(originalWidth: headline(.original), vividWidth: headline(.vivid), buttonTextWidth: button, textScale: t)
        }
        var l = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight, scale: s,
                           toggleWidth: options.toggleWidth, labels: metrics(at: s))
        if l.contentScale < 1 {
            // Shaped at the scaled size; widths in content points stay close, lay out again with them.
            l = PageLayout(pixelWidth: options.pixelWidth, pixelHeight: options.pixelHeight, scale: s,
                           toggleWidth: options.toggleWidth, labels: metrics(at: l.effectiveScale))
        }
        layout = l
        shapedLabels = PageLabels(headlines: headlineSlots.map(\.label), button: buttonSlot.label)
        renderer.invalidatePage()
    }

    /// New page size (pixels) and scale, e.g. after a window resize or rotation.
    public func resize(pixelWidth: Int, pixelHeight: Int, scale: Double) {
        options.pixelWidth = pixelWidth
        options.pixelHeight = pixelHeight
        options.scale = scale
        renderer.resize(pixelWidth: pixelWidth, pixelHeight: pixelHeight)
        relayout()
    }

    /// Forgets what the frame shows, so the next `renderFrame` redraws the whole page (e.g.
    /// after the host lost its window contents).
    public func invalidate() { renderer.invalidate() }

    /// Labels (e.g. another language) and who shapes them.
    public func setStrings(_ strings: PageStrings) {
        options.strings = strings
        relayout()
    }

    /// Forces high contrast on (true), or leaves it to the system's hint (false).
    public func setHighContrast(_ on: Bool) {
        options.highContrast = on
        renderer.invalidatePage()
    }

    // MARK: Input

    // Input methods return what the driver must do (save the new preference), or nil; the
    // driver decides what that means (save it, print it, count it).

    /// A pointer event with its location in page points.
    @discardableResult
    public func handle(_ event: PointerEvent) -> KioskOutput? {
        noteInput(at: event.timestamp)
        var output: KioskOutput?
        for toggle in ToggleSlot.allCases {
            let f = layout.frame(of: toggle.control), k = layout.contentScale
            var e = event
            e.location = Point((event.location.x - f.minX) / k, (event.location.y - f.minY) / k)
            if let dark = interactions[toggle].handle(e) {
                if output == nil { focus = toggle.control }
                output = manualCommit(dark, from: toggle, at: event.timestamp) ?? output
            }
        }
        if let o = handleButton(event) { output = o }
        return output
    }

    /// True while pointer `id` holds a control: a toggle pressed or dragged, or the button
    /// pressed (what it does next shows on screen).
    public func holdsControl(pointer id: Int) -> Bool {
        buttonPointer == id || ToggleSlot.allCases.contains { interactions[$0].ownerID == id }
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
            // The ring moved: the page needs a frame even when nothing animates.
            renderer.invalidatePage()
            return nil
        case .activate:
            return activate(focus, at: time)
        }
    }

    /// An assistive technology's action on `control` (AT-SPI `DoAction`): the focus moves to
    /// it first, as a tap's does (a screen reader speaks a state change only on the focused
    /// control), then it commits exactly as a tap or Space does. Returns the output to save.
    @discardableResult
    public func activateControl(_ control: PageControl, at time: Double) -> KioskOutput? {
        noteInput(at: time)
        guard time.isFinite else { return nil }
        focus = control
        return activate(control, at: time)
    }

    /// An assistive technology moved the focus (AT-SPI `GrabFocus`): the ring shows on `control`.
    public func moveFocus(to control: PageControl) {
        focus = control
        focusVisible = true
        renderer.invalidatePage()
    }

    /// Space/Return on the focused control (what `KeyEvent(.activate)` means).
    @discardableResult
    public func handle(_ key: KeyEvent) -> KioskOutput? {
        noteInput(at: key.timestamp)
        guard key.isActivation, key.timestamp.isFinite else { return nil }
        return activate(focus, at: key.timestamp)
    }

    private func activate(_ control: PageControl, at time: Double) -> KioskOutput? {
        guard let toggle = control.toggle else { return choosePreference(.system, at: time) }
        return manualCommit(interactions[toggle].handle(KeyEvent(action: .activate, timestamp: time)), from: toggle, at: time)
    }

    /// A toggle commit by the person: the other toggle follows; stores the fixed preference.
    private func manualCommit(_ commit: Bool?, from toggle: ToggleSlot, at time: Double) -> KioskOutput? {
        guard let dark = commit else { return nil }
        _ = interactions[toggle.other].setOn(dark, at: time)
        startFade(dark: dark, at: time)
        let before = followsSystem
        appearancePreference = AppearancePreference(isDark: dark)
        // Leaving the system: the button's label changes ("Use System Setting"), shape it again.
        if before { renderer.invalidatePage(); relayout() }
        return .preferenceChanged(appearancePreference)
    }

    /// Both toggles to `dark` (animating like a tap) and the page cross-fade, when it changes.
    private func animate(to dark: Bool, at time: Double) {
        var changed = false
        for t in ToggleSlot.allCases where interactions[t].setOn(dark, at: time) != nil { changed = true }
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
        let label = buttonText, reduced = reduceMotion, contrast = highContrast, text = textScale
        systemAppearance = system
        if reduceMotion != reduced {
            for t in ToggleSlot.allCases { interactions[t].reduceMotion = reduceMotion }
            // Loops that start again begin at their start, as when the scene first appears.
            if !reduceMotion { ambientStart = nil }
        }
        // Other colours, or loops stopping at their rest values: the page needs a frame even
        // when nothing animates (`needsFrames`).
        if reduceMotion != reduced || highContrast != contrast { renderer.invalidatePage() }
        if followsSystem { animate(to: system.resolves(.system), at: time) }
        if buttonText != label || textScale != text { relayout() }
    }

    /// An external change of the preference (a fleet rewrite of the file): animates like a tap
    /// and returns nothing to save.
    public func setAppearancePreference(_ preference: AppearancePreference, at time: Double) {
        noteInput(at: time)
        if preference != appearancePreference { renderer.invalidatePage() }
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
        for t in ToggleSlot.allCases { interactions[t].cancel(at: time) }
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

    /// What the page shows at `time`: the model the renderer draws and an accessibility bridge
    /// reads. Changes nothing (before the first frame the ambient loops are taken to start at
    /// `time`).
    public func pageModel(at time: Double) -> PageModel {
        let start = ambientStart ?? time
        let toggles = interactions.map {
            ToggleFrame($0.visualState(at: time), ambientTime: time - start, reduceMotion: reduceMotion)
        }
        var under: (UInt32, UInt32) = (0, 0)
        if options.background != nil {
            let page = options.colors[.pageBackground]
            let (l, d) = options.highContrast ? (page.highContrastLight, page.highContrastDark) : (page.light, page.dark)
            under = (l.premultiplied8.packed, d.premultiplied8.packed)
        }
        return PageModel(layout: layout, colors: colors(at: time), darkness: pageFade.value(at: time), toggles: toggles,
                         togglesOn: interactions.map(\.isOn), focus: focus, focusVisible: focusVisible,
                         followsSystem: followsSystem, buttonText: buttonText, labels: shapedLabels,
                         strings: options.strings, background: options.background,
                         backgroundColors: under, showFPS: options.showFPS)
    }

    /// The page's controls for assistive technology now (names, states, frames, focus).
    public var accessibilityModel: PageAccessibility { pageModel(at: lastTime).accessibility }

    /// Advances to `time` (seconds, driver clock) and renders what changed into `frame`
    /// (`PageRenderer.render`, which says what is returned and when `present` is called).
    public func renderFrame(at time: Double, present: ((IntRect) -> Void)? = nil) -> [IntRect] {
        if time.isFinite { lastTime = max(lastTime, time) }
        // The ambient loops start with the scene's first frame.
        if ambientStart == nil { ambientStart = time }
        let dirty = renderer.render(pageModel(at: time), present: present)
        if !dirty.isEmpty, time.isFinite { lastShownTime = time }
        return dirty
    }

    /// How many frames of the display's grid (`period` seconds apart, counted from the last
    /// frame rendered) the host may leave out before the next one: while only the ambient loops
    /// move (no gesture, toggles and cross-fade at rest, the page drawn, no FPS overlay), as many
    /// as `AmbientPacing` allows — no cloud moves more than ¼ px and no star steps more than 1/64
    /// between two frames shown; otherwise 0 (every frame, the display's full rate).
    public func ambientFramesToSkip(period: Double) -> Int {
        guard !renderer.needsPage, !options.showFPS, Ambient.isActive(reduceMotion: reduceMotion),
              let start = ambientStart, let shown = lastShownTime, isSettled(at: lastTime) else { return 0 }
        let unit = ToggleMetrics(width: options.toggleWidth).trackScale * layout.effectiveScale
        let scenes = ToggleSlot.allCases.map { t in
            AmbientPacing.Scene(style: t == .original ? .original : .vivid, trackUnit: unit,
                                appearance: interactions[t].visualState(at: lastTime).appearance)
        }
        return AmbientPacing.framesToSkip(shown: shown - start, now: lastTime - start, period: period, scenes: scenes)
    }

    /// Tells the FPS overlay how long the last frame took (host-measured, milliseconds).
    public func recordFrameTime(milliseconds: Double) {
        if options.showFPS { fps.record(milliseconds: milliseconds) }
    }

    /// How many times the button's material backdrop was built (blurred and tinted).
    public var materialBuilds: Int { renderer.materialBuilds }
    /// How many of those builds blurred (the rest were one colour, see `MaterialCache`).
    public var materialBlurs: Int { renderer.materialBlurs }
    /// How many times the background images were scaled to the page, and how many times the
    /// material's backdrop over them was blurred.
    public var backgroundScalings: Int { renderer.backgroundScalings }
    public var backdropBlurs: Int { renderer.backdropBlurs }

    /// How many times each label was shaped (checks that shaping is not per frame).
    /// Original, vivid, button.
    public var labelShapeCounts: [Int] { headlineSlots.both.map(\.shapeCount) + [buttonSlot.shapeCount] }
}
