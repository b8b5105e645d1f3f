import KioskEngine
import KioskSupport
import Raster
import DarkModeToggle
import Threads

/// One run of `LatencyBench`: the real app and the loop's pacing rules on a virtual clock `t`,
/// in front of a simulated display (vblanks every `period` from `phase`, at most one flip queued).
/// `waitForFrame()` moves the clock to when the loop would begin the next frame; `frame()`
/// delivers the inputs due, renders (real, timed) and presents, recording each input's latency
/// with its floor.
struct LatencySimulation {
    typealias Display = LatencyBench.Display
    typealias Policy = LatencyBench.Policy

    let app: KioskApp
    let presented: Pixmap
    let events: [(event: TraceEvent, kind: LatencyLedger.Kind?)]
    let display: Display
    let policy: Policy
    let period: Double
    let phase: Double

    private(set) var t = 0.0
    private(set) var samples: [LatencyBench.Sample] = []
    private(set) var frames = 0

    private var pacer: FramePacer
    private var scheduler: FrameScheduler
    private var ledger = LatencyLedger()
    private var next = 0
    private var pressed = false
    /// The last frame rendered showed nothing (an input not yet visible): the next look waits a retry.
    private var nothingShown = false
    /// The vblank the queued flip shows at.
    private var queued: Double?
    private var lastPresentStart: Double?

    init(app: KioskApp, size: PixelSize, events: [(event: TraceEvent, kind: LatencyLedger.Kind?)],
         display: Display, policy: Policy, period: Double, phase: Double) {
        self.app = app
        self.presented = Pixmap(width: size.width, height: size.height)
        self.events = events
        self.display = display
        self.policy = policy
        self.period = period
        self.phase = phase
        pacer = FramePacer(refreshRate: 60, vsync: display == .vblank)
        scheduler = FrameScheduler(period: period)
    }

    /// The first vblank strictly after `time`.
    func vblank(after time: Double) -> Double {
        let k = ((time - phase) / period).rounded(.down) + 1
        var v = phase + k * period
        if v <= time { v += period }
        return v
    }

    private var nextInput: Double { next < events.count ? events[next].event.time : .infinity }

    private mutating func deliver(upTo s: Double) {
        while next < events.count, events[next].event.time <= s {
            let (event, kind) = events[next]
            next += 1
            VirtualClockDriver.deliver(event, to: app)
            if case .pointer(_, let phase, _, _, _, _, _) = event { pressed = phase != .up }
            if let kind { ledger.input(kind, at: event.time, stamp: .simulated) }
        }
    }

    private mutating func flipDone(by now: Double) {
        if let q = queued, q <= now { scheduler.vblank(at: q); queued = nil }
    }

    /// Moves the clock to the next frame's start; false when nothing is left to draw or deliver.
    mutating func waitForFrame() -> Bool {
        flipDone(by: t)
        guard app.needsFrames || pressed else {
            // Idle: the loop blocks until an input wakes it.
            pacer.reset()
            lastPresentStart = nil
            guard nextInput.isFinite else { return false }
            t = max(t, nextInput)
            flipDone(by: t)
            return true
        }
        switch (policy, display) {
        case (.eager, _):
            // SDL_Delay(whole ms), not interrupted by input.
            let wait = pacer.delay(at: t)
            if wait >= 0.001 { t += (wait * 1000).rounded(.down) / 1000 }
        case (.scheduled, .inPlace):
            // The pacer's sleep ends early for an input, and after a frame that showed
            // nothing of an input yet, the next look comes a retry later.
            var wait = pacer.delay(at: t)
            if nothingShown && ledger.hasPending { wait = min(wait, FrameScheduler.retry) }
            t = max(t, min(t + wait, nextInput))
        case (.scheduled, .vblank):
            var s = scheduler.start(now: t, inputWaiting: ledger.hasPending)
            if nothingShown && ledger.hasPending { s = max(s, t + FrameScheduler.retry) }
            if nextInput < s {
                s = min(s, scheduler.start(now: max(t, nextInput), inputWaiting: true))
            }
            t = max(t, s)
            flipDone(by: t)
        }
        return true
    }

    /// The inputs due handled, one frame rendered and presented on the simulated display.
    mutating func frame() {
        // The events are handled (timed: the frame begins after them, as in the host's loop).
        let d0 = MonotonicClock.seconds()
        deliver(upTo: t)
        t += MonotonicClock.seconds() - d0
        let begin = t
        pacer.frameBegan(at: begin)
        ledger.frameBegan()
        let w0 = MonotonicClock.seconds(), c0 = Clock.processCPU()
        let presented = self.presented, app = self.app
        let dirty = app.renderFrame(at: begin, present: { presented.presentCopy($0, from: app.frame) })
        // The render's time on a core of its own: the wall time, unless other processes took the
        // core meanwhile (then the CPU time of our threads is the smaller, and closer).
        let r = min(MonotonicClock.seconds() - w0, Clock.processCPU() - c0)
        t += r
        nothingShown = dirty.isEmpty
        guard !dirty.isEmpty else {
            ledger.frameDropped()
            return
        }
        frames += 1
        scheduler.rendered(seconds: r)
        let shown = present()
        pacer.framePresented(interval: lastPresentStart.map { begin - $0 })
        lastPresentStart = begin
        for s in ledger.framePresented(at: shown, stamp: .simulated) {
            let floor = display == .vblank ? vblank(after: s.inputAt + r) - s.inputAt : r
            samples.append(LatencyBench.Sample(kind: s.kind, ms: s.seconds * 1000, floorMs: floor * 1000, renderMs: r * 1000))
        }
    }

    /// When the frame just rendered reaches the screen.
    private mutating func present() -> Double {
        switch display {
        case .vblank:
            // The present waits for the flip still queued, then queues this one.
            if let q = queued { t = max(t, q); flipDone(by: t) }
            let shown = vblank(after: t)
            queued = shown
            scheduler.flipQueued(at: t)
            return shown
        case .inPlace:
            return t
        }
    }
}
