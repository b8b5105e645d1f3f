import Log
import DarkModeToggle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Raster
import KioskEngine
import KioskSupport
import Text
import Threads

/// `darkmode-kiosk bench`: the real app and renderer on a virtual 60 Hz clock, with no
/// display. Each frame is timed from input delivery through update and render to the
/// "present" copy of the dirty rectangles into a second frame (what an SDL upload moves, with
/// the presenters' copy: `Pixmap.presentCopy`, large rectangles streamed past the caches),
/// made band by band as the app finishes them (`KioskApp.renderFrame(at:present:)`, as the
/// SDL host presents). The first frames are a warm-up and are not counted.
public struct BenchRunner {
    public static let budgetMs = 1000.0 / 60
    public static let defaultFrames = 600
    public static let warmUpFrames = 30

    public var size: PixelSize
    public var scale: Double
    public var frames: Int
    public var fullRedraw: Bool
    /// The page as configured (colours, toggle width, background images), nil: the defaults.
    public var page: ConfiguredPage?
    /// The labels and who shapes them (the real typesetter: the page's text costs what it
    /// costs in the kiosk). Without a typesetter the labels are estimated and not drawn.
    public var strings: PageStrings
    public var typesetter: LabelTypesetter?
    /// Threads that draw a frame (the caller's and helpers, `KioskApp.workers`).
    public var lanes = 1

    public init(size: PixelSize = PixelSize(width: 1920, height: 1080), scale: Double = 2,
                frames: Int = BenchRunner.defaultFrames, fullRedraw: Bool = false,
                strings: PageStrings = .english, typesetter: LabelTypesetter? = nil) {
        self.size = size
        self.scale = scale
        self.frames = frames
        self.fullRedraw = fullRedraw
        self.strings = strings
        self.typesetter = typesetter
    }

