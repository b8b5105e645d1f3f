import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport

/// Times the toggle component alone (the component's targets): a frame drawn from scratch (every
/// piece rasterized and blurred anew) and a cached frame where only the ambient clock moved,
/// at a component width of 520 px, one core. Medians of `frames` frames after a warm-up.
public enum ComponentBenchmark {
    public struct Result: Sendable {
        public var width: Int
        public var style: ToggleStyle = .original
        public var scratchMedianMs: Double
        public var cachedMedianMs: Double
    }

    public static let scratchTargetMs = 2.0
    public static let cachedTargetMs = 0.5

    public static func run(width: Int = 520, frames: Int = 60, style: ToggleStyle = .original) -> Result {
        let renderer = style.makeRenderer(width: Double(width), scale: 1)
        let pad = 64
        let pix = Pixmap(width: width + 2 * pad, height: Int(Double(width) * 80 / 130) + 2 * pad)
        let canvas = Canvas(pix)
        func frame(_ i: Int) -> ToggleFrame {
            ToggleFrame(appearance: 0, position: 0, ambient: Ambient.state(time: Double(i) / 60, reduceMotion: false))
        }
        func medianMs(_ cached: Bool) -> Double {
            var times: [Double] = []
            for i in 0..<(frames + 5) {
                pix.fill(pix.bounds, with: PageTheme.standard.light.premultiplied8.packed)
                let t0 = Clock.monotonic()
                renderer.draw(frame(i), on: canvas, origin: (pad, pad), cached: cached)
                let t1 = Clock.monotonic()
                if i >= 5 { times.append((t1 - t0) * 1000) }
            }
            return median(times) ?? 0
        }
        return Result(width: width, style: style, scratchMedianMs: medianMs(false), cachedMedianMs: medianMs(true))
    }

    public static func table(_ r: Result) -> String {
        func row(_ name: String, _ ms: Double, _ target: Double) -> String {
            let value = fixed(ms, 3)
            let v = String(repeating: " ", count: max(0, 8 - value.count)) + value + " ms  target ≤" + fixed(target, 1)
                + " ms  " + (ms <= target ? "ok" : "MISS")
            return name + String(repeating: " ", count: max(1, 40 - name.count)) + v
        }
        return "component at \(r.width) px (median)" + (r.style == .original ? "" : ", style \(r.style.rawValue)") + "\n"
            + row("toggle frame from scratch", r.scratchMedianMs, scratchTargetMs) + "\n"
            + row("toggle frame cached (ambient only)", r.cachedMedianMs, cachedTargetMs)
    }
}
