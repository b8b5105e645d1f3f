import DarkModeToggle
import Foundation
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// The virtual-clock driver: idle stretches are skipped in replay without changing anything a
/// replay reports, and `replay --frames` describes each rendered frame.
@Suite struct VirtualClockDriverTests {
    static func key(at t: Double) -> [TraceEvent] { [.key(name: "space", t: t)] }

    /// `--frames` lines of a replay, parsed, with the other lines kept in order.
    static func replayLines(_ events: [TraceEvent], size: PixelSize = PixelSize(width: 400, height: 300), scale: Double = 1,
                            skip: Bool = true, reduceMotion: Bool = false) -> (lines: [String], result: ReplayRunner.Result) {
        var lines: [String] = []
        var runner = ReplayRunner(size: size, scale: scale, reduceMotion: reduceMotion)
        runner.skipIdleFrames = skip
        runner.frameLines = true
        let result = runner.run(events, initialDark: false, emit: { lines.append($0) })
        return (lines, result)
    }

    static func object(_ line: String) throws -> JSONObject {
        try #require(try StrictJSONParser.parse(line).objectValue, "not an object: \(line)")
    }

    /// One key press late in a long trace costs the frames of its animation, not of the wait:
    /// at t = 600 s and at t = 86 400 s (the longest trace time README documents) the replay
    /// renders the same number of frames as at t = 1 s, a few dozen.
    @Test func aLateEventCostsNoIdleFrames() {
        let early = ReplayRunner(size: PixelSize(width: 400, height: 300)).run(Self.key(at: 1), initialDark: false)
        let minutes = ReplayRunner(size: PixelSize(width: 400, height: 300)).run(Self.key(at: 600), initialDark: false)
        let day = ReplayRunner(size: PixelSize(width: 400, height: 300)).run(Self.key(at: 86_400), initialDark: false)
        for r in [early, minutes, day] {
            #expect(r.commits.map(\.value) == [true])
            #expect(r.progress == 1)
        }
        #expect(abs(minutes.frames - early.frames) <= 1, "\(minutes.frames) vs \(early.frames)")
        #expect(abs(day.frames - early.frames) <= 1, "\(day.frames) vs \(early.frames)")
        #expect(day.frames < 120, "\(day.frames) frames rendered for one key press")
        // Without skipping, the same trace steps through every 60 Hz frame of the wait.
        var everyFrame = ReplayRunner(size: PixelSize(width: 400, height: 300), renderFrames: false)
        everyFrame.skipIdleFrames = false
        let full = everyFrame.run(Self.key(at: 600), initialDark: false)
        #expect(full.frames > 36_000)
        #expect(full.commits.map(\.value) == [true] && full.progress == 1)
    }

    /// Skipping changes nothing a replay reports: on random input with idle pauses, the
    /// commits and final state are the same, and every frame line of the skipping replay
    /// equals the line of the same frame in a replay that renders every frame (so also its
    /// dirty pixel count), with and without Reduce Motion.
    @Test(arguments: [(UInt64(3), false), (UInt64(4), true)])
    func skippingIdleFramesChangesNoOutput(seed: UInt64, reduceMotion: Bool) throws {
        let size = PixelSize(width: 400, height: 300)
        // Pauses of up to 10 s between gestures: idle stretches to skip.
        let events = RandomTraceTests.trace(count: 150, seed: seed, size: size, maxIdle: 10)
        let skipping = Self.replayLines(events, size: size, skip: true, reduceMotion: reduceMotion)
        let every = Self.replayLines(events, size: size, skip: false, reduceMotion: reduceMotion)
        #expect(skipping.result.commits.count > 3)
        #expect(skipping.result.commits.elementsEqual(every.result.commits) { $0.t == $1.t && $0.value == $1.value })
        #expect(skipping.result.isDarkMode == every.result.isDarkMode && skipping.result.progress == every.result.progress)
        #expect(skipping.result.frames < every.result.frames, "\(skipping.result.frames) of \(every.result.frames)")
        var everyByFrame: [Int: String] = [:]
        for line in every.lines where line.hasPrefix("{\"frame\":") {
            everyByFrame[try Self.object(line)["frame"]!.wholeNumber!] = line
        }
        var compared = 0, previous = -1, longestGap = 0, afterGaps = 0
        for line in skipping.lines where line.hasPrefix("{\"frame\":") {
            let n = try Self.object(line)["frame"]!.wholeNumber!
            if n - previous > 1, var mine = try? Self.object(line), var theirs = try? Self.object(everyByFrame[n] ?? "") {
                // The first frame after a skipped stretch redraws what changed since the last
                // drawn frame (more clouds moved over the stretch than in one frame): its
                // dirty pixel count may differ; everything else is the same.
                #expect(mine["dirtyPixels"] != nil && theirs["dirtyPixels"] != nil, "frame \(n)")
                mine["dirtyPixels"] = nil
                theirs["dirtyPixels"] = nil
                #expect(mine == theirs, "frame \(n)")
                afterGaps += 1
            } else {
                #expect(everyByFrame[n] == line, "frame \(n)")
            }
            longestGap = max(longestGap, n - previous - 1)
            previous = n
            compared += 1
        }
        #expect(afterGaps < compared / 4, "\(afterGaps) of \(compared) frames follow a skipped stretch")
        #expect(compared == skipping.result.frames)
        // Whole idle seconds were skipped, not just the odd frame.
        #expect(longestGap > 60, "longest skipped stretch \(longestGap) frames")
        // The other lines (layout, commits, final) are identical and in the same order.
        #expect(skipping.lines.filter { !$0.hasPrefix("{\"frame\":") } == every.lines.filter { !$0.hasPrefix("{\"frame\":") })
    }

