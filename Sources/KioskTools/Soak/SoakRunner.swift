import Log
#if canImport(Glibc)
import Glibc
#endif
import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport
import Threads

/// A long run of random interaction through the real app: `RandomInteraction` input, the
/// interaction engine, motion, the page cross-fade and `KioskApp.renderFrame` on a full page,
/// at 60 frames per simulated second, as fast as the machine allows.
///
/// It measures what a kiosk left on for days needs: resident memory after a warm-up (it must
/// stay flat) and the time each frame takes (it must not drift upwards), and checks the
/// engine's invariants at every frame (appearance within 0…1, positions finite, dirty
/// rectangles on the page, one commit per accepted gesture at most).
///
/// Drift is measured after the run by `AgedAgainstFresh`: the aged app and a fresh one in the
/// same state render the same frames in alternating blocks (the same frames, timed side by
/// side, so neither the content nor a shared machine's bursts tell them apart), and both must
/// show the same dirty rectangles and pixels. The run's own frame times are still reported, as
/// six windows of a tenth of the run each (the three after the warm-up and the last three,
/// each end's figure the median of its fastest window), for information: the two ends show
/// different content at different moments, so their ratio wanders (0.58–1.58 in full test
/// runs, 0.82 in a 60-minute release run without drift) and is no verdict. The windows' frame
/// times go into buffers made before the warm-up ends, so measuring does not grow memory.
public struct SoakRunner {
    public static let frameInterval = VirtualClockDriver.frameInterval

    public var size: PixelSize
    public var scale: Double
    public var simulatedSeconds: Double
    public var seed: UInt64
    /// Longest idle pause between random gestures, seconds.
    public var maxIdle: Double
    /// Resident memory is sampled every this many frames after the warm-up.
    public var sampleEvery: Int
    /// Timed block pairs of the aged-against-fresh comparison (60 frames a block).
    public var driftBlocks = 40

    public init(size: PixelSize = PixelSize(width: 1280, height: 800), scale: Double = 1,
                simulatedSeconds: Double, seed: UInt64 = 1, maxIdle: Double = 3, sampleEvery: Int = 300) {
        self.size = size
        self.scale = scale
        self.simulatedSeconds = simulatedSeconds
        self.seed = seed
        self.maxIdle = maxIdle
        self.sampleEvery = sampleEvery
    }

    /// Total frames of the run.
    public var frameCount: Int { max(100, Int((simulatedSeconds / Self.frameInterval).rounded())) }
    /// Frames before measurement starts (caches filled, allocator settled): 5 %, at least 300.
    public var warmUpFrames: Int { min(frameCount / 2, max(300, frameCount / 20)) }
    /// Frames in each measured window (a tenth of the run).
    public var windowFrames: Int { max(10, frameCount / 10) }
    /// Measured windows at each end of the run.
    public static let windowsPerEnd = 3

