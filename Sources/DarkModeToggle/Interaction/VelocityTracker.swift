#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Estimates a pointer's horizontal velocity at release from its recent samples.
///
/// Each pair of consecutive samples inside the window gives a segment velocity; segments are
/// averaged weighted by their duration and by recency (exponential, time constant
/// `recencyTimeConstant`), so the last few frames dominate. Resting segments count as zero
/// velocity, and if the finger has not moved for `restThreshold` before the query the
/// velocity is 0 (a drag that stopped before lifting does not fling).
public struct VelocityTracker: Equatable, Sendable {
    public struct Sample: Equatable, Sendable {
        public var time: Double
        public var x: Double
    }

    /// Only samples this recent (seconds) take part.
    public var window = 0.1
    /// Recency weighting time constant (seconds).
    public var recencyTimeConstant = 0.04
    /// A finger still for this long (seconds) before the query has velocity 0.
    public var restThreshold = 0.075

    public private(set) var samples: [Sample] = []
    /// Time of the last sample whose x differed from the one before.
    public private(set) var lastMovementTime: Double?

    public init() {}

    /// Forgets all samples (start of a new sequence).
    public mutating func reset() {
        samples.removeAll(keepingCapacity: true)
        lastMovementTime = nil
    }

    /// Adds a sample; samples older than the window (relative to this one) are dropped, and a
    /// sample earlier than the last one (a clock going backwards) replaces nothing and is ignored.
    public mutating func add(time: Double, x: Double) {
        guard time.isFinite, x.isFinite else { return }
        if let last = samples.last {
            if time < last.time { return }
            if x != last.x { lastMovementTime = time }
        } else {
            lastMovementTime = time
        }
        samples.append(Sample(time: time, x: x))
        // Keep one sample before the window so the oldest in-window segment is complete.
        while samples.count > 2, samples[1].time < time - window { samples.removeFirst() }
    }

    /// Velocity (units/s, positive to the right) at `time`.
    public func velocity(at time: Double) -> Double {
        guard samples.count >= 2, let moved = lastMovementTime, time - moved <= restThreshold else { return 0 }
        var weighted = 0.0, totalWeight = 0.0
        for i in 1..<samples.count {
            let a = samples[i - 1], b = samples[i]
            let dt = b.time - a.time
            guard dt > 0, b.time >= time - window else { continue }
            let age = time - (a.time + b.time) / 2
            let weight = dt * exp(-max(age, 0) / recencyTimeConstant)
            weighted += (b.x - a.x) / dt * weight
            totalWeight += weight
        }
        return totalWeight > 0 ? weighted / totalWeight : 0
    }
}
