import Log
import CSDL2
import KioskSupport

/// Watches the frame loop: told about every presented frame and the end of the loop.
protocol FrameObserver: AnyObject {
    /// A frame began at `start` and was presented at `end` (host clock seconds); `interval`
    /// is the time since the previous presented frame of the same animation burst; `workStart`
    /// when the loop pass that made it woke up (its events, commits included, came first).
    func framePresented(start: Double, end: Double, interval: Double?, isFirst: Bool, workStart: Double)
    func loopEnded()
}

/// `DARKMODE_KIOSK_TIMING=1`: start-up and present timing on stderr.
final class TimingObserver: FrameObserver {
    private let startedAt: Double
    private let processAgeKnown: Bool
    private let sessionStartedAt: Double
    var windowCreatedAt: Double = 0
    private var presentDurations: [Double] = []
    private var presentIntervals: [Double] = []
    /// Loop passes (events + render + upload + present) longer than a 60 Hz frame, and the longest.
    private var overBudget = 0
    private var longestWork = 0.0
    static let budget = 1.0 / 60
    /// What to say about the window (driver, presenter, viewport) when the first frame is out.
    var describe: () -> String = { "" }
    var pacerSummary: () -> String = { "" }
    /// The loop's latency lines (`LatencyLedger.reportLines`), printed at exit.
    var latencyLines: () -> [String] = { [] }

    init(startedAt: Double, processAgeKnown: Bool, sessionStartedAt: Double) {
        self.startedAt = startedAt
        self.processAgeKnown = processAgeKnown
        self.sessionStartedAt = sessionStartedAt
    }

    func framePresented(start: Double, end: Double, interval: Double?, isFirst: Bool, workStart: Double) {
        if !isFirst {
            let work = end - workStart
            if work > Self.budget { overBudget += 1 }
            longestWork = max(longestWork, work)
        }
        if presentDurations.count < 100_000 { presentDurations.append((end - start) * 1000) }
        if let interval, presentIntervals.count < 100_000 { presentIntervals.append(interval * 1000) }
        guard isFirst else { return }
        func ms(_ s: Double) -> String { String(Int((s * 1000).rounded())) }
        let origin = processAgeKnown ? "process start" : "SDL_Init"
        Log.info(
            "timing: first frame presented \(ms(end - startedAt)) ms after \(origin) "
                + "(SDL_Init done at \(ms(sessionStartedAt - startedAt)) ms, window+renderer at "
                + "\(ms(windowCreatedAt - startedAt)) ms); " + describe())
        if let origin = StartupTrace.processStart() {
            Log.info("timing: start-up stages (ms after process start/thread CPU ms): "
                                   + StartupTrace.summary(StartupTrace.marks, since: origin))
        }
    }

    func loopEnded() {
        func median(_ v: [Double]) -> String { KioskSupport.median(v).map { fixed($0, 1) } ?? "-" }
        Log.info(
            "timing: \(presentDurations.count) frames presented; median render+upload+present "
                + "\(median(presentDurations)) ms, median interval between animation frames \(median(presentIntervals)) ms "
                + "(" + pacerSummary() + "); \(overBudget) frames over \(fixed(Self.budget * 1000, 1)) ms of loop work "
                + "(events + render + upload + present), longest \(fixed(longestWork * 1000, 1)) ms (first frame not counted)")
        for line in latencyLines() { Log.info("timing: " + line) }
    }
}
