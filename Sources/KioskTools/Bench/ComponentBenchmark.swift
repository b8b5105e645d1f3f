import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport
import Threads

/// Times the toggle component alone (the component's targets): a frame drawn from scratch (every
/// piece rasterized and blurred anew), a cached frame where only the ambient clock moved, and
/// (no target) a cached frame of a tap's cross-fade,
/// at a component width of 520 px, one core. Medians of `frames` frames after a warm-up.
public enum ComponentBenchmark {
    public struct Result: Sendable {
        public var width: Int
        public var style: ToggleStyle = .original
        public var scratchMedianMs: Double
        public var cachedMedianMs: Double
        /// A cached frame while the appearance cross-fades (a tap's animation): every layer at an
        /// appearance between 0 and 1, the sun and moon sliding.
        public var crossFadeMedianMs: Double
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
        /// 16 states of a tap's cross-fade, from 5 % to 95 %, visited in turn.
        let fadeSteps = 16
        func fading(_ i: Int) -> ToggleFrame {
            let u = 0.05 + 0.9 * Double(i % fadeSteps) / Double(fadeSteps - 1)
            return ToggleFrame(appearance: u, position: u, ambient: Ambient.state(time: Double(i) / 60, reduceMotion: false))
        }
        func medianMs(_ cached: Bool, _ frame: (Int) -> ToggleFrame, warmUp: Int = 5) -> Double {
            var times: [Double] = []
            for i in 0..<(frames + warmUp) {
                pix.fill(pix.bounds, with: PageTheme.standard.light.premultiplied8.packed)
                let t0 = MonotonicClock.seconds()
                renderer.draw(frame(i), on: canvas, origin: (pad, pad), cached: cached)
                let t1 = MonotonicClock.seconds()
                if i >= warmUp { times.append((t1 - t0) * 1000) }
            }
            return median(times) ?? 0
        }
        return Result(width: width, style: style, scratchMedianMs: medianMs(false, frame), cachedMedianMs: medianMs(true, frame),
                      crossFadeMedianMs: medianMs(true, fading, warmUp: fadeSteps))
    }

    public static func table(_ r: Result) -> String {
        func row(_ name: String, _ ms: Double, _ target: Double?) -> String {
            let value = fixed(ms, 3)
            var v = String(repeating: " ", count: max(0, 8 - value.count)) + value + " ms"
            if let target { v += "  target ≤" + fixed(target, 1) + " ms  " + (ms <= target ? "ok" : "MISS") }
            return name + String(repeating: " ", count: max(1, 40 - name.count)) + v
        }
        return "component at \(r.width) px (median)" + (r.style == .original ? "" : ", style \(r.style.rawValue)") + "\n"
            + row("toggle frame from scratch", r.scratchMedianMs, scratchTargetMs) + "\n"
            + row("toggle frame cached (ambient only)", r.cachedMedianMs, cachedTargetMs) + "\n"
            + row("toggle frame cached (cross-fading)", r.crossFadeMedianMs, nil)
    }
}
