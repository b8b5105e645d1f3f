import DarkModeToggle
import Raster
import Appearance
import KioskEngine
import KioskSupport

/// `darkmode-kiosk replay`: runs an input trace through the real app on the virtual clock
/// (`VirtualClockDriver`), as fast as it can. Between events the clock advances in 60 Hz
/// frames (each frame updates and renders the page exactly as the kiosk would); after the last
/// event it runs on until the toggle and the page cross-fade have settled, so the final
/// progress is the resting value.
///
/// Idle stretches are skipped (`skipIdleFrames`, on by default): while the app is settled only
/// the ambient loops would change pixels, so replay jumps to the next event's frame. A replay
/// therefore costs what happens (events and animated frames), not how long the trace is; the
/// outcome and every frame it does render are the same as without skipping (the first frame
/// after a skipped stretch redraws, and counts as dirty, what changed since the last drawn frame).
///
/// Output (JSON lines, via `emit`): a layout line, with `frames` one line per rendered frame,
/// one line per commit (after the frames before it), a final line.
public struct ReplayRunner {
    public static let frameInterval = VirtualClockDriver.frameInterval
    /// Longest settle after the last event (virtual seconds) before giving up.
    public static let settleLimit = 30.0

    public var size: PixelSize
    public var scale: Double
    public var reduceMotion: Bool
    /// Render each frame into the page (the real per-frame path). Off only for pure engine
    /// tests that need speed.
    public var renderFrames: Bool
    /// Skip frames while nothing but the ambient loops moves.
    public var skipIdleFrames = true
    /// Emit one line per rendered frame (`replay --frames`).
    public var frameLines = false

    public init(size: PixelSize = PixelSize(width: 1280, height: 800), scale: Double = 1,
                reduceMotion: Bool = false, renderFrames: Bool = true) {
        self.size = size
        self.scale = scale
        self.reduceMotion = reduceMotion
        self.renderFrames = renderFrames
    }

    /// The outcome of a replay.
    public struct Result: Equatable, Sendable {
        public var isDarkMode: Bool
        public var commits: [(t: Double, value: Bool)]
        public var progress: Double
        /// Frames stepped through (rendered unless `renderFrames` is off).
        public var frames: Int

        public static func == (a: Result, b: Result) -> Bool {
            a.isDarkMode == b.isDarkMode && a.progress == b.progress && a.frames == b.frames
                && a.commits.elementsEqual(b.commits) { $0.t == $1.t && $0.value == $1.value }
        }
    }

    /// Replays `events` starting in the fixed mode `initialDark`; `onCommit` is called with the
    /// effective mode at each commit, `emit` with each output line, `observe` after each frame.
    public func run(_ events: [TraceEvent], initialDark: Bool, onCommit: (Bool) -> Void = { _ in },
                    emit: (String) -> Void = { _ in }, observe: ((KioskApp, Double) -> Void)? = nil) -> Result {
        run(events, initial: AppearancePreference(isDark: initialDark), onOutput: { _, dark in onCommit(dark) },
            emit: emit, observe: observe)
    }

    /// Replays `events` starting with `initial`; `onOutput` is called with what each input asks
    /// the driver to do (save the preference), `emit` with each output line.
    public func run(_ events: [TraceEvent], initial: AppearancePreference, onOutput: (KioskOutput) -> Void,
                    emit: (String) -> Void = { _ in }, observe: ((KioskApp, Double) -> Void)? = nil) -> Result {
        run(events, initial: initial, onOutput: { output, _ in onOutput(output) }, emit: emit, observe: observe)
    }