    /// The median of `v` (the mean of the middle two for an even count, as `median` gives it),
    /// found by selection in place, reordering `v`: nothing is allocated while the soak watches
    /// its resident memory.
    static func medianInPlace(_ v: inout [Double]) -> Double {
        let n = v.count
        guard n > 0 else { return 0 }
        // The k-th smallest by Hoare's selection; afterwards nothing before index k is larger.
        func select(_ k: Int) -> Double {
            var lo = 0, hi = n - 1
            while lo < hi {
                let pivot = v[(lo + hi) / 2]
                var i = lo, j = hi
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while v[j] > pivot { j -= 1 }
                    if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
                }
                if k <= j { hi = j } else if k >= i { lo = i } else { break }
            }
            return v[k]
        }
        let upper = select(n / 2)
        guard n % 2 == 0 else { return upper }
        var lower = v[0]
        for x in v[0..<(n / 2)] { lower = max(lower, x) }
        return (lower + upper) / 2
    }

    /// Runs the soak. `progress` is called about every simulated minute with (frame, total).
    public func run(progress: ((Int, Int) -> Void)? = nil) -> SoakReport {
        let app = KioskApp(options: KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale),
                           isDarkMode: false)
        let input = RandomInteraction(seed: seed, toggle: app.layout.togglePixelFrame,
                                      pageWidth: Double(size.width), pageHeight: Double(size.height), maxIdle: maxIdle)
        let driver = VirtualClockDriver(app: app, input: input)
        let total = frameCount, warm = warmUpFrames
        var windows = EndWindows(total: total, warmUp: warm, window: windowFrames, perEnd: Self.windowsPerEnd)
        var report = SoakReport(frames: total, simulatedSeconds: Double(total) * Self.frameInterval, seed: seed,
                                width: size.width, height: size.height)
        driver.onEvent = { d in report.count(d, isDarkMode: app.isDarkMode) }
        let bounds = app.frame.bounds
        let wallStart = MonotonicClock.seconds()
        for i in 0..<total {
            let w0 = MonotonicClock.seconds(), c0 = Clock.threadCPU()
            let frame = driver.step()
            let c1 = Clock.threadCPU(), w1 = MonotonicClock.seconds()
            report.check(frame.dirty, state: app.visualState(at: frame.time), page: bounds)
            windows.record(frame: i, cpuMs: (c1 - c0) * 1000, wallMs: (w1 - w0) * 1000)
            if i == warm - 1 {
                report.rssAfterWarmUpKB = ProcessMemory.residentKB() ?? 0
                report.rssPeakKB = report.rssAfterWarmUpKB
            } else if i >= warm && (i % sampleEvery == 0 || i == total - 1) {
                let rss = ProcessMemory.residentKB() ?? 0
                report.rssPeakKB = max(report.rssPeakKB, rss)
                report.rssEndKB = rss
            }
            if let progress, i % 3600 == 0 { progress(i, total) }
        }
        driver.onEvent = nil
        report.wallSeconds = MonotonicClock.seconds() - wallStart
        report.isDarkMode = app.isDarkMode
        report.engineCommitCount = app.commitCount
        report.firstCPUMedianMs = windows.firstCPU.min() ?? 0
        report.lastCPUMedianMs = windows.lastCPU.min() ?? 0
        report.firstWallMedianMs = windows.firstWall.min() ?? 0
        report.lastWallMedianMs = windows.lastWall.min() ?? 0
        report.windowsPerEnd = windows.perEnd
        // The drift check, after the memory samples (the fresh app is not the soak's growth).
        report.record(AgedAgainstFresh(seed: seed &+ 1, blocks: driftBlocks)
            .run(aged: app, from: driver.time(ofFrame: driver.nextFrame)))
        return report
    }

    /// The frame times of the windows at the two ends of the run, each window reduced to its
    /// medians as it fills; every buffer is made up front, so recording allocates nothing.
    struct EndWindows {
        let window: Int
        /// Windows per end (at least one each on a short run; the ends never overlap).
        let perEnd: Int
        let firstStart: Int
        let lastStart: Int
        private var cpu: [Double], wall: [Double]
        private(set) var firstCPU: [Double], lastCPU: [Double], firstWall: [Double], lastWall: [Double]

        init(total: Int, warmUp: Int, window: Int, perEnd most: Int) {
            self.window = window
            perEnd = max(1, min(most, (total - warmUp) / (2 * window)))
            firstStart = warmUp
            lastStart = total - perEnd * window
            cpu = [Double](repeating: 0, count: window)
            wall = cpu
            firstCPU = [Double](repeating: 0, count: perEnd)
            lastCPU = firstCPU
            firstWall = firstCPU
            lastWall = firstCPU
        }

        mutating func record(frame i: Int, cpuMs: Double, wallMs: Double) {
            let start = i >= lastStart ? lastStart : i >= firstStart && i < firstStart + perEnd * window ? firstStart : nil
            guard let start else { return }
            let k = (i - start) / window, slot = (i - start) % window
            cpu[slot] = cpuMs
            wall[slot] = wallMs
            guard slot == window - 1 else { return }
            let c = SoakRunner.medianInPlace(&cpu), w = SoakRunner.medianInPlace(&wall)
            if start == lastStart { lastCPU[k] = c; lastWall[k] = w } else { firstCPU[k] = c; firstWall[k] = w }
        }
    }
}

