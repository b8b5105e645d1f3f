#if canImport(Glibc)
import Glibc
#endif
import DarkModeToggle
import KioskEngine
import KioskSupport
import Raster
import Threads

/// `darkmode-kiosk bench --latency`: touch-to-screen latency with a simulated display.
///
/// The real app renders every frame (its render time — the wall time, or our threads' CPU time
/// when that is less: the render as on a core of its own — moves a virtual clock on by as much); the frame loop's pacing rules — `FramePacer`, `FrameScheduler`
/// (the same values the host's loop uses) — decide when each frame begins; the display is
/// simulated: a vblank every period at a random phase, a queued flip completing at the first
/// vblank after it was queued, a present that waits for the flip still queued before it (as
/// `DrmPresenter` does), or a display drawn in place (shown when the present returns). Taps and
/// drags arrive at random (seeded) times; `LatencyLedger` records each frame's oldest input.
///
/// Each sample is set against its floor: the first vblank after the input plus the render time
/// of the frame that showed it (`r + U(0, period)`), the render time alone when drawn in place.
public struct LatencyBench {
    public enum Display: String, Sendable, CaseIterable {
        /// Page flips at 60 Hz vblanks.
        case vblank
        /// One buffer drawn in place (DIRTYFB): on screen when the present returns.
        case inPlace = "in place"
    }

    public enum Policy: String, Sendable, CaseIterable {
        /// The loop before issue 42: a frame begins as soon as the last present returned (up to
        /// two frames in flight), the pacer's sleep is not cut short by input.
        case eager
        /// Now: at most one frame in flight, each begun as late as its vblank allows
        /// (`FrameScheduler`); input while idle or during a drawn-in-place sleep drawn at once.
        case scheduled
    }

    /// One latency sample with its floor, milliseconds.
    public struct Sample: Sendable {
        public var kind: LatencyLedger.Kind
        public var ms: Double
        public var floorMs: Double
        public var renderMs: Double
    }

    public struct Result: Sendable {
        public var display: Display
        public var policy: Policy
        public var samples: [Sample]
        public var frames: Int

        public func of(_ kind: LatencyLedger.Kind) -> [Sample] { samples.filter { $0.kind == kind } }
    }

    public var runner: BenchRunner
    public var seed: UInt64 = 1
    /// Simulated seconds per run.
    public var seconds = 120.0
    public let period = 1.0 / 60

    public init(runner: BenchRunner, seed: UInt64 = 1, seconds: Double = 120) {
        self.runner = runner
        self.seed = seed
        self.seconds = seconds
    }

    /// A seeded stream of taps and drags in the toggle's points, with the kind each event is
    /// counted as (nil: not counted, a release).
    func script(toggle: Rect) -> [(event: TraceEvent, kind: LatencyLedger.Kind?)] {
        var rng = SeededRandom(seed: seed)
        var out: [(TraceEvent, LatencyLedger.Kind?)] = []
        var t = 0.3
        let y = toggle.height / 2
        func pointer(_ phase: PointerPhase, _ x: Double, _ at: Double) -> TraceEvent {
            .pointer(id: 1, phase: phase, x: x, y: y, device: .touch, space: .toggle, t: at)
        }
        while t < seconds - 1.5 {
            if rng.chance(0.5) {
                let x = toggle.width / 2
                out.append((pointer(.down, x, t), .tap))
                out.append((pointer(.up, x, t + rng.uniform(0.06...0.14)), nil))
            } else {
                // A drag: pressed near one end, moved across and back, sampled at 120 Hz with jitter.
                let from = rng.chance(0.5) ? 0.2 : 0.8, to = 1 - from
                let length = rng.uniform(0.3...0.9)
                out.append((pointer(.down, toggle.width * from, t), .tap))
                var u = 1.0 / 120
                while u < length {
                    let f = u / length, along = f < 0.7 ? f / 0.7 : 1 - (f - 0.7) / 0.3 * 0.5
                    let x = toggle.width * (from + (to - from) * along)
                    out.append((pointer(.move, x, t + u + rng.uniform(0...0.002)), .drag))
                    u += 1.0 / 120
                }
                out.append((pointer(.up, toggle.width * (from + (to - from) * 0.5), t + length + 0.01), nil))
                t += length
            }
            t += rng.uniform(0.25...1.2)
        }
        return out.sorted { $0.0.time < $1.0.time }
    }

