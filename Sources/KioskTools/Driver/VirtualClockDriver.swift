import DarkModeToggle
import Raster
import KioskEngine

/// A stream of input for the driver: trace events in time order.
public protocol InputScript {
    /// The time of the next event without consuming it; nil when the script has ended.
    mutating func nextTime() -> Double?
    /// Consumes and returns the next event (only called after `nextTime()` returned a time).
    mutating func next() -> TraceEvent
}

/// A finite, recorded trace (what `replay` reads).
public struct TraceScript: InputScript {
    public let events: [TraceEvent]
    private var index = 0
    public init(_ events: [TraceEvent]) { self.events = events }
    public mutating func nextTime() -> Double? { index < events.count ? events[index].time : nil }
    public mutating func next() -> TraceEvent { defer { index += 1 }; return events[index] }
}

extension RandomInteraction: InputScript {
    public mutating func nextTime() -> Double? { peekTime() }
}

/// The one virtual-clock driver behind `replay`, `bench` and `soak` (and the tests that drive
/// the app headlessly): it advances a `KioskApp` on a virtual 60 Hz clock, delivers the input
/// script's events at their times, renders frames, and tells the caller what happened.
///
/// Frame `k` is at `origin + k / 60` seconds (computed, not accumulated, so a frame's time does
/// not depend on which frames came before). A step delivers every event due at or before the
/// frame's time, in order, then renders the frame. Commits are the return values of
/// `KioskApp.handle`; the driver passes them to `onEvent`, and each rendered frame to `onFrame`.
///
/// `bench` and `soak` call `step()` themselves (they time each step and render every frame,
/// ambient ones included). `replay` calls `runToEnd(skippingIdle:)`, which may jump over idle
/// stretches — see there for the rule.
public final class VirtualClockDriver {
    public static let frameInterval = 1.0 / 60

    /// What one delivered event caused.
    public struct Delivery {
        public var event: TraceEvent
        /// What the input asks the driver to do (save the new preference), if anything.
        public var output: KioskOutput?
        /// How many commits the engine counted for this event (0 or 1 unless something is wrong;
        /// the return value can carry only one).
        public var engineCommits: Int
    }

    /// One frame the driver advanced through.
    public struct Frame {
        /// Index on the 60 Hz grid (frame `index` is at `origin + index / 60`).
        public var index: Int
        public var time: Double
        /// The rectangles the app redrew (empty when rendering is off or nothing changed).
        public var dirty: [IntRect]
    }

    public let app: KioskApp
    /// Time of frame 0.
    public let origin: Double
    /// Render each frame into the app's page (the real per-frame path). Off only for engine
    /// tests that need speed; the engine's outcome does not depend on it.
    public var renders: Bool
    /// Called after each event is delivered, with what it caused.
    public var onEvent: ((Delivery) -> Void)?
    /// Called after each frame is rendered.
    public var onFrame: ((Frame) -> Void)?

    /// Grid index of the next frame.
    public private(set) var nextFrame = 0
    /// Frames stepped through so far (rendered, or evaluated when `renders` is off).
    public private(set) var framesStepped = 0
    /// Time of the last frame stepped through (`origin` before the first).
    public private(set) var lastFrameTime: Double
    /// Time of the last event delivered, if any.
    public private(set) var lastEventTime: Double?
    private var input: any InputScript

    public init(app: KioskApp, input: any InputScript, origin: Double = 0, renders: Bool = true) {
        self.app = app
        self.input = input
        self.origin = origin
        self.renders = renders
        lastFrameTime = origin
    }

    /// The time of grid frame `k`.
    public func time(ofFrame k: Int) -> Double { origin + Double(k) * Self.frameInterval }

    /// True when the input script has no more events.
    public var inputEnded: Bool { input.nextTime() == nil }

    /// Delivers every event due at or before the next frame's time, renders that frame, and
    /// moves on to the following one.
    @discardableResult
    public func step(present: ((IntRect) -> Void)? = nil) -> Frame {
        let k = nextFrame, t = time(ofFrame: k)
        while let due = input.nextTime(), due <= t {
            deliver(input.next())
        }
        let dirty = renders ? app.renderFrame(at: t, present: present) : []
        nextFrame = k + 1
        framesStepped += 1
        lastFrameTime = t
        let frame = Frame(index: k, time: t, dirty: dirty)
        onFrame?(frame)
        return frame
    }

    private func deliver(_ event: TraceEvent) {
        let before = app.commitCount
        let output = Self.deliver(event, to: app)
        lastEventTime = event.time
        onEvent?(Delivery(event: event, output: output, engineCommits: app.commitCount - before))
    }

    /// Runs the whole input script, then on until the toggle and the page cross-fade have
    /// settled (ambient loops aside), at most `settleLimit` seconds after the last event.
    /// Returns the time of the last frame.
    ///
    /// With `skippingIdle`, frames are skipped while nothing moves: when the app is settled
    /// after a frame (no gesture, toggle and cross-fade at rest), the driver jumps to the first
    /// grid frame at or after the next event. The skipped frames could only have changed the
    /// ambient loops (clouds, stars), never the interaction's outcome, a position, an
    /// appearance or a page colour; every frame in which something moves is stepped through.
    /// A frame that is stepped through has the same index, time and state as without
    /// skipping, and — because the settled position and appearance are unchanged — the same
    /// dirty rectangles.
    @discardableResult
    public func runToEnd(skippingIdle: Bool, settleLimit: Double = 30) -> Double {
        while let next = input.nextTime() {
            if skippingIdle && framesStepped > 0 && app.isSettled(at: lastFrameTime) && next > time(ofFrame: nextFrame) {
                nextFrame = firstFrame(atOrAfter: next)
            }
            step()
        }
        let deadline = max(lastEventTime ?? origin, origin) + settleLimit
        if framesStepped == 0 { step() }
        while !app.isSettled(at: lastFrameTime) && lastFrameTime < deadline { step() }
        return lastFrameTime
    }

    /// The first grid frame whose time is at or after `t` (and after the last one stepped).
    func firstFrame(atOrAfter t: Double) -> Int {
        var k = max(nextFrame, Int(((t - origin) / Self.frameInterval).rounded(.up)))
        while k > nextFrame && time(ofFrame: k - 1) >= t { k -= 1 }
        while time(ofFrame: k) < t { k += 1 }
        return k
    }

    /// Converts a trace event into the app's input (window pixels or toggle points → page
    /// points, key names → toggle actions) and delivers it; returns the commit it caused.
    @discardableResult
    public static func deliver(_ event: TraceEvent, to app: KioskApp) -> KioskOutput? {
        switch event {
        case .key(let name, let t):
            return app.handleKey(named: name, at: t)
        case .pointer(let id, let phase, let x, let y, let device, let space, let t):
            let location: Point
            if let control = space.control {
                location = app.pagePoint(in: control, x: x, y: y)
            } else {
                location = Point(x / app.layout.scale, y / app.layout.scale)
            }
            return app.handle(PointerEvent(id: id, phase: phase, location: location, timestamp: t, device: device))
        case .system(let a, let t):
            // What the live sources report in the kiosk: animates while following the system,
            // never stores anything.
            app.setSystemAppearance(a, at: t)
            return nil
        }
    }
}
