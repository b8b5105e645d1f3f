/// When a failed save is tried again (issue 39, item 3): `first` seconds after the first
/// failure, doubling after each further failure, never more than `longest` apart — by default
/// 1, 2, 4, 8, 16, 32, 60, 60, … s. Pure. A change in the folder (`CoalescingWriter.retrySoon`)
/// can bring a retry forward, but never closer than `closest` after the last attempt, so a
/// busy folder cannot turn the retries into a loop.
public struct RetrySchedule: Equatable, Sendable {
    public var first: Double
    public var longest: Double
    public var closest: Double

    public init(first: Double = 1, longest: Double = 60, closest: Double = 0.25) {
        self.first = max(0, first)
        self.longest = max(self.first, longest)
        self.closest = max(0, closest)
    }

    /// Seconds from the `failures`-th consecutive failed attempt (1 = the first) to the next try.
    public func delay(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        var d = first
        var n = 1
        while n < failures && d < longest { d *= 2; n += 1 }
        return min(d, longest)
    }

    /// The instant of the next try after a folder change seen at `now`, given the scheduled
    /// one and the last attempt's instant.
    public func retryOnChange(now: Double, scheduled: Double, lastAttempt: Double) -> Double {
        min(scheduled, max(now, lastAttempt + closest))
    }
}