extension SoakReport {
    /// One delivered event's commits: at most one each, alternating.
    mutating func count(_ d: VirtualClockDriver.Delivery, isDarkMode: Bool) {
        events += 1
        // The engine's count catches a second commit the return value could not carry.
        if d.engineCommits > 1 { multipleCommitsPerEvent += 1 }
        guard d.output != nil else { return }
        if isDarkMode == (lastCommit ?? false) { nonAlternatingCommits += 1 }
        lastCommit = isDarkMode
        commits += 1
    }

    /// The engine's invariants at one frame.
    mutating func check(_ dirty: [IntRect], state: ToggleVisualState, page: IntRect) {
        if !(0...1).contains(state.appearance) || !state.position.isFinite { badVisualStates += 1 }
        maxPositionOvershoot = max(maxPositionOvershoot, -state.position, state.position - 1)
        if dirty.contains(where: { !page.contains($0) }) { dirtyOutsidePage += 1 }
        pixelsDrawn += dirty.reduce(0) { $0 + $1.area }
    }

    mutating func record(_ drift: AgedAgainstFresh.Result) {
        cpuDriftRatio = drift.cpuRatio
        wallDriftRatio = drift.wallRatio
        agedCPUMedianMs = drift.agedCPUMedianMs
        freshCPUMedianMs = drift.freshCPUMedianMs
        driftBlocks = drift.blocks
        driftFramesCompared = drift.framesCompared
        driftDirtyMismatches = drift.dirtyMismatches
        driftDifferingPixels = drift.differingPixels
        driftSetupProblem = drift.setupProblem
    }
}

/// What a soak run measured and found.
public struct SoakReport: Equatable, Sendable {
    public var frames: Int
    public var simulatedSeconds: Double
    public var seed: UInt64
    public var width: Int
    public var height: Int
    public var events = 0
    public var commits = 0
    /// The engine's own count (must equal `commits`).
    public var engineCommitCount = 0
    public var isDarkMode = false
    public var lastCommit: Bool? = nil
    /// Events that produced more than one commit (must be 0).
    public var multipleCommitsPerEvent = 0
    /// Commits that repeated the previous committed value (must be 0).
    public var nonAlternatingCommits = 0
    /// Frames whose appearance left 0…1 or whose position was not finite (must be 0).
    public var badVisualStates = 0
    /// Largest distance of the celestial position outside 0…1 (spring overshoot).
    public var maxPositionOvershoot = 0.0
    /// Dirty rectangles reported outside the page (must be 0).
    public var dirtyOutsidePage = 0
    public var pixelsDrawn = 0
    public var rssAfterWarmUpKB = 0
    public var rssPeakKB = 0
    public var rssEndKB = 0
    /// Thread CPU time per frame (ms): the median of the fastest of the first measured windows
    /// (tenths of the run, `windowsPerEnd` of them) and of the fastest of the last ones.
    /// Information only: the two ends show different content (see `SoakRunner`).
    public var firstCPUMedianMs = 0.0
    public var lastCPUMedianMs = 0.0
    /// Windows measured at each end.
    public var windowsPerEnd = 0
    /// Wall time per frame, the same way (ms).
    public var firstWallMedianMs = 0.0
    public var lastWallMedianMs = 0.0
    public var wallSeconds = 0.0
    /// The drift check (`AgedAgainstFresh`): the median over block pairs of the aged app's
    /// median frame time over the fresh app's on the same frames, thread CPU and wall.
    public var cpuDriftRatio = 0.0
    public var wallDriftRatio = 0.0
    /// Median thread CPU time of every timed frame of the aged and of the fresh app, ms.
    public var agedCPUMedianMs = 0.0
    public var freshCPUMedianMs = 0.0
    /// Block pairs timed, frames whose dirty rectangles were compared, those that differed
    /// (must be 0), and pixels that differ at the end (must be 0).
    public var driftBlocks = 0
    public var driftFramesCompared = 0
    public var driftDirtyMismatches = 0
    public var driftDifferingPixels = 0
    /// Why the aged app could not be compared with a fresh one, if it could not (must be nil).
    public var driftSetupProblem: String?

