/// The times between presented frames over exactly the last `seconds` (a minute for the
/// state's `frames`): each sample is kept with the time its frame was presented, in a ring
/// ordered by that time; samples older than the window are dropped from its tail as new ones
/// come, so adding a frame is O(1) (amortised: the ring doubles when a faster display fills
/// it, and never shrinks). The statistics are computed when asked (at each state sent).
public struct FrameTimeWindow: Sendable {
    public let seconds: Double
    private var at: [Double]
    private var milliseconds: [Double]
    /// Index of the oldest sample, and how many there are.
    private var head = 0
    public private(set) var count = 0

    public init(seconds: Double = 60, capacity: Int = 4096) {
        self.seconds = seconds
        at = [Double](repeating: 0, count: max(1, capacity))
        milliseconds = at
    }

    /// The ring's size now (grows only when more frames than it holds fall in one window).
    public var capacity: Int { at.count }

    /// A frame presented at `time` (seconds, never going back), `ms` after the one before.
    public mutating func add(at time: Double, milliseconds ms: Double) {
        expire(now: time)
        if count == at.count { grow() }
        let i = (head + count) % at.count
        at[i] = time
        milliseconds[i] = ms
        count += 1
    }

    /// Drops the samples presented at or before `now - seconds`.
    public mutating func expire(now: Double) {
        let oldest = now - seconds
        while count > 0, at[head] <= oldest {
            head = (head + 1) % at.count
            count -= 1
        }
    }

    /// The samples of the window ending at `now` (oldest first), milliseconds: those presented
    /// after `now - seconds` (older ones are skipped here, dropped at the next `add`).
    public func window(now: Double) -> [Double] {
        let oldest = now - seconds
        var out: [Double] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            let i = (head + k) % at.count
            if at[i] > oldest { out.append(milliseconds[i]) }
        }
        return out
    }

    /// `FrameStatistics` of the window ending at `now`; nil when no frame was presented in it.
    public func statistics(now: Double, budget: Double = 1000.0 / 60) -> FrameStatistics? {
        FrameStatistics.of(window(now: now), budget: budget)
    }

    private mutating func grow() {
        var newAt = [Double](repeating: 0, count: at.count * 2)
        var newMs = newAt
        for k in 0..<count {
            newAt[k] = at[(head + k) % at.count]
            newMs[k] = milliseconds[(head + k) % at.count]
        }
        at = newAt
        milliseconds = newMs
        head = 0
    }
}
