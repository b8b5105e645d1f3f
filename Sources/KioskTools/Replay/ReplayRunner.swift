import DarkModeToggle
import Raster
import Appearance
import KioskEngine
import KioskSupport

/// `darkmode-kiosk replay`: runs an input trace through the real app on a virtual clock, as
/// fast as it can. Between events the clock advances in 60 Hz frames (each frame updates and
/// renders the page exactly as the kiosk would); after the last event it runs on until the
/// toggle and the page cross-fade have settled, so the final progress is the resting value.
///
/// Output (JSON lines, via `emit`): a layout line, one line per commit, a final line.
public struct ReplayRunner {
    public static let frameInterval = 1.0 / 60
    /// Longest settle after the last event (virtual seconds) before giving up.
    public static let settleLimit = 30.0

    public var size: PixelSize
    public var scale: Double
    public var reduceMotion: Bool
    /// Render each frame into the page (the real per-frame path). Off only for pure engine
    /// tests that need speed.
    public var renderFrames: Bool

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
        public var frames: Int

        public static func == (a: Result, b: Result) -> Bool {
            a.isDarkMode == b.isDarkMode && a.progress == b.progress && a.frames == b.frames
                && a.commits.elementsEqual(b.commits) { $0.t == $1.t && $0.value == $1.value }
        }
    }

    /// Replays `events` starting in the fixed mode `initialDark`; `onCommit` is called with the
    /// effective mode at each commit, `emit` with each output line.
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
        var commits: [(t: Double, value: Bool)] = []
        let app = KioskApp(options: KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale,
                                                 reduceMotion: reduceMotion),
                           preference: initial)
        var now = events.first.map { min(0, $0.time) } ?? 0
        emit(Self.layoutLine(app))
        var frames = 0
        func frame(at t: Double) {
            if renderFrames { _ = app.renderFrame(at: t) }
            observe?(app, t)
            frames += 1
        }
        var nextFrame = now
        for event in events {
            // Frames due before this event.
            while nextFrame < event.time {
                now = nextFrame
                frame(at: now)
                nextFrame += Self.frameInterval
            }
            now = event.time
            if let output = deliver(event, to: app) {
                commits.append((now, app.isDarkMode))
                onOutput(output, app.isDarkMode)
                emit(Self.commitLine(t: now, value: app.isDarkMode, preference: app.appearancePreference))
            }
        }
        // Run on until everything has settled (ambient loops aside).
        let deadline = now + Self.settleLimit
        repeat {
            now = max(now, nextFrame)
            frame(at: now)
            nextFrame = now + Self.frameInterval
        } while !app.isSettled(at: now) && now < deadline
        let progress = app.visualState(at: now).appearance
        emit(Self.finalLine(app, progress: progress))
        return Result(isDarkMode: app.isDarkMode, commits: commits, progress: progress, frames: frames)
    }

    /// Converts a trace event into the app's input (window pixels or toggle points → page points,
    /// key names → toggle actions); returns the commit it caused, if any.
    func deliver(_ event: TraceEvent, to app: KioskApp) -> KioskOutput? {
        switch event {
        case .key(let name, let t):
            return app.handleKey(named: name, at: t)
        case .pointer(let id, let phase, let x, let y, let device, let space, let t):
            let location: Point
            if let control = space.control {
                location = app.pagePoint(in: control, x: x, y: y)
            } else {
                location = Point(x / scale, y / scale)
            }
            return app.handle(PointerEvent(id: id, phase: phase, location: location, timestamp: t, device: device))
        }
    }

    static func number(_ d: Double) -> JSONValue { .number(JSONNumber(d) ?? JSONNumber(0)!) }

    /// Rounds to microseconds / millionths for stable output.
    static func tidy(_ d: Double) -> Double { (d * 1e6).rounded() / 1e6 }

    static func layoutLine(_ app: KioskApp) -> String {
        let f = app.layout.togglePixelFrame
        var toggle = JSONObject()
        toggle["x"] = number(tidy(f.minX)); toggle["y"] = number(tidy(f.minY))
        toggle["w"] = number(tidy(f.width)); toggle["h"] = number(tidy(f.height))
        var layout = JSONObject()
        layout["toggle"] = .object(toggle)
        layout["scale"] = number(app.layout.scale)
        layout["size"] = .array([number(Double(app.layout.pixelWidth)), number(Double(app.layout.pixelHeight))])
        var root = JSONObject()
        root["layout"] = .object(layout)
        return JSONWriter.compact(.object(root))
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