    public init(frames: Int, simulatedSeconds: Double, seed: UInt64, width: Int, height: Int) {
        self.frames = frames
        self.simulatedSeconds = simulatedSeconds
        self.seed = seed
        self.width = width
        self.height = height
    }

    /// Peak resident memory after the warm-up minus resident memory at its end, kilobytes.
    public var rssGrowthKB: Int { rssPeakKB - rssAfterWarmUpKB }
    /// The last windows' median frame CPU time over the first windows' (each end's fastest
    /// window; information only).
    public var tenthsCPURatio: Double { firstCPUMedianMs > 0 ? lastCPUMedianMs / firstCPUMedianMs : 0 }
    public var tenthsWallRatio: Double { firstWallMedianMs > 0 ? lastWallMedianMs / firstWallMedianMs : 0 }

    /// Problems against the limits (RSS growth under `rssLimitKB`, the aged-over-fresh CPU ratio
    /// within 1/`driftLimit`…`driftLimit`, the aged and the fresh app drawing the same, and every
    /// invariant counter zero); empty when all is well.
    public func problems(rssLimitKB: Int = 1024, driftLimit: Double = 1.5) -> [String] {
        var p: [String] = []
        if rssGrowthKB >= rssLimitKB { p.append("resident memory grew by \(rssGrowthKB) KB after the warm-up (limit \(rssLimitKB) KB)") }
        if let driftSetupProblem {
            p.append("drift not measured: \(driftSetupProblem)")
        } else {
            if cpuDriftRatio > driftLimit || cpuDriftRatio < 1 / driftLimit {
                p.append("frames of the aged app took \(Self.f3(cpuDriftRatio))× a fresh app's CPU time on the same frames (\(Self.f3(agedCPUMedianMs)) ms against \(Self.f3(freshCPUMedianMs)) ms; limit \(driftLimit))")
            }
            if driftDirtyMismatches > 0 {
                p.append("\(driftDirtyMismatches) of \(driftFramesCompared) frames redrew other rectangles in the aged app than in a fresh one")
            }
            if driftDifferingPixels > 0 { p.append("\(driftDifferingPixels) pixels differ between the aged app's page and a fresh one's") }
        }
        if multipleCommitsPerEvent > 0 { p.append("\(multipleCommitsPerEvent) events committed more than once") }
        if nonAlternatingCommits > 0 { p.append("\(nonAlternatingCommits) commits repeated the committed value") }
        if commits != engineCommitCount { p.append("\(commits) commits seen but the engine counted \(engineCommitCount)") }
        if isDarkMode != (lastCommit ?? false) { p.append("final mode \(isDarkMode) is not the last commit") }
        if badVisualStates > 0 { p.append("\(badVisualStates) frames had appearance outside 0…1 or a non-finite position") }
        if dirtyOutsidePage > 0 { p.append("\(dirtyOutsidePage) dirty rectangles fell outside the page") }
        if events == 0 || commits == 0 { p.append("the run saw no input or no commits (\(events) events, \(commits) commits)") }
        return p
    }