    public func run(display: Display, policy: Policy) -> Result {
        let app = KioskApp(options: runner.options(.tap), isDarkMode: false)
        app.incremental = !runner.fullRedraw
        let helpers = HelperLanes(helpers: runner.lanes - 1)
        if helpers.lanes > 1 { app.workers = FrameWorkers(lanes: helpers.lanes, run: helpers.run) }
        var rng = SeededRandom(seed: seed &+ 7)
        var simulation = LatencySimulation(
            app: app, size: runner.size, events: script(toggle: app.toggleFrame),
            display: display, policy: policy, period: period, phase: rng.uniform(0...period))
        // Warm the renderer (first frames build caches) off the clock.
        for i in 0..<10 { _ = app.renderFrame(at: -1 + Double(i) * period) }
        while simulation.t < seconds, simulation.waitForFrame() { simulation.frame() }
        return Result(display: display, policy: policy, samples: simulation.samples, frames: simulation.frames)
    }

    /// The table: per display, policy and kind, the latency's and the floor's percentiles and
    /// the excess of each; the goals checked.
    public static func table(_ results: [Result], period: Double) -> String {
        func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count) }
        var lines = ["latency: input → on screen, simulated display at \(fixed(1 / period, 0)) Hz (floor: the render time r plus the wait "
                     + "for the first vblank after the input, r + U(0, \(fixed(period * 1000, 1)) ms); drawn in place, r)",
                     pad("display", 10) + pad("loop", 11) + pad("kind", 6) + pad("n", 6) + pad("r p50", 7)
                     + pad("p50", 7) + pad("p95", 7) + pad("p99", 7) + pad("max", 7)
                     + pad("floor p50/p95/p99/max", 24) + "excess p50/p95/p99/max"]
        for r in results {
            for kind in LatencyLedger.Kind.allCases {
                let s = r.of(kind)
                guard let lat = LatencyLedger.Summary(milliseconds: s.map(\.ms)),
                      let floor = LatencyLedger.Summary(milliseconds: s.map(\.floorMs)),
                      let render = LatencyLedger.Summary(milliseconds: s.map(\.renderMs)) else { continue }
                let f = [floor.p50, floor.p95, floor.p99, floor.max].map { fixed($0, 1) }.joined(separator: "/")
                let e = [lat.p50 - floor.p50, lat.p95 - floor.p95, lat.p99 - floor.p99, lat.max - floor.max]
                    .map { fixed($0, 1) }.joined(separator: "/")
                lines.append(pad(r.display.rawValue, 10) + pad(r.policy.rawValue, 11) + pad(kind.rawValue, 6)
                             + pad("\(lat.count)", 6) + pad(fixed(render.p50, 1), 7)
                             + [lat.p50, lat.p95, lat.p99, lat.max].map { pad(fixed($0, 1), 7) }.joined()
                             + pad(f, 24) + e)
            }
        }
        lines.append("goals: vblank p50 <= r + 9 ms, p99 <= r + 17 ms; drawn in place p99 <= r + 2 ms (r: the p50 render time)")
        for r in results where r.policy == .scheduled {
            for kind in LatencyLedger.Kind.allCases {
                let s = r.of(kind)
                guard let lat = LatencyLedger.Summary(milliseconds: s.map(\.ms)),
                      let render = LatencyLedger.Summary(milliseconds: s.map(\.renderMs)) else { continue }
                let met: Bool, said: String
                switch r.display {
                case .vblank:
                    met = lat.p50 <= render.p50 + 9 && lat.p99 <= render.p50 + 17
                    said = "p50 - r " + fixed(lat.p50 - render.p50, 1) + " ms, p99 - r " + fixed(lat.p99 - render.p50, 1) + " ms"
                case .inPlace:
                    met = lat.p99 <= render.p50 + 2
                    said = "p99 - r " + fixed(lat.p99 - render.p50, 1) + " ms"
                }
                lines.append("  \(r.display.rawValue) \(kind.rawValue): " + said + (met ? " (met)" : " (NOT met)"))
            }
        }
        return lines.joined(separator: "\n")
    }
}
