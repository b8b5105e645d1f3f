/// A spring animation of one value towards a target, started at a known time from a known
/// value and velocity. Retargeting or interrupting keeps both the position and the velocity
/// continuous, like SwiftUI's interruptible springs.
///
/// Once the motion is guaranteed to stay within `tolerance` of the target (see
/// `Spring.settlingTime`), the animation reports exactly `target` with velocity 0, so a
/// resting value is exact; the snap is smaller than the tolerance.
public struct SpringAnimator: ScalarAnimation, Equatable {
    public let spring: Spring
    public let target: Double
    public let startValue: Double
    public let startVelocity: Double
    public let startTime: Double
    public let tolerance: SettleTolerance
    /// Absolute time from which the animation is at rest.
    public let settleTime: Double

    /// Starts a spring from `value` moving at `velocity` (units/s) towards `target` at `time`.
    public init(spring: Spring = .toggle, from value: Double, velocity: Double = 0, to target: Double,
                at time: Double, tolerance: SettleTolerance = .progress) {
        self.spring = spring
        self.target = target
        self.startValue = value
        self.startVelocity = velocity
        self.startTime = time
        self.tolerance = tolerance
        self.settleTime = time + spring.settlingTime(displacement: value - target, velocity: velocity,
                                                     positionTolerance: tolerance.position,
                                                     velocityTolerance: tolerance.velocity)
    }

    /// Position and velocity at `time` (position exactly `target` once settled).
    public func state(at time: Double) -> (value: Double, velocity: Double) {
        if time >= settleTime { return (target, 0) }
        let s = spring.state(displacement: startValue - target, velocity: startVelocity, time: time - startTime)
        return (target + s.position, s.velocity)
    }

    public func value(at time: Double) -> Double { state(at: time).value }
    public func velocity(at time: Double) -> Double { state(at: time).velocity }
    public func isSettled(at time: Double) -> Bool { time >= settleTime }

    /// The same spring heading for a new target from `time`, starting at the presented value
    /// and velocity there (no jump in either).
    public func retargeted(to newTarget: Double, at time: Double) -> SpringAnimator {
        let s = state(at: time)
        return SpringAnimator(spring: spring, from: s.value, velocity: s.velocity, to: newTarget, at: time, tolerance: tolerance)
    }
}
