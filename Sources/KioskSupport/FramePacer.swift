/// Paces animation frames to the display refresh. A vsync'd present already waits (SDL also
/// simulates vsync for renderers that cannot do it); frames that present nothing, renderers
/// without vsync, and presents that claim vsync but return early (SDL's offscreen and dummy
/// drivers) are paced by sleeping to the next deadline instead. Pure: the host asks how long
/// to sleep and reports what each frame did.
public struct FramePacer: Sendable {
    /// Seconds per frame.
    public let period: Double
    /// Whether a present is trusted to wait for the next refresh.
    public private(set) var presentPaces: Bool
    private var nextDeadline: Double?
    private var lastFramePresented = false
    private var earlyPresents = 0
    /// Frames of the grid left out before the next one (`skip(frames:)`; cleared when a frame begins).
    public private(set) var skipped = 0

    /// `refreshRate` in Hz (0 or nonsense means 60); `vsync` whether presents claim to wait.
    public init(refreshRate: Double, vsync: Bool) {
        let hz = refreshRate.isFinite && refreshRate >= 20 && refreshRate <= 500 ? refreshRate : 60
        period = 1 / hz
        presentPaces = vsync
    }

    /// Records that a frame began at `now` (seconds) and schedules the next one a period later;
    /// after a stall the schedule restarts from `now` instead of rushing to catch up.
    public mutating func frameBegan(at now: Double) {
        if let d = nextDeadline, now >= d - period, now < d + period {
            nextDeadline = d + period
        } else {
            nextDeadline = now + period
        }
        lastFramePresented = false
        skipped = 0
    }

    /// Leaves out `frames` frames of the grid after the frame that began last: the next one is
    /// due `frames` periods later than it would be (`AmbientPacing`: the ambient loops alone
    /// move, slowly enough). A present that waited for the refresh counts as one period waited.
    public mutating func skip(frames: Int) { skipped = max(0, frames) }

    /// Records that the frame presented; `interval` is the time since the previous presented
    /// frame of the same animation burst. Three presents in a row much faster than the refresh
    /// prove that presenting does not wait: from then on the pacer sleeps for every frame.
    public mutating func framePresented(interval: Double?) {
        lastFramePresented = true
        guard presentPaces, let interval else { return }
        if interval < period * 0.75 {
            earlyPresents += 1
            if earlyPresents >= 3 { presentPaces = false }
        } else {
            earlyPresents = 0
        }
    }

    /// Seconds to wait at `now` before the next frame may begin (0 when it is due, or when the
    /// last frame's present already waited for the refresh).
    public func delay(at now: Double) -> Double {
        guard let d = nextDeadline else { return 0 }
        let paced = lastFramePresented && presentPaces
        if skipped > 0 { return max(0, d + Double(skipped) * period - (paced ? period : 0) - now) }
        return paced ? 0 : max(0, d - now)
    }

    /// Forgets the schedule (after idling, the next frame is due at once).
    public mutating func reset() {
        nextDeadline = nil
        lastFramePresented = false
        skipped = 0
    }
}
