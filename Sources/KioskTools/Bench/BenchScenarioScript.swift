import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport

/// The scripted input of a benchmark scenario: an endless stream of pointer events at virtual
/// times, in the toggle's own points (`TraceSpace.toggle`) so it fits any page size.
struct BenchScript: InputScript {
    enum Kind {
        case none
        /// A tap (down, up 80 ms later) every `period` seconds, 0.1 s into each period.
        case taps(period: Double)
        /// `dragCycles`: press, slow drag, back, flick, settle; every 2.4 s.
        case drags
    }

    let kind: Kind
    /// The toggle's size in points.
    let width: Double, height: Double
    /// Events generated but not yet consumed, and the next period (tap or drag cycle) to generate.
    private var pending: [TraceEvent] = []
    private var pendingIndex = 0
    private var period = 0

    init(kind: Kind, toggle: Rect) {
        self.kind = kind
        width = toggle.width
        height = toggle.height
    }

    static func make(_ scenario: BenchScenario, toggle: Rect) -> BenchScript {
        switch scenario {
        case .ambient, .all:
            return BenchScript(kind: .none, toggle: toggle)
        case .idle:
            // No input, with Reduce Motion (set on the app): nothing moves at all.
            return BenchScript(kind: .none, toggle: toggle)
        case .tap, .save:
            // A tap every 1.2 s: the switch and its whole settle, alternating directions.
            return BenchScript(kind: .taps(period: 1.2), toggle: toggle)
        case .theme:
            // A tap every 0.6 s: the page cross-fade (0.5 s, full screen) runs most of the time.
            return BenchScript(kind: .taps(period: 0.6), toggle: toggle)
        case .drag:
            return BenchScript(kind: .drags, toggle: toggle)
        }
    }

    mutating func nextTime() -> Double? {
        if pendingIndex >= pending.count { refill() }
        return pendingIndex < pending.count ? pending[pendingIndex].time : nil
    }

    mutating func next() -> TraceEvent {
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private func pointer(_ phase: PointerPhase, x: Double, t: Double) -> TraceEvent {
        .pointer(id: 1, phase: phase, x: x, y: height / 2, device: .touch, space: .toggle, t: t)
    }

    /// Generates the events of the next period.
    private mutating func refill() {
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        defer { period += 1 }
        switch kind {
        case .none:
            return
        case .taps(let p):
            let down = Double(period) * p + 0.1
            pending = [pointer(.down, x: width / 2, t: down), pointer(.up, x: width / 2, t: down + 0.08)]
        case .drags:
            pending = Self.dragCycle(start: Double(period) * Self.dragPeriod, width: width).map {
                pointer($0.phase, x: $0.x, t: $0.t)
            }
        }
    }

    static let dragPeriod = 2.4

    /// One 2.4 s cycle from `start`: press near the left end, drag slowly to the right end (1 s),
    /// back to the middle (0.6 s), then flick right (0.1 s) and release; the thumb settles for
    /// the rest. The finger is sampled at 120 Hz (a touch panel's rate).
    static func dragCycle(start: Double, width: Double) -> [(phase: PointerPhase, x: Double, t: Double)] {
        let left = width * 0.2, right = width * 0.8, mid = width / 2
        func x(at u: Double) -> Double {
            if u < 1.0 { return left + (right - left) * u }
            if u < 1.6 { return right + (mid - right) * (u - 1.0) / 0.6 }
            return mid + (right - mid) * min(1, (u - 1.6) / 0.1)
        }
        let release = 204   // 1.7 s at 120 Hz
        return (0...release).map { tick in
            let u = Double(tick) / 120
            let phase: PointerPhase = tick == 0 ? .down : tick == release ? .up : .move
            return (phase, x(at: u), start + u)
        }
    }
}
