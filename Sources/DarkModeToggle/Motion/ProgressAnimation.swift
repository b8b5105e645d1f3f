/// The animation currently driving one visual channel (appearance or celestial position):
/// at rest, a spring, or a timed ease. A value type; replace it to start a new animation.
public enum ProgressAnimation: ScalarAnimation, Equatable {
    /// Holding a value (also how Reduce Motion "jumps" a position).
    case still(Double)
    case spring(SpringAnimator)
    case ease(EaseAnimator)

    public var target: Double {
        switch self {
        case .still(let v): return v
        case .spring(let s): return s.target
        case .ease(let e): return e.target
        }
    }

    public func value(at time: Double) -> Double {
        switch self {
        case .still(let v): return v
        case .spring(let s): return s.value(at: time)
        case .ease(let e): return e.value(at: time)
        }
    }

    public func velocity(at time: Double) -> Double {
        switch self {
        case .still: return 0
        case .spring(let s): return s.velocity(at: time)
        case .ease(let e): return e.velocity(at: time)
        }
    }

    public func isSettled(at time: Double) -> Bool {
        switch self {
        case .still: return true
        case .spring(let s): return s.isSettled(at: time)
        case .ease(let e): return e.isSettled(at: time)
        }
    }

    /// A spring to `target` from the presented value and velocity at `time` (continuous in
    /// both, whatever was running before).
    public func springing(to target: Double, at time: Double, spring: Spring = .toggle) -> ProgressAnimation {
        .spring(SpringAnimator(spring: spring, from: value(at: time), velocity: velocity(at: time), to: target, at: time))
    }

    /// A timed ease to `target` from the presented value at `time`.
    public func easing(to target: Double, at time: Double, curve: CubicBezier = .easeOut,
                       duration: Double = EaseAnimator.reduceMotionDuration) -> ProgressAnimation {
        .ease(EaseAnimator(curve: curve, duration: duration, from: value(at: time), to: target, at: time))
    }
}
