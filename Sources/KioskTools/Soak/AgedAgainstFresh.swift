import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport
import Threads

/// The soak's drift check: the app at the end of a long run (the aged app) against a freshly
/// made app in the same state, both fed the same new random input and rendering the same
/// frames, timed in alternating blocks.
///
/// A kiosk's frames must not get slower the longer it runs. Comparing the run's first tenths
/// with its last ones answers that badly: the two ends show different content (light or dark,
/// a gesture or idle stars; with the CI seed the last tenths ran 0.82× the first ones in a
/// 60-minute release soak that had no drift at all), and they are timed minutes apart on a
/// shared machine (the ratio came out at 0.58 and 1.58 in full test runs of builds without
/// drift). Here both apps draw the very same frames and take turns every `blockFrames`
/// frames (aged first in even blocks, fresh first in odd ones), so a burst falls on both or
/// on one block of one pair, and the median over the pairs is the aged app's speed against a
/// fresh one's. What is shared by both (the process's heap, caches kept in statics) is not
/// compared here; the soak's resident-memory check covers its growth.
///
/// The same frames are also a correctness check: from the second frame on both apps must
/// report the same dirty rectangles, and at the end hold the same pixels. A long run may not
/// leave state behind that changes what the page shows.
struct AgedAgainstFresh {
    /// New random input for the comparison (the run's own stream is left where it was).
    var seed: UInt64
    /// Frames both apps render before timing starts (the fresh app fills its caches).
    var warmUpFrames = 600
    /// Timed block pairs, and frames in each block.
    var blocks = 40
    var blockFrames = 60
    /// Longest the aged app may take to come to rest after its pointers are cancelled.
    var settleLimitFrames = 1800

    struct Result {
        /// Median over the block pairs of the aged block's median frame time over the fresh
        /// block's: thread CPU and wall time.
        var cpuRatio = 0.0
        var wallRatio = 0.0
        /// Median thread CPU time of all timed frames of each app, ms.
        var agedCPUMedianMs = 0.0
        var freshCPUMedianMs = 0.0
        var blocks = 0
        /// Frames whose dirty rectangles were compared, and those that differed.
        var framesCompared = 0
        var dirtyMismatches = 0
        /// Pixels that differ between the two pages at the end.
        var differingPixels = 0
        /// Why the two apps could not be compared, if they could not.
        var setupProblem: String?
    }

    /// Runs the comparison on `aged`, starting at `time` (after its last frame). It cancels the
    /// aged app's gestures (as a focus loss would) and lets it settle first.
    func run(aged: KioskApp, from time: Double) -> Result {
        var result = Result()
        let fresh: KioskApp, start: Double
        switch pair(aged, from: time) {
        case .failure(let problem):
            result.setupProblem = problem.text
            return result
        case .success(let p): (fresh, start) = p
        }
        func driver(_ app: KioskApp) -> VirtualClockDriver {
            let f = app.layout.togglePixelFrame
            let input = RandomInteraction(seed: seed, toggle: f, pageWidth: Double(app.frame.width),
                                          pageHeight: Double(app.frame.height), start: start)
            return VirtualClockDriver(app: app, input: input, origin: start)
        }
        let drivers = [driver(aged), driver(fresh)]
        // Warm-up. The fresh app's first frame repaints what its jump from the ambient origin
        // to `start` changed; from the second on both draw from the same state.
        for k in 0..<warmUpFrames {
            let a = drivers[0].step(), f = drivers[1].step()
            if k > 0 { result.framesCompared += 1; if a.dirty != f.dirty { result.dirtyMismatches += 1 } }
        }
        timeBlocks(drivers, into: &result)
        result.differingPixels = Self.differingPixels(aged.frame, fresh.frame)
        return result
    }

    struct SetupProblem: Error { var text: String }

    /// The aged app settled, and a fresh app in its state; the time both go on from.
    private func pair(_ aged: KioskApp, from time: Double) -> Swift.Result<(KioskApp, Double), SetupProblem> {
        aged.cancelPointers(at: time)
        let settle = VirtualClockDriver(app: aged, input: TraceScript([]), origin: time)
        repeat { settle.step() } while !aged.isSettled(at: settle.lastFrameTime) && settle.framesStepped < settleLimitFrames
        guard aged.isSettled(at: settle.lastFrameTime) else {
            return .failure(SetupProblem(text: "the aged app did not come to rest within \(settleLimitFrames) frames"))
        }
        let start = settle.time(ofFrame: settle.nextFrame)
        let fresh = Self.fresh(like: aged)
        let differences = [("mode", fresh.isDarkMode == aged.isDarkMode),
                           ("preference", fresh.appearancePreference == aged.appearancePreference),
                           ("focus", fresh.focus == aged.focus && fresh.focusVisible == aged.focusVisible),
                           ("ambient origin", fresh.ambientStart == aged.ambientStart),
                           ("rest", fresh.isSettled(at: start))].filter { !$0.1 }.map(\.0)
        guard differences.isEmpty else {
            return .failure(SetupProblem(
                text: "a fresh app could not be put in the aged app's state (\(differences.joined(separator: ", ")))"))
        }
        return .success((fresh, start))
    }

