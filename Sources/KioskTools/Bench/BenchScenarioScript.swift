import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport

/// The scripted input of a benchmark scenario: pointer events at virtual times, expressed in
/// toggle points so they fit any page size.
struct BenchScript {
    /// Events due in the frame interval [from, to).
    let events: (_ from: Double, _ to: Double, _ toggle: Rect) -> [PointerEvent]
    let reduceMotion: Bool

    static func make(_ scenario: BenchScenario) -> BenchScript {
        switch scenario {
        case .ambient, .all:
            return BenchScript(events: { _, _, _ in [] }, reduceMotion: false)
        case .idle:
            return BenchScript(events: { _, _, _ in [] }, reduceMotion: true)
        case .tap, .save:
            // A tap every 1.2 s: the switch and its whole settle, alternating directions.
            return BenchScript(events: periodicTaps(every: 1.2), reduceMotion: false)
        case .theme:
            // A tap every 0.6 s: the page cross-fade (0.5 s, full screen) runs most of the time.
            return BenchScript(events: periodicTaps(every: 0.6), reduceMotion: false)
        case .drag:
            return BenchScript(events: dragCycles, reduceMotion: false)
        }
    }

    static func periodicTaps(every period: Double) -> (Double, Double, Rect) -> [PointerEvent] {
        { from, to, toggle in
            var out: [PointerEvent] = []
            let center = Point(toggle.midX, toggle.midY)
            var k = (from / period).rounded(.down)
            while k * period < to {
                let down = k * period + 0.1, up = down + 0.08
                if down >= from && down < to { out.append(PointerEvent(id: 1, phase: .down, location: center, timestamp: down)) }
                if up >= from && up < to { out.append(PointerEvent(id: 1, phase: .up, location: center, timestamp: up)) }
                k += 1
            }
            return out
        }
    }

    /// A 2.4 s cycle: press near the left end, drag slowly to the right end (1 s), back to the
    /// middle (0.6 s), then flick right (0.1 s) and release; the thumb settles for the rest.
    static func dragCycles(_ from: Double, _ to: Double, _ toggle: Rect) -> [PointerEvent] {
        let period = 2.4
        var out: [PointerEvent] = []
        let y = toggle.midY
        let left = toggle.minX + toggle.width * 0.2, right = toggle.minX + toggle.width * 0.8, mid = toggle.midX
        // Finger position along the cycle, sampled at 120 Hz (a touch panel's rate).
        func x(at u: Double) -> Double {
            if u < 1.0 { return left + (right - left) * u }
            if u < 1.6 { return right + (mid - right) * (u - 1.0) / 0.6 }
            return mid + (right - mid) * min(1, (u - 1.6) / 0.1)
        }
        var t = (from * 120).rounded(.up) / 120
        while t < to {
            let u = t.truncatingRemainder(dividingBy: period)
            let tick = (u * 120).rounded()
            if tick == 0 {
                out.append(PointerEvent(id: 1, phase: .down, location: Point(x(at: 0), y), timestamp: t))
            } else if u < 1.7 {
                out.append(PointerEvent(id: 1, phase: .move, location: Point(x(at: u), y), timestamp: t))
            } else if tick == (1.7 * 120).rounded() {
                out.append(PointerEvent(id: 1, phase: .up, location: Point(x(at: u), y), timestamp: t))
            }
            t += 1.0 / 120
        }
        return out
    }
}