    /// The report as one compact JSON line.
    public var jsonLine: String {
        func n(_ d: Double) -> JSONValue { .number(JSONNumber(rounded(d, places: 6)) ?? JSONNumber(0)!) }
        func i(_ v: Int) -> JSONValue { n(Double(v)) }
        var o = JSONObject()
        o["frames"] = i(frames); o["simulated_seconds"] = n(simulatedSeconds); o["seed"] = .string(String(seed))
        o["size"] = .array([i(width), i(height)])
        o["events"] = i(events); o["commits"] = i(commits); o["engine_commits"] = i(engineCommitCount)
        o["is_dark_mode"] = .bool(isDarkMode)
        o["multiple_commits_per_event"] = i(multipleCommitsPerEvent)
        o["non_alternating_commits"] = i(nonAlternatingCommits)
        o["bad_visual_states"] = i(badVisualStates)
        o["max_position_overshoot"] = n(maxPositionOvershoot)
        o["dirty_outside_page"] = i(dirtyOutsidePage)
        o["pixels_drawn"] = i(pixelsDrawn)
        o["rss_after_warm_up_kb"] = i(rssAfterWarmUpKB); o["rss_peak_kb"] = i(rssPeakKB); o["rss_end_kb"] = i(rssEndKB)
        o["rss_growth_kb"] = i(rssGrowthKB)
        o["first_cpu_median_ms"] = n(firstCPUMedianMs); o["last_cpu_median_ms"] = n(lastCPUMedianMs)
        o["tenths_cpu_ratio"] = n(tenthsCPURatio)
        o["first_wall_median_ms"] = n(firstWallMedianMs); o["last_wall_median_ms"] = n(lastWallMedianMs)
        o["tenths_wall_ratio"] = n(tenthsWallRatio)
        o["windows_per_end"] = i(windowsPerEnd)
        o["cpu_drift_ratio"] = n(cpuDriftRatio); o["wall_drift_ratio"] = n(wallDriftRatio)
        o["aged_cpu_median_ms"] = n(agedCPUMedianMs); o["fresh_cpu_median_ms"] = n(freshCPUMedianMs)
        o["drift_blocks"] = i(driftBlocks); o["drift_frames_compared"] = i(driftFramesCompared)
        o["drift_dirty_mismatches"] = i(driftDirtyMismatches); o["drift_differing_pixels"] = i(driftDifferingPixels)
        o["drift_setup_problem"] = driftSetupProblem.map(JSONValue.string) ?? .null
        o["wall_seconds"] = n(wallSeconds)
        return JSONWriter.compact(.object(o))
    }

    /// A short human summary.
    public var summary: String {
        """
        soak: \(frames) frames (\(Self.f3(simulatedSeconds / 60)) simulated minutes) on \(width)x\(height) in \(Self.f3(wallSeconds)) s, \(events) events, \(commits) commits
        memory: \(rssAfterWarmUpKB) KB after warm-up, peak \(rssPeakKB) KB, end \(rssEndKB) KB (growth \(rssGrowthKB) KB)
        frame CPU median (the fastest of \(windowsPerEnd) tenths at each end; other content, information only): first \(Self.f3(firstCPUMedianMs)) ms, last \(Self.f3(lastCPUMedianMs)) ms (ratio \(Self.f3(tenthsCPURatio)))
        drift, aged app against a fresh one on the same frames (\(driftBlocks) block pairs): CPU \(Self.f3(agedCPUMedianMs)) against \(Self.f3(freshCPUMedianMs)) ms, ratio \(Self.f3(cpuDriftRatio)) (wall \(Self.f3(wallDriftRatio))); \(driftDirtyMismatches) of \(driftFramesCompared) frames redrew differently, \(driftDifferingPixels) pixels differ\(driftSetupProblem.map { "; not measured: " + $0 } ?? "")
        """
    }

    static func f3(_ d: Double) -> String { fixed(d, 3) }
}

/// `darkmode-kiosk soak --minutes N`: runs `SoakRunner` for `minutes`
/// simulated minutes, prints the summary and the JSON report line, and fails (exit 1) when a
/// limit is exceeded.
public enum SoakCommand {
    public static func run(minutes: Double, seed: UInt64 = 1, size: PixelSize = PixelSize(width: 1280, height: 800),
                           scale: Double = 1, output: (String) -> Void) throws(KioskError) {
        guard minutes.isFinite, minutes > 0, minutes <= 7 * 24 * 60 else {
            throw .usage("soak: expected a duration in minutes in 0…10080, found \(minutes)")
        }
        let report = SoakRunner(size: size, scale: scale, simulatedSeconds: minutes * 60, seed: seed).run { frame, total in
            Log.info("soak: frame \(frame) of \(total)")
        }
        output(report.summary)
        output(report.jsonLine)
        let problems = report.problems()
        if !problems.isEmpty { throw .runtime("soak failed: " + problems.joined(separator: "; ")) }
    }
}