    /// The app's options for a scenario.
    func options(_ scenario: BenchScenario) -> KioskOptions {
        var o = page?.options(pixelWidth: size.width, pixelHeight: size.height, scale: scale, strings: strings, typesetter: typesetter)
            ?? KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale, strings: strings, typesetter: typesetter)
        o.reduceMotion = scenario == .idle
        return o
    }

    public struct ScenarioResult: Equatable, Sendable {
        public var name: String
        public var frames: Int
        public var fullRedraw: Bool
        /// Wall-clock frame times, milliseconds.
        public var p50, p95, p99, max: Double
        /// CPU time per frame of every thread (helper lanes included), milliseconds (p50).
        public var cpuP50: Double
        public var overBudget: Int
        public var pixelsPerFrame: Double
        /// CPU time / wall time available at 60 fps.
        public var cpuShare: Double
        /// Every counted frame in order (`bench --frames-json`).
        public var samples: [FrameSample] = []
    }

    /// One counted frame: wall and CPU time (milliseconds) and the pixels it changed.
    public struct FrameSample: Equatable, Sendable {
        public var wallMs: Double
        public var cpuMs: Double
        public var pixels: Int
    }

    public func run(_ scenario: BenchScenario, onCommit: @escaping (KioskOutput) -> Void = { _ in }) -> ScenarioResult {
        let app = KioskApp(options: options(scenario), isDarkMode: false)
        app.incremental = !fullRedraw
        let helpers = HelperLanes(helpers: lanes - 1)
        if helpers.lanes > 1 { app.workers = FrameWorkers(lanes: helpers.lanes, run: helpers.run) }
        let script = BenchScript.make(scenario, toggle: app.toggleFrame)
        let driver = VirtualClockDriver(app: app, input: script)
        driver.onEvent = { if let output = $0.output { onCommit(output) } }
        let presented = Pixmap(width: size.width, height: size.height)
        var samples: [FrameSample] = []
        samples.reserveCapacity(frames)
        for i in 0..<(frames + Self.warmUpFrames) {
            // One frame: input delivery, update, render, and the "present" copy.
            let w0 = MonotonicClock.seconds(), c0 = Clock.processCPU()
            // The app hands each finished band to the copy while its rows are in the cache.
            let dirty = driver.step(present: { presented.presentCopy($0, from: app.frame) }).dirty
            let w1 = MonotonicClock.seconds(), c1 = Clock.processCPU()
            guard i >= Self.warmUpFrames else { continue }
            samples.append(FrameSample(wallMs: (w1 - w0) * 1000, cpuMs: (c1 - c0) * 1000,
                                       pixels: dirty.reduce(0) { $0 + $1.area }))
        }
        let cpu = samples.map(\.cpuMs), pixels = samples.reduce(0) { $0 + $1.pixels }
        let sorted = samples.map(\.wallMs).sorted()
        return ScenarioResult(
            name: scenario.rawValue, frames: frames, fullRedraw: fullRedraw,
            p50: percentile(sorted: sorted, 0.5) ?? 0, p95: percentile(sorted: sorted, 0.95) ?? 0,
            p99: percentile(sorted: sorted, 0.99) ?? 0, max: sorted.last ?? 0,
            cpuP50: median(cpu) ?? 0,
            overBudget: sorted.filter { $0 > Self.budgetMs }.count,
            pixelsPerFrame: Double(pixels) / Double(frames),
            cpuShare: cpu.reduce(0, +) / (Double(frames) * Self.budgetMs),
            samples: samples)
    }

    /// The memory yardstick for "every pixel changes and is presented": fill one frame of the
    /// benchmarked size with a solid colour and copy it once into a second frame — the app's
    /// fill kernel (`Pixmap.fill`) and the plain copy (`Pixmap.copy`). The presenters' streamed
    /// copy (`Pixmap.presentCopy`) measured the same in this loop (p50 0.41-0.43 ms against
    /// 0.39-0.44, 1920x1080, three runs each): the yardstick stays what the issue set. Wall-clock times of
    /// its rounds, milliseconds. `bench` takes them in slices before every scenario and after
    /// the last, so a machine whose speed drifts during the run (shared cores, other tenants'
    /// memory traffic) moves the yardstick with the scenarios it divides.
    public struct Yardstick: Equatable, Sendable {
        public var p50: Double
        public var p99: Double
        public var repetitions: Int

        public init(p50: Double, p99: Double, repetitions: Int) {
            self.p50 = p50
            self.p99 = p99
            self.repetitions = repetitions
        }

        /// From round times (milliseconds).
        public init(rounds: [Double]) {
            let sorted = rounds.sorted()
            self.init(p50: percentile(sorted: sorted, 0.5) ?? 0, p99: percentile(sorted: sorted, 0.99) ?? 0,
                      repetitions: rounds.count)
        }
    }

    public static func measureYardstick(size: PixelSize, repetitions: Int = 120) -> Yardstick {
        Yardstick(rounds: yardstickRounds(size: size, repetitions: repetitions))
    }

    /// `repetitions` timed rounds of the yardstick after a short warm-up, milliseconds.
    public static func yardstickRounds(size: PixelSize, repetitions: Int) -> [Double] {
        let a = Pixmap(width: size.width, height: size.height), b = Pixmap(width: size.width, height: size.height)
        let colors: [UInt32] = [0xFFF2_F2F7, 0xFF1C_1C1E]
        var times: [Double] = []
        times.reserveCapacity(repetitions)
        for i in 0..<(repetitions + 5) {
            let w0 = MonotonicClock.seconds()
            a.fill(a.bounds, with: colors[i % 2])
            b.copy(b.bounds, from: a)
            let w1 = MonotonicClock.seconds()
            if i >= 5 { times.append((w1 - w0) * 1000) }
        }
        return times
    }

    /// The DRM framebuffer presenter's present cost: one whole frame of the benchmarked size
    /// copied into a buffer in a display's pixel format (`Pixmap.presentCopy(_:into:pitch:format:)`:
    /// red and blue swapped for XRGB8888, packed to 16 bits for RGB565, streamed past the caches),
    /// the copy and conversion `DrmPresenter` makes into a mapped dumb buffer. The buffer here
    /// is ordinary memory with a dumb buffer's 64-byte row alignment: a real mapping may be
    /// write-combined or uncached device memory, slower to write. A whole frame is the worst
    /// case (a cross-fade); most frames copy only their dirty rectangles. Round times in ms.
    public static func drmPresentRounds(size: PixelSize, format: ScanoutFormat, repetitions: Int) -> [Double] {
        let page = Pixmap(width: size.width, height: size.height)
        let pitch = (size.width * format.bytesPerPixel + 63) / 64 * 64
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: pitch * size.height, alignment: 64)
        defer { buffer.deallocate() }
        let colors: [UInt32] = [0xFFF2_F2F7, 0xFF1C_1C1E]
        var times: [Double] = []
        times.reserveCapacity(repetitions)
        for i in 0..<(repetitions + 5) {
            page.fill(page.bounds, with: colors[i % 2])
            let w0 = MonotonicClock.seconds()
            page.presentCopy(page.bounds, into: buffer, pitch: pitch, format: format)
            let w1 = MonotonicClock.seconds()
            if i >= 5 { times.append((w1 - w0) * 1000) }
        }
        return times
    }

    /// The DRM present cost per format (`drmPresentRounds`), summarised like the yardstick.
    public typealias DrmPresentCost = [(format: ScanoutFormat, cost: Yardstick)]

    /// The table's lines for the DRM present cost, each with its ratio to the yardstick.
    static func drmPresentLines(_ costs: DrmPresentCost, size: PixelSize, yardstick: Yardstick) -> [String] {
        guard !costs.isEmpty else { return [] }
        return ["drm present: copy of one \(size.width)x\(size.height) frame into a buffer in the display's format: "
                + costs.map { "\($0.format.name) p50 " + f3($0.cost.p50) + " ms (" + fixed(ratio($0.cost.p50, yardstick), 2)
                    + " yd), p99 " + f3($0.cost.p99) + " ms" }.joined(separator: "; ")]
    }

    /// Human-readable table. The two ratio columns are p50 and p99 over the yardstick's p50.
    public static func table(_ results: [ScenarioResult], size: PixelSize, scale: Double, yardstick: Yardstick,
                             peakRSSMB: Double, withText: Bool = true, lanes: Int = 1,
                             drmPresent: DrmPresentCost = []) -> String {
        var lines = ["darkmode-kiosk bench: \(size.width)x\(size.height) @ \(scale)x, \(lanes) thread\(lanes == 1 ? "" : "s"), frame budget 16.67 ms, "
                        + (withText ? "the full page (labels and button text via HarfBuzz/FreeType)" : "the page WITHOUT text (no fonts found)"),
                     "yardstick: fill + copy of one \(size.width)x\(size.height) frame, p50 " + f3(yardstick.p50)
                        + " ms, p99 " + f3(yardstick.p99) + " ms (\(yardstick.repetitions) rounds around the scenarios)"]
            + drmPresentLines(drmPresent, size: size, yardstick: yardstick)
            + [pad("scenario", 9) + pad("frames", 7) + pad("p50 ms", 9) + pad("p95 ms", 9) + pad("p99 ms", 9)
                        + pad("max ms", 9) + pad("p50/yd", 8) + pad("p99/yd", 8) + pad("cpu p50", 9) + pad(">16.7", 7)
                        + pad("px/frame", 11) + "cpu@60Hz"]
        for r in results {
            lines.append(pad(r.name + (r.fullRedraw ? "*" : ""), 9) + pad("\(r.frames)", 7) + pad(f3(r.p50), 9)
                         + pad(f3(r.p95), 9) + pad(f3(r.p99), 9) + pad(f3(r.max), 9)
                         + pad(fixed(ratio(r.p50, yardstick), 2), 8) + pad(fixed(ratio(r.p99, yardstick), 2), 8)
                         + pad(f3(r.cpuP50), 9)
                         + pad("\(r.overBudget)", 7) + pad(String(Int(r.pixelsPerFrame.rounded())), 11)
                         + fixed(r.cpuShare * 100, 1) + "%")
        }
        if results.contains(where: \.fullRedraw) { lines.append("* --full-redraw: every frame from scratch, no caches, whole page") }
        lines.append("peak RSS " + fixed(peakRSSMB, 1) + " MB")
        return lines.joined(separator: "\n")
    }

    /// A frame time over the yardstick's p50.
    static func ratio(_ ms: Double, _ yardstick: Yardstick) -> Double { yardstick.p50 > 0 ? ms / yardstick.p50 : .nan }

    /// The `--json` document.
    public static func json(_ results: [ScenarioResult], size: PixelSize, scale: Double, yardstick: Yardstick,
                            peakRSSMB: Double, withText: Bool = true, lanes: Int = 1,
                            drmPresent: DrmPresentCost = []) -> String {
        func n(_ d: Double) -> JSONValue { .number(JSONNumber(rounded(d, places: 3)) ?? JSONNumber(0)!) }
        var root = JSONObject()
        root["size"] = .array([n(Double(size.width)), n(Double(size.height))])
        root["scale"] = n(scale)
        root["text"] = .bool(withText)
        root["threads"] = n(Double(lanes))
        var yd = JSONObject()
        yd["what"] = .string("fill + copy of one frame of the benchmarked size")
        var yms = JSONObject()
        yms["p50"] = n(yardstick.p50); yms["p99"] = n(yardstick.p99)
        yd["ms"] = .object(yms)
        yd["repetitions"] = n(Double(yardstick.repetitions))
        root["yardstick"] = .object(yd)
        if !drmPresent.isEmpty {
            var drm = JSONObject()
            drm["what"] = .string("copy of one frame of the benchmarked size into a buffer in the display's pixel format (the DRM presenter's present)")
            for (format, cost) in drmPresent {
                var o = JSONObject(), ms = JSONObject()
                ms["p50"] = n(cost.p50); ms["p99"] = n(cost.p99)
                o["ms"] = .object(ms)
                o["yardstick_ratio"] = n(ratio(cost.p50, yardstick))
                o["repetitions"] = n(Double(cost.repetitions))
                drm[format.rawValue] = .object(o)
            }
            root["drm_present"] = .object(drm)
        }
        root["scenarios"] = .array(results.map { r in
            var o = JSONObject()
            o["name"] = .string(r.name)
            o["frames"] = n(Double(r.frames))
            o["full_redraw"] = .bool(r.fullRedraw)
            var ms = JSONObject()
            ms["p50"] = n(r.p50); ms["p95"] = n(r.p95); ms["p99"] = n(r.p99); ms["max"] = n(r.max)
            o["ms"] = .object(ms)
            var ratios = JSONObject()
            ratios["p50"] = n(ratio(r.p50, yardstick)); ratios["p99"] = n(ratio(r.p99, yardstick))
            o["yardstick_ratio"] = .object(ratios)
            o["over_budget"] = n(Double(r.overBudget))
            o["pixels_per_frame"] = n(r.pixelsPerFrame)
            o["cpu_share"] = n(r.cpuShare)
            return .object(o)
        })
        root["peak_rss_mb"] = n(peakRSSMB)
        return JSONWriter.pretty(.object(root))
    }

    /// The `--frames-json` document: every counted frame of every scenario, in order, to see
    /// where in a motion the slow frames fall (a cross-fade's first frames, a flick's last).
    public static func framesJSON(_ results: [ScenarioResult], size: PixelSize, scale: Double, lanes: Int) -> String {
        func n(_ d: Double) -> JSONValue { .number(JSONNumber(rounded(d, places: 4)) ?? JSONNumber(0)!) }
        var root = JSONObject()
        root["size"] = .array([n(Double(size.width)), n(Double(size.height))])
        root["scale"] = n(scale)
        root["threads"] = n(Double(lanes))
        root["scenarios"] = .array(results.map { r in
            var o = JSONObject()
            o["name"] = .string(r.name)
            o["full_redraw"] = .bool(r.fullRedraw)
            o["wall_ms"] = .array(r.samples.map { n($0.wallMs) })
            o["cpu_ms"] = .array(r.samples.map { n($0.cpuMs) })
            o["pixels"] = .array(r.samples.map { n(Double($0.pixels)) })
            return .object(o)
        })
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
        let (runner, text) = try makeRunner(o, size: size, scale: scale, output: output)
        // The yardstick in slices around the scenarios (40 rounds before each and after the
        // last; its two frames are freed before each scenario starts).
        // The DRM present cost in slices beside them (20 rounds per format each time).
        var rounds: [Double] = []
        var drmRounds: [ScanoutFormat: [Double]] = [:]
        func slice() {
            rounds += BenchRunner.yardstickRounds(size: size, repetitions: 40)
            for f in ScanoutFormat.allCases { drmRounds[f, default: []] += BenchRunner.drmPresentRounds(size: size, format: f, repetitions: 20) }
        }
        let results = try o.scenario.expanded.map { s throws(KioskError) in
            slice()
            return s == .save ? try BenchSaveScenario.run(runner, output: output) : runner.run(s)
        }
        let rss = Clock.peakRSSMB()
        slice()
        let yardstick = BenchRunner.Yardstick(rounds: rounds)
        let drmPresent = ScanoutFormat.allCases.map { ($0, BenchRunner.Yardstick(rounds: drmRounds[$0] ?? [])) }
        output(BenchRunner.table(results, size: size, scale: scale, yardstick: yardstick, peakRSSMB: rss,
                                 withText: text.typesetter != nil, lanes: runner.lanes, drmPresent: drmPresent))
        if let path = o.jsonPath {
            do {
                try OutputFile.write(Array((BenchRunner.json(results, size: size, scale: scale, yardstick: yardstick, peakRSSMB: rss,
                                                             withText: text.typesetter != nil, lanes: runner.lanes,
                                                             drmPresent: drmPresent) + "\n").utf8), to: path)
            } catch {
                throw .runtime("bench --json: \(error)")
            }
        }
        let latency = o.latency ? runLatency(runner, seed: o.seed, output: output) : []
        if let path = o.plotPath {
            let title = "darkmode-kiosk bench: \(size.width)x\(size.height) @ \(scale)x, \(runner.lanes) thread\(runner.lanes == 1 ? "" : "s"); "
                + "yardstick p50 " + fixed(yardstick.p50, 3) + " ms" + (o.latency ? "; latency seed \(o.seed)" : "")
            try plot(results, latency: latency, title: title, text: text.typesetter, to: path)
            output("plot: " + path)
        }
        if let path = o.framesJSONPath {
            do {
                try OutputFile.write(Array((BenchRunner.framesJSON(results, size: size, scale: scale, lanes: runner.lanes) + "\n").utf8),
                                     to: path)
            } catch {
                throw .runtime("bench --frames-json: \(error)")
            }
        }
    }

    /// The runner on the real page: the config's colours and images, labels typeset as the kiosk
    /// does (English unless the config names a language; never the locale, so runs compare).
    private static func makeRunner(_ o: BenchOptions, size: PixelSize, scale: Double,
                                   output: (String) -> Void) throws(KioskError)
        -> (BenchRunner, (strings: PageStrings, typesetter: LabelTypesetter?)) {
        var runner = BenchRunner(size: size, scale: scale, frames: o.frames ?? BenchRunner.defaultFrames, fullRedraw: o.fullRedraw)
        runner.lanes = o.lanes ?? HelperLanes.defaultLanes()
        let page = try ConfiguredPage.load(configPath: o.configPath, language: nil, environment: [:])
        let text = PageText.make(language: page.language, warn: { Log.warning("bench: " + $0) })
        runner.page = page
        runner.strings = text.strings
        runner.typesetter = text.typesetter
        output("page: " + (text.typesetter == nil ? "labels estimated, not drawn (no fonts)" : "labels typeset (\(page.language.tag))")
               + ", background images: " + (page.background.map(PageBackgroundFile.summary) ?? "none"))
        return (runner, text)
    }

    /// `--latency`: every display with every loop policy, then the table.
    private static func runLatency(_ runner: BenchRunner, seed: UInt64, output: (String) -> Void) -> [LatencyBench.Result] {
        let bench = LatencyBench(runner: runner, seed: seed)
        var results: [LatencyBench.Result] = []
        for display in LatencyBench.Display.allCases {
            for policy in LatencyBench.Policy.allCases { results.append(bench.run(display: display, policy: policy)) }
        }
        output(LatencyBench.table(results, period: bench.period))
        return results
    }

    /// `--plot FILE.png`.
    private static func plot(_ results: [BenchRunner.ScenarioResult], latency: [LatencyBench.Result], title: String,
                             text: LabelTypesetter?, to path: String) throws(KioskError) {
        let picture = BenchPlot.draw(results, latency: latency, title: title, text: text)
        do {
            try OutputFile.write(try PNG.encode(picture), to: path)
        } catch {
            throw .runtime("bench --plot: \(path): \(error)")
        }
    }
}
