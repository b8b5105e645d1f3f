#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A damped harmonic spring in SwiftUI's parameterisation: `response` is the undamped period
/// in seconds (ω0 = 2π / response) and `dampingFraction` is the damping ratio ζ
/// (< 1 under-damped and overshooting, 1 critically damped, > 1 over-damped).
///
/// The motion of the displacement x (value − target) obeys x'' + 2ζω0 x' + ω0² x = 0; this
/// type gives its closed-form solution for an initial displacement and velocity.
public struct Spring: Equatable, Sendable {
    public let response: Double
    public let dampingFraction: Double

    /// The toggle's settle spring from the art spec (response 0.35 s, damping 0.82).
    public static let toggle = Spring(response: 0.35, dampingFraction: 0.82)

    /// Creates a spring from constants in code (response > 0, dampingFraction > 0, both
    /// finite). Use `checked(response:dampingFraction:)` for values that come from data.
    public init(response: Double = 0.35, dampingFraction: Double = 0.82) {
        precondition(response.isFinite && response > 0, "Spring.response must be a finite number > 0, got \(response)")
        precondition(dampingFraction.isFinite && dampingFraction > 0,
                     "Spring.dampingFraction must be a finite number > 0 (an undamped spring never settles), got \(dampingFraction)")
        self.response = response
        self.dampingFraction = dampingFraction
    }

    /// Validating factory for springs read from data; the error names the bad parameter.
    public static func checked(response: Double, dampingFraction: Double) throws(MotionParameterError) -> Spring {
        guard response.isFinite, response > 0 else {
            throw MotionParameterError(parameter: "Spring.response", value: response, expected: "a finite number > 0 (seconds)")
        }
        guard dampingFraction.isFinite, dampingFraction > 0 else {
            throw MotionParameterError(parameter: "Spring.dampingFraction", value: dampingFraction, expected: "a finite number > 0")
        }
        return Spring(response: response, dampingFraction: dampingFraction)
    }

    /// ω0, the undamped angular frequency (rad/s).
    public var angularFrequency: Double { 2 * Double.pi / response }

    /// How close to 1 the damping ratio must be to use the critically damped solution; the
    /// under- and over-damped forms divide by a frequency that vanishes there.
    static let criticalBand = 1e-6

    /// Displacement and velocity at time t (seconds, ≥ 0) after starting with displacement
    /// `x0` and velocity `v0` (units per second). Negative t is treated as 0.
    public func state(displacement x0: Double, velocity v0: Double, time t: Double) -> (position: Double, velocity: Double) {
        let t = max(t, 0)
        let w0 = angularFrequency
        let zeta = dampingFraction
        if abs(zeta - 1) < Self.criticalBand {
            // x = e^(−ω0 t) (A + B t)
            let a = x0, b = v0 + w0 * x0
            let decay = exp(-w0 * t)
            return (decay * (a + b * t), decay * (b - w0 * (a + b * t)))
        } else if zeta < 1 {
            // x = e^(−ζω0 t) (A cos ωd t + B sin ωd t)
            let sigma = zeta * w0
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let a = x0, b = (v0 + sigma * x0) / wd
            let decay = exp(-sigma * t)
            let c = cos(wd * t), s = sin(wd * t)
            let position = decay * (a * c + b * s)
            let velocity = decay * ((b * wd - sigma * a) * c - (a * wd + sigma * b) * s)
            return (position, velocity)
        } else {
            // x = C1 e^(r1 t) + C2 e^(r2 t), r1,2 = −ω0 (ζ ∓ √(ζ²−1))
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -w0 * (zeta - root), r2 = -w0 * (zeta + root)
            let c1 = (v0 - r2 * x0) / (r1 - r2)
            let c2 = x0 - c1
            let e1 = exp(r1 * t), e2 = exp(r2 * t)
            return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
        }
    }

    /// Displacement at time t; see `state(displacement:velocity:time:)`.
    public func position(displacement x0: Double, velocity v0: Double, time t: Double) -> Double {
        state(displacement: x0, velocity: v0, time: t).position
    }

    /// Velocity at time t; see `state(displacement:velocity:time:)`.
    public func velocity(displacement x0: Double, velocity v0: Double, time t: Double) -> Double {
        state(displacement: x0, velocity: v0, time: t).velocity
    }

    /// The earliest time after which the motion is guaranteed to stay within the tolerances
    /// (|x| < positionTolerance and |v| < velocityTolerance) for ever. Computed from
    /// non-increasing upper bounds (envelopes) of |x| and |v|, so it is conservative, never
    /// early, and settling is monotonic: once settled, always settled.
    public func settlingTime(displacement x0: Double, velocity v0: Double,
                             positionTolerance: Double, velocityTolerance: Double) -> Double {
        let envelope = envelopes(displacement: x0, velocity: v0)
        func settled(_ t: Double) -> Bool {
            let (x, v) = envelope(t)
            return x < positionTolerance && v < velocityTolerance
        }
        if settled(0) { return 0 }
        var hi = response
        while !settled(hi) {
            hi *= 2
            if hi > 1e6 { return .infinity }   // tolerances ≤ 0 or absurd inputs
        }
        var lo = 0.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if settled(mid) { hi = mid } else { lo = mid }
        }
        return hi
    }

    /// Non-increasing functions of t bounding |x(s)| and |v(s)| for all s ≥ t.
    private func envelopes(displacement x0: Double, velocity v0: Double) -> (Double) -> (Double, Double) {
        let w0 = angularFrequency
        let zeta = dampingFraction
        if abs(zeta - 1) < Self.criticalBand {
            // |e^(−kt)(P + Q t)| peaks at t* = 1/k − P/Q; its sup over [t, ∞) is the value at max(t, t*).
            let a = x0, b = v0 + w0 * x0
            func bound(_ p: Double, _ q: Double, _ t: Double) -> Double {
                let peak = q > 0 ? max(0, 1 / w0 - p / q) : 0
                let s = max(t, peak)
                return exp(-w0 * s) * (p + q * s)
            }
            return { t in (bound(abs(a), abs(b), t), bound(abs(b - w0 * a), w0 * abs(b), t)) }
        } else if zeta < 1 {
            let sigma = zeta * w0
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let a = x0, b = (v0 + sigma * x0) / wd
            let rx = (a * a + b * b).squareRoot()
            let p = b * wd - sigma * a, q = a * wd + sigma * b
            let rv = (p * p + q * q).squareRoot()
            return { t in let d = exp(-sigma * t); return (rx * d, rv * d) }
        } else {
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -w0 * (zeta - root), r2 = -w0 * (zeta + root)
            let c1 = (v0 - r2 * x0) / (r1 - r2), c2 = x0 - c1
            return { t in
                let e1 = exp(r1 * t), e2 = exp(r2 * t)
                return (abs(c1) * e1 + abs(c2) * e2, abs(c1 * r1) * e1 + abs(c2 * r2) * e2)
            }
        }
    }
}