    /// The replay itself; `onOutput` also gets the effective mode after the input.
    func run(_ events: [TraceEvent], initial: AppearancePreference, onOutput: (KioskOutput, Bool) -> Void,
             emit: (String) -> Void, observe: ((KioskApp, Double) -> Void)?) -> Result {
        let app = KioskApp(options: KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale,
                                                 reduceMotion: reduceMotion),
                           preference: initial)
        let driver = VirtualClockDriver(app: app, input: TraceScript(events), origin: events.first.map { min(0, $0.time) } ?? 0,
                                        renders: renderFrames)
        emit(Self.layoutLine(app))
        return withoutActuallyEscaping(onOutput) { onOutput in
            withoutActuallyEscaping(emit) { emit in
                var commits: [(t: Double, value: Bool)] = []
                driver.onEvent = { d in
                    guard let output = d.output else { return }
                    commits.append((d.event.time, app.isDarkMode))
                    onOutput(output, app.isDarkMode)
                    emit(Self.commitLine(t: d.event.time, value: app.isDarkMode, preference: app.appearancePreference))
                }
                let celestial = frameLines ? ToggleRenderer(width: app.layout.metrics.width, scale: app.layout.scale) : nil
                driver.onFrame = { f in
                    if let celestial { emit(Self.frameLine(f, app: app, renderer: celestial)) }
                    observe?(app, f.time)
                }
                let end = driver.runToEnd(skippingIdle: skipIdleFrames, settleLimit: Self.settleLimit)
                driver.onEvent = nil
                driver.onFrame = nil
                let progress = app.visualState(at: end).appearance
                emit(Self.finalLine(app, progress: progress))
                return Result(isDarkMode: app.isDarkMode, commits: commits, progress: progress, frames: driver.framesStepped)
            }
        }
    }

    static func number(_ d: Double) -> JSONValue { .number(JSONNumber(d) ?? JSONNumber(0)!) }

    /// Rounds to microseconds / millionths for stable output.
    static func tidy(_ d: Double) -> Double { rounded(d, places: 6) }

    static func layoutLine(_ app: KioskApp) -> String {
        let f = app.layout.togglePixelFrame
        var toggle = JSONObject()
        toggle["x"] = number(tidy(f.minX)); toggle["y"] = number(tidy(f.minY))
        toggle["w"] = number(tidy(f.width)); toggle["h"] = number(tidy(f.height))
        var layout = JSONObject()
        layout["toggle"] = .object(toggle)
        layout["scale"] = number(app.layout.scale)
        layout["size"] = .array([number(Double(app.layout.pixelWidth)), number(Double(app.layout.pixelHeight))])
        // The other two controls in device pixels (for end-to-end scripts that tap them).
        let v = app.layout.origin(of: .vivid), m = app.layout.metrics, s = app.layout.effectiveScale
        var vivid = JSONObject()
        vivid["x"] = number(Double(v.x)); vivid["y"] = number(Double(v.y))
        vivid["w"] = number(tidy(m.width * s)); vivid["h"] = number(tidy(m.height * s))
        layout["vivid"] = .object(vivid)
        let b = app.layout.buttonPixelFrame
        var button = JSONObject()
        button["x"] = number(tidy(b.minX)); button["y"] = number(tidy(b.minY))
        button["w"] = number(tidy(b.width)); button["h"] = number(tidy(b.height))
        layout["button"] = .object(button)
        var root = JSONObject()
        root["layout"] = .object(layout)
        return JSONWriter.compact(.object(root))
    }

    /// `replay --frames`: what one rendered frame shows — its 60 Hz index and time, the toggle's
    /// position and appearance progress, the device x of the sun's (appearance < 0.5) or moon's
    /// left edge where the renderer draws it, and how many pixels the frame redrew.
    static func frameLine(_ frame: VirtualClockDriver.Frame, app: KioskApp, renderer: ToggleRenderer) -> String {
        let s = app.visualState(at: frame.time)
        var o = JSONObject()
        o["frame"] = number(Double(frame.index))
        o["t"] = number(tidy(frame.time))
        o["position"] = number(tidy(s.position))
        o["appearance"] = number(tidy(s.appearance))
        o["celestialX"] = number(tidy(renderer.celestialLeftEdge(origin: app.layout.toggleOrigin, position: s.position,
                                                                 appearance: s.appearance)))
        o["dirtyPixels"] = number(Double(frame.dirty.reduce(0) { $0 + $1.area }))
        return JSONWriter.compact(.object(o))
    }

    static func commitLine(t: Double, value: Bool, preference: AppearancePreference) -> String {
        var o = JSONObject()
        o["t"] = number(tidy(t))
        o["commit"] = .bool(value)
        o["appearance"] = .string(preference.rawValue)
        return JSONWriter.compact(.object(o))
    }

    static func finalLine(_ app: KioskApp, progress: Double) -> String {
        var f = JSONObject()
        f["isDarkMode"] = .bool(app.isDarkMode)
        f["commits"] = number(Double(app.commitCount))
        f["progress"] = number(tidy(progress))
        f["accessibility"] = .string(app.accessibilitySummary)
        f["appearance"] = .string(app.appearancePreference.rawValue)
        // Which source drives the mode while following the system (null: none states one), and
        // the button's words, which name it ("Following System · light sensor").
        if app.appearancePreference == .system {
            f["systemSource"] = app.systemAppearance.source.map { .string($0.rawValue) } ?? .null
        }
        f["button"] = .string(app.buttonText)
        f["highContrast"] = .bool(app.highContrast)
        f["reduceMotion"] = .bool(app.reduceMotion)
        var controls = JSONObject()
        for c in app.controlAccessibility {
            controls[c.control.rawValue] = .string("\(c.label): \(c.value)")
        }
        f["controls"] = .object(controls)
        var o = JSONObject()
        o["final"] = .object(f)
        return JSONWriter.compact(.object(o))
    }
}
