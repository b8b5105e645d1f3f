import DarkModeToggle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Raster
import KioskEngine
import KioskSupport

/// `darkmode-kiosk bench`: the real app and renderer on a virtual 60 Hz clock, with no
/// display. Each frame is timed from input delivery through update and render to the
/// "present" copy of the dirty rectangles into a second frame (what an SDL texture upload
/// would move). The first frames are a warm-up and are not counted.
public struct BenchRunner {
    public static let budgetMs = 1000.0 / 60
    public static let defaultFrames = 600
    public static let warmUpFrames = 30

    public var size: PixelSize
    public var scale: Double
    public var frames: Int
    public var fullRedraw: Bool

    public init(size: PixelSize = PixelSize(width: 1920, height: 1080), scale: Double = 2,
                frames: Int = BenchRunner.defaultFrames, fullRedraw: Bool = false) {
        self.size = size
        self.scale = scale
        self.frames = frames
        self.fullRedraw = fullRedraw
    }

    public struct ScenarioResult: Equatable, Sendable {
        public var name: String
        public var frames: Int
        public var fullRedraw: Bool
        /// Wall-clock frame times, milliseconds.
        public var p50, p95, p99, max: Double
        /// Thread CPU time per frame, milliseconds (p50).
        public var cpuP50: Double
        public var overBudget: Int
        public var pixelsPerFrame: Double
        /// CPU time / wall time available at 60 fps.
        public var cpuShare: Double
    }

    public func run(_ scenario: BenchScenario, onCommit: (KioskOutput) -> Void = { _ in }) -> ScenarioResult {
        let script = BenchScript.make(scenario)
        let app = KioskApp(options: KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale,
                                                 reduceMotion: script.reduceMotion),
                           isDarkMode: false)
        app.incremental = !fullRedraw
        let presented = Pixmap(width: size.width, height: size.height)
        let toggle = app.toggleFrame
        var wall: [Double] = [], cpu: [Double] = []
        wall.reserveCapacity(frames); cpu.reserveCapacity(frames)
        var pixels = 0
        let dt = 1.0 / 60
        for i in 0..<(frames + Self.warmUpFrames) {
            let t0 = Double(i) * dt, t1 = t0 + dt
            let w0 = Clock.monotonic(), c0 = Clock.threadCPU()
            for e in script.events(t0, t1, toggle) { if let c = app.handle(e) { onCommit(c) } }
            let dirty = app.renderFrame(at: t1)
            for r in dirty { presented.copy(r, from: app.frame) }
            let w1 = Clock.monotonic(), c1 = Clock.threadCPU()
            guard i >= Self.warmUpFrames else { continue }
            wall.append((w1 - w0) * 1000)
            cpu.append((c1 - c0) * 1000)
            pixels += dirty.reduce(0) { $0 + $1.area }
        }
        let sorted = wall.sorted()
        func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))] }
        return ScenarioResult(
            name: scenario.rawValue, frames: frames, fullRedraw: fullRedraw,
            p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), max: sorted.last ?? 0,
            cpuP50: median(cpu) ?? 0,
            overBudget: wall.filter { $0 > Self.budgetMs }.count,
            pixelsPerFrame: Double(pixels) / Double(frames),
            cpuShare: cpu.reduce(0, +) / (Double(frames) * Self.budgetMs))
    }

    /// Human-readable table.
    public static func table(_ results: [ScenarioResult], size: PixelSize, scale: Double, peakRSSMB: Double) -> String {
        var lines = ["darkmode-kiosk bench: \(size.width)x\(size.height) @ \(scale)x, frame budget 16.67 ms",
                     pad("scenario", 9) + pad("frames", 7) + pad("p50 ms", 9) + pad("p95 ms", 9) + pad("p99 ms", 9)
                        + pad("max ms", 9) + pad("cpu p50", 9) + pad(">16.7", 7) + pad("px/frame", 11) + "cpu@60Hz"]
        for r in results {
            lines.append(pad(r.name + (r.fullRedraw ? "*" : ""), 9) + pad("\(r.frames)", 7) + pad(f3(r.p50), 9)
                         + pad(f3(r.p95), 9) + pad(f3(r.p99), 9) + pad(f3(r.max), 9) + pad(f3(r.cpuP50), 9)
                         + pad("\(r.overBudget)", 7) + pad(String(Int(r.pixelsPerFrame.rounded())), 11)
                         + fixed(r.cpuShare * 100, 1) + "%")
        }
        if results.contains(where: \.fullRedraw) { lines.append("* --full-redraw: every frame from scratch, no caches, whole page") }
        lines.append("peak RSS " + fixed(peakRSSMB, 1) + " MB")
        return lines.joined(separator: "\n")
    }

    /// The `--json` document.
    public static func json(_ results: [ScenarioResult], size: PixelSize, scale: Double, peakRSSMB: Double) -> String {
        func n(_ d: Double) -> JSONValue { .number(JSONNumber((d * 1000).rounded() / 1000) ?? JSONNumber(0)!) }
        var root = JSONObject()
        root["size"] = .array([n(Double(size.width)), n(Double(size.height))])
        root["scale"] = n(scale)
        root["scenarios"] = .array(results.map { r in
            var o = JSONObject()
            o["name"] = .string(r.name)
            o["frames"] = n(Double(r.frames))
            o["full_redraw"] = .bool(r.fullRedraw)
            var ms = JSONObject()
            ms["p50"] = n(r.p50); ms["p95"] = n(r.p95); ms["p99"] = n(r.p99); ms["max"] = n(r.max)
            o["ms"] = .object(ms)
            o["over_budget"] = n(Double(r.overBudget))
            o["pixels_per_frame"] = n(r.pixelsPerFrame)
            o["cpu_share"] = n(r.cpuShare)
            return .object(o)
        })
        root["peak_rss_mb"] = n(peakRSSMB)
        return JSONWriter.pretty(.object(root))
    }

    private static func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count) }
    private static func f3(_ d: Double) -> String { fixed(d, 3) }
}

/// `darkmode-kiosk bench` front end.
public enum BenchCommand {
    public static func run(_ o: BenchOptions, output: (String) -> Void) throws(KioskError) {
        let size = o.size ?? PixelSize(width: 1920, height: 1080)
        let scale = o.scale ?? 2
        let runner = BenchRunner(size: size, scale: scale, frames: o.frames ?? BenchRunner.defaultFrames, fullRedraw: o.fullRedraw)
        let results = try o.scenario.expanded.map { s throws(KioskError) in s == .save ? try BenchSaveScenario.run(runner, output: output) : runner.run(s) }
        let rss = Clock.peakRSSMB()
        output(BenchRunner.table(results, size: size, scale: scale, peakRSSMB: rss))
        if let path = o.jsonPath {
            do {
                try AtomicFileWriter().write(Array((BenchRunner.json(results, size: size, scale: scale, peakRSSMB: rss) + "\n").utf8), to: path)
            } catch {
                throw .runtime("bench: cannot write \(path): \(error)")
            }
        }
    }
}
