/// When the next frame should begin so that what it shows is as fresh as the display allows.
///
/// On a display that scans out at vblanks (a page flip, a vsync'd present), a frame begun right
/// after a vblank reads its input up to a period before the vblank that shows it. Begun
/// `estimate + margin` before that vblank instead, it reads input as late as the frame allows:
/// an input is on screen `r + U(0, period)` after it happened — the floor. At most one frame is
/// in flight: the frame begins only after the flip queued before it completed (`inFlightUntil`).
///
/// An input that arrives while the loop is idle is drawn at once (`start(now:inputWaiting:)`
/// with `inputWaiting`): no wait can make its vblank earlier. Without a known vblank (no flip
/// seen yet, a display drawn in place) frames begin at once. Pure: the host reports vblanks and
/// render times and asks when to begin.
public struct FrameScheduler: Sendable {
    public let period: Double
    /// Slack kept between a frame's expected end and its vblank (seconds).
    public let margin: Double
    /// The last vblank known (a flip event's time, a vsync'd present's return).
    public private(set) var lastVblank: Double?
    /// The vblank the flip in flight completes at, if one is in flight.
    public private(set) var inFlightUntil: Double?
    /// The last render times (begin → presented call returned), seconds.
    private var recent: [Double] = []
    private var next = 0
    static let window = 16
    /// After a frame that drew nothing while an input waits to be shown (a press whose
    /// animation has not moved a pixel yet), the next frame is tried this much later — not a
    /// whole period, and not at once (that would spin).
    public static let retry = 0.001

    public init(period: Double, margin: Double = 0.001) {
        self.period = period
        self.margin = margin
    }

    /// What a frame's render is expected to take: the third quartile of the last few frames
    /// (a rare slow frame — another process took the core — misses its vblank rather than
    /// making every frame wait for it).
    public var estimate: Double {
        guard !recent.isEmpty else { return 0 }
        return percentile(sorted: recent.sorted(), 0.75)!
    }

    /// A vblank happened at `at` (a flip completed; a vsync'd present returned).
    public mutating func vblank(at: Double) {
        lastVblank = at
        if let f = inFlightUntil, at >= f - period / 2 { inFlightUntil = nil }
    }

    /// A flip was queued; it completes at the first vblank after `at` (when the phase is known).
    public mutating func flipQueued(at: Double) {
        inFlightUntil = nextVblank(after: at) ?? at
    }

    /// A frame's render took `seconds` (from its begin to its present call).
    public mutating func rendered(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return }
        if recent.count < Self.window { recent.append(seconds) } else { recent[next] = seconds }
        next = (next + 1) % Self.window
    }

    /// The first vblank strictly after `t`, from the last one known; nil without one.
    public func nextVblank(after t: Double) -> Double? {
        guard let v = lastVblank else { return nil }
        let k = ((t - v) / period).rounded(.down) + 1
        var at = v + k * period
        if at <= t { at += period }
        return at
    }

    /// When the next frame should begin, at or after `now`. `inputWaiting`: an input arrived
    /// since the last frame began while nothing is in flight — drawn at once. `skipping`: that
    /// many vblanks are left out before the frame's (`AmbientPacing`, the ambient loops alone).
    public func start(now: Double, inputWaiting: Bool = false, skipping: Int = 0) -> Double {
        if inputWaiting && inFlightUntil == nil { return now }
        let lead = estimate + margin
        // The earliest vblank this frame can reach: after the one in flight, and after now + lead.
        guard var target = nextVblank(after: now + lead) else { return now }
        if let f = inFlightUntil { while target < f + period / 2 { target += period } }
        target += Double(max(0, skipping)) * period
        return max(now, target - lead)
    }
}