    /// `replay --frames` on the tap trace: one line per rendered frame, in time order, before
    /// the commit; positions never go back until the thumb first reaches the dark end (the
    /// spring then wobbles under 1 by less than 0.1 % of the travel while it settles — the
    /// clamp stops only the overshoot), the appearance ends at 1, and celestialX is where
    /// the sun (then the moon) is drawn: the metrics' exact position within half a sub-pixel
    /// step, moving right as the position grows.
    @Test func frameLinesDescribeTheTap() throws {
        let events = try TraceReplayTests.events("tap")
        let scale = 2.0
        let (lines, result) = Self.replayLines(events, size: PixelSize(width: 800, height: 600), scale: scale)
        #expect(result.commits.map(\.value) == [true])
        let app = KioskApp(options: KioskOptions(pixelWidth: 800, pixelHeight: 600, scale: scale), isDarkMode: false)
        let metrics = app.layout.metrics, origin = app.layout.toggleOrigin
        var frames: [JSONObject] = []
        var commitIndex: Int?
        for line in lines.dropFirst().dropLast() {
            let o = try Self.object(line)
            if o["commit"] != nil {
                commitIndex = frames.count
                // Every frame before the commit line is earlier than the commit.
                #expect(frames.allSatisfy { $0["t"]!.doubleValue! < o["t"]!.doubleValue! })
            } else {
                #expect(o.keys == ["frame", "t", "position", "appearance", "celestialX", "dirtyPixels"])
                if let i = commitIndex, i == frames.count {
                    #expect(o["t"]!.doubleValue! >= 0.08, "the first frame after the commit line is not earlier than it")
                }
                frames.append(o)
            }
        }
        #expect(commitIndex != nil)
        #expect(frames.count == result.frames)
        var previous: (n: Int, q: Double, x: Double)?
        var reachedEnd = false
        for f in frames {
            let n = f["frame"]!.wholeNumber!, t = f["t"]!.doubleValue!
            let q = f["position"]!.doubleValue!, p = f["appearance"]!.doubleValue!
            let x = f["celestialX"]!.doubleValue!
            #expect(abs(t - Double(n) / 60) < 1e-6, "frame \(n) at \(t)")
            #expect((0...1).contains(q) && (0...1).contains(p))
            let body = p < 0.5 ? ToggleArt.sun : ToggleArt.moon
            let exact = Double(origin.x) + metrics.celestialOriginX(position: q) * scale
                + body.shape.rect.minX * metrics.celestialScale * scale
            #expect(abs(x - exact) <= 1.0 / 16 + 1e-6, "frame \(n): celestialX \(x), exact \(exact)")
            if let prev = previous {
                #expect(n > prev.n)
                if reachedEnd {
                    #expect(q >= 0.999, "position fell back to \(q) at frame \(n) after reaching the end")
                } else {
                    #expect(q >= prev.q, "position went back at frame \(n)")
                }
                if q > prev.q + 0.01 { #expect(x > prev.x, "sun did not move right at frame \(n)") }
                if q != prev.q { #expect(f["dirtyPixels"]!.wholeNumber! > 0) }
            }
            previous = (n, q, x)
            if q == 1 { reachedEnd = true }
        }
        let last = try #require(frames.last)
        #expect(last["appearance"]!.doubleValue! == 1 && last["position"]!.doubleValue! == 1)
        // The sun travelled: from the light end to the dark end.
        #expect(frames.first!["position"]!.doubleValue! == 0)
        #expect(last["celestialX"]!.doubleValue! - frames.first!["celestialX"]!.doubleValue! > 100)
    }

    /// Through the binary: `replay --frames` prints the lines, README documents the flag.
    @Test func replayFramesThroughTheBinary() throws {
        let dir = TempFolder()
        let trace = dir.file("late.jsonl")
        writeText(#"{"t": 86400, "type": "key", "key": "space"}"# + "\n", to: trace)
        let out = try runKiosk(["replay", trace, "--frames", "--size", "400x300"], in: dir)
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\n").map(String.init)
        let frameLines = lines.filter { $0.hasPrefix("{\"frame\":") }
        #expect(frameLines.count > 10 && frameLines.count < 120, "\(frameLines.count) frame lines")
        #expect(lines.contains(#"{"t":86400,"commit":true,"appearance":"dark"}"#))
        #expect(lines.last?.hasPrefix(#"{"final":{"isDarkMode":true"#) == true)
        let readme = try String(contentsOf: SynopsisTests.readme, encoding: .utf8)
        #expect(readme.contains("`--frames` adds one line per rendered frame"))
    }

    /// The driver's grid: frame k is at origin + k/60 whichever frames were skipped, and the
    /// first frame at or after a time is found exactly.
    @Test func frameGridIsComputedNotAccumulated() {
        let app = KioskApp(options: KioskOptions(pixelWidth: 300, pixelHeight: 200), isDarkMode: false)
        let driver = VirtualClockDriver(app: app, input: TraceScript([]), origin: -0.5, renders: false)
        for t in [-0.5, -0.49, 0, 1.0 / 60, 10, 600, 86_400, 86_400.0001] {
            let k = driver.firstFrame(atOrAfter: t)
            #expect(driver.time(ofFrame: k) >= t)
            #expect(k == 0 || driver.time(ofFrame: k - 1) < t, "t = \(t): frame \(k)")
        }
    }
}

/// `bench` prints the yardstick (fill + copy of one frame) and every scenario as a ratio to it.
@Suite struct BenchYardstickTests {
    /// A small page's bench of `frames` frames of `scenario`.
    static func options(frames: Int, scenario: BenchScenario) -> BenchOptions {
        var o = BenchOptions()
        o.size = PixelSize(width: 320, height: 200)
        o.scale = 1
        o.frames = frames
        o.scenario = scenario
        return o
    }

    @Test func tableAndJSONCarryTheYardstickRatios() throws {
        let dir = TempFolder()
        var o = Self.options(frames: 20, scenario: .tap)
        o.jsonPath = dir.file("bench.json")
        var printed: [String] = []
        try BenchCommand.run(o) { printed.append($0) }
        let table = printed.joined(separator: "\n")
        #expect(table.contains("yardstick: fill + copy of one 320x200 frame, p50 "))
        #expect(table.contains("p50/yd") && table.contains("p99/yd"))
        let text = try #require(readText(dir.file("bench.json")))
        let doc = try #require(try StrictJSONParser.parse(text).objectValue)
        let yd = try #require(doc["yardstick"]?.objectValue?["ms"]?.objectValue)
        let yardP50 = try #require(yd["p50"]?.doubleValue)
        #expect(yardP50 > 0)
        let scenario = try #require(doc["scenarios"]?.arrayValue?.first?.objectValue)
        let ms = try #require(scenario["ms"]?.objectValue), ratio = try #require(scenario["yardstick_ratio"]?.objectValue)
        for key in ["p50", "p99"] {
            // The times and the ratio are each written rounded to 0.001, the ratio from the
            // unrounded times: it lies in the interval the rounded times allow, widened by its own
            // rounding. (A tiny page's yardstick is ~0.01 ms, so its rounding alone moves the
            // ratio by several per cent: the bounds come from interval arithmetic, not a guess.)
            let half = 0.0005
            let time = ms[key]!.doubleValue!, written = ratio[key]!.doubleValue!
            let lowest = max(time - half, 0) / (yardP50 + half) - half
            #expect(written >= lowest, "\(key): \(written) below \(lowest) (\(time) ms / \(yardP50) ms)")
            if yardP50 > half {
                let highest = (time + half) / (yardP50 - half) + half
                #expect(written <= highest, "\(key): \(written) above \(highest) (\(time) ms / \(yardP50) ms)")
            }
        }
        // The table's row carries the same p50 ratio (two decimals).
        let row = try #require(table.split(separator: "\n").first { $0.hasPrefix("tap ") })
        let columns = row.split(separator: " ")
        #expect(columns.count >= 8)
    }

    /// The DRM presenter's present cost (a whole frame copied into a buffer in each display
    /// format) is in the table and the JSON beside the yardstick, taken in the same slices.
    @Test func drmPresentCostPerFormat() throws {
        let dir = TempFolder()
        var o = Self.options(frames: 5, scenario: .idle)
        o.jsonPath = dir.file("bench.json")
        var printed: [String] = []
        try BenchCommand.run(o) { printed.append($0) }
        let table = printed.joined(separator: "\n")
        let line = try #require(table.split(separator: "\n").first { $0.hasPrefix("drm present: copy of one 320x200 frame") })
        #expect(line.contains("XRGB8888 p50 ") && line.contains("RGB565 p50 "), "\(line)")
        let text = try #require(readText(dir.file("bench.json")))
        let doc = try #require(try StrictJSONParser.parse(text).objectValue)
        let drm = try #require(doc["drm_present"]?.objectValue)
        for format in ["xrgb8888", "rgb565"] {
            let entry = try #require(drm[format]?.objectValue, "\(format)")
            let p50 = try #require(entry["ms"]?.objectValue?["p50"]?.doubleValue)
            #expect(p50 > 0, "\(format)")
            // One scenario: a slice before it and one after, 20 rounds each.
            #expect(entry["repetitions"]?.doubleValue == 40, "\(format)")
            #expect((entry["yardstick_ratio"]?.doubleValue ?? 0) > 0, "\(format)")
        }
    }

    /// `--frames-json`: every counted frame in order, the same frames the table summarises.
    @Test func framesJSONHoldsEveryCountedFrame() throws {
        let dir = TempFolder()
        var o = Self.options(frames: 90, scenario: .theme)
        o.lanes = 1
        o.framesJSONPath = dir.file("frames.json")
        var printed: [String] = []
        try BenchCommand.run(o) { printed.append($0) }
        let text = try #require(readText(dir.file("frames.json")))
        let doc = try #require(try StrictJSONParser.parse(text).objectValue)
        #expect(doc["threads"]?.wholeNumber == 1)
        let scenario = try #require(doc["scenarios"]?.arrayValue?.first?.objectValue)
        #expect(scenario["name"]?.stringValue == "theme")
        let wall = (scenario["wall_ms"]?.arrayValue ?? []).compactMap { $0.doubleValue }
        let cpu = (scenario["cpu_ms"]?.arrayValue ?? []).compactMap { $0.doubleValue }
        let pixels = (scenario["pixels"]?.arrayValue ?? []).compactMap { $0.wholeNumber }
        #expect(wall.count == 90 && cpu.count == 90 && pixels.count == 90)
        #expect(wall.allSatisfy { $0 > 0 })
        // A tap every 0.6 s in 1.5 s: the page cross-fades (every pixel) in some frames, not all.
        #expect(pixels.contains(320 * 200) && pixels.contains { $0 < 320 * 200 })
        // The table's pixels per frame is these frames' mean.
        let row = try #require(printed.joined(separator: "\n").split(separator: "\n").first { $0.hasPrefix("theme ") })
        let columns = row.split(separator: " ")
        #expect(Int(columns[columns.count - 2]) == Int((Double(pixels.reduce(0, +)) / 90).rounded()))
    }

    @Test func yardstickTimesAFullFrame() {
        let small = BenchRunner.measureYardstick(size: PixelSize(width: 64, height: 64), repetitions: 30)
        let large = BenchRunner.measureYardstick(size: PixelSize(width: 1920, height: 1080), repetitions: 30)
        #expect(small.p50 > 0 && small.p99 >= small.p50 && small.repetitions == 30)
        // 500 times the pixels: the big frame cannot be as cheap as the small one.
        #expect(large.p50 > small.p50 * 5, "\(large.p50) ms vs \(small.p50) ms")
    }
}

extension JSONValue {
    /// A number that is a whole number, as an Int.
    var wholeNumber: Int? { doubleValue.flatMap { $0 == $0.rounded() ? Int($0) : nil } }
}