    /// The timed block pairs: the same frames by the aged app (`drivers[0]`) and the fresh one,
    /// each block's medians set against each other, the dirty rectangles compared.
    private func timeBlocks(_ drivers: [VirtualClockDriver], into result: inout Result) {
        let n = blockFrames
        var cpu = [[Double]](repeating: [Double](repeating: 0, count: n), count: 2), wall = cpu
        var allCPU: [[Double]] = [[], []]
        var cpuRatios: [Double] = [], wallRatios: [Double] = []
        var firstDirty = [[IntRect]](repeating: [], count: n)
        for b in 0..<blocks {
            let order = b % 2 == 0 ? [0, 1] : [1, 0]
            for (turn, app) in order.enumerated() {
                for j in 0..<n {
                    let w0 = MonotonicClock.seconds(), c0 = Clock.threadCPU()
                    let frame = drivers[app].step()
                    let c1 = Clock.threadCPU(), w1 = MonotonicClock.seconds()
                    cpu[app][j] = (c1 - c0) * 1000
                    wall[app][j] = (w1 - w0) * 1000
                    if turn == 0 {
                        firstDirty[j] = frame.dirty
                    } else {
                        result.framesCompared += 1
                        if firstDirty[j] != frame.dirty { result.dirtyMismatches += 1 }
                    }
                }
            }
            allCPU[0] += cpu[0]; allCPU[1] += cpu[1]
            let ca = SoakRunner.medianInPlace(&cpu[0]), cf = SoakRunner.medianInPlace(&cpu[1])
            let wa = SoakRunner.medianInPlace(&wall[0]), wf = SoakRunner.medianInPlace(&wall[1])
            if cf > 0 && wf > 0 { cpuRatios.append(ca / cf); wallRatios.append(wa / wf) }
        }
        result.blocks = cpuRatios.count
        result.cpuRatio = median(cpuRatios) ?? 0
        result.wallRatio = median(wallRatios) ?? 0
        result.agedCPUMedianMs = median(allCPU[0]) ?? 0
        result.freshCPUMedianMs = median(allCPU[1]) ?? 0
    }

    /// A new app with the aged app's options, preference, system input, focus and ambient
    /// origin: what the aged app would be had it just started and shown its first frame at
    /// that origin. The focus is moved as a person moves it: Tab while the ring shows, else a
    /// tap on the control (twice on a toggle, whose taps commit, with the preference put back
    /// after); what that animates has settled long before the comparison starts.
    static func fresh(like aged: KioskApp) -> KioskApp {
        let app = KioskApp(options: aged.options, preference: aged.appearancePreference, system: aged.systemAppearance)
        var t = aged.ambientStart ?? 0
        if aged.ambientStart != nil { _ = app.renderFrame(at: t) }
        if aged.focusVisible {
            for _ in PageControl.allCases where !app.focusVisible || app.focus != aged.focus {
                app.handleKey(named: "tab", at: t)
            }
        } else if app.focus != aged.focus {
            let place = app.frame(of: aged.focus).center
            for _ in 0..<(aged.focus == .button ? 1 : 2) {
                for phase in [PointerPhase.down, .up] {
                    t += 0.05
                    app.handle(PointerEvent(id: 0, phase: phase, location: place, timestamp: t))
                }
                t += 1
            }
            app.choosePreference(aged.appearancePreference, at: t)
        }
        return app
    }

    /// Pixels that differ between two pixmaps of one size (all of them when the sizes differ).
    static func differingPixels(_ a: Pixmap, _ b: Pixmap) -> Int {
        guard a.width == b.width && a.height == b.height else { return max(a.width * a.height, b.width * b.height) }
        var count = 0
        for y in 0..<a.height {
            let ra = a.pixels + y * a.stride, rb = b.pixels + y * b.stride
            for x in 0..<a.width where ra[x] != rb[x] { count += 1 }
        }
        return count
    }
}
