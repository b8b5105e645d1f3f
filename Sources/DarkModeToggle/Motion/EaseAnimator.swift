/// A timed animation along a timing curve from a start value to a target, e.g. the Reduce
/// Motion ease-out of 0.2 s or the page's 0.5 s ease-in-out cross-fade. It does not carry
/// velocity in: retargeting starts from the presented value (no jump in position).
public struct EaseAnimator: ScalarAnimation, Equatable {
    public let curve: CubicBezier
    public let duration: Double
    public let target: Double
    public let startValue: Double
    public let startTime: Double

    /// The Reduce Motion animation of the art spec: ease-out, 0.2 s.
    public static let reduceMotionDuration = 0.2

    /// Starts an animation from `value` to `target` at `time`. A duration ≤ 0 (or not finite)
    /// means an immediate change.
    public init(curve: CubicBezier = .easeOut, duration: Double = EaseAnimator.reduceMotionDuration,
                from value: Double, to target: Double, at time: Double) {
        self.curve = curve
        self.duration = duration.isFinite ? max(duration, 0) : 0
        self.target = target
        self.startValue = value
        self.startTime = time
    }

    /// Time progress 0…1 at `time`.
    public func fraction(at time: Double) -> Double {
        guard duration > 0 else { return 1 }
        return min(max((time - startTime) / duration, 0), 1)
    }

    public func value(at time: Double) -> Double {
        let f = fraction(at: time)
        if f >= 1 { return target }
        return startValue + (target - startValue) * curve.value(at: f)
    }

    public func velocity(at time: Double) -> Double {
        guard duration > 0, time >= startTime, time < startTime + duration else { return 0 }
        return (target - startValue) * curve.slope(at: fraction(at: time)) / duration
    }

    public func isSettled(at time: Double) -> Bool { fraction(at: time) >= 1 }

    /// The same kind of animation towards a new target from the presented value at `time`.
    public func retargeted(to newTarget: Double, at time: Double) -> EaseAnimator {
        EaseAnimator(curve: curve, duration: duration, from: value(at: time), to: newTarget, at: time)
    }
}
