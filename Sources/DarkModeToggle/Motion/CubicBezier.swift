/// A CSS/SwiftUI-style timing curve: the cubic Bézier from (0,0) to (1,1) with control points
/// (x1, y1) and (x2, y2). `value(at:)` maps progress in time (x) to progress in value (y).
///
/// x1 and x2 must lie in 0…1 so that x(t) is monotonic and the curve is a function of x;
/// y1 and y2 are free (values outside 0…1 give anticipation or overshoot).
public struct CubicBezier: Equatable, Sendable {
    public let x1: Double
    public let y1: Double
    public let x2: Double
    public let y2: Double

    /// Creates a curve from constants in code. A control x outside 0…1 is a programming error;
    /// use `checked(_:_:_:_:)` for values that come from data.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        precondition(Self.isValidX(x1) && Self.isValidX(x2) && y1.isFinite && y2.isFinite,
                     "CubicBezier: control x values must be finite and in 0...1, y values finite; got (\(x1), \(y1), \(x2), \(y2))")
        self.x1 = x1; self.y1 = y1; self.x2 = x2; self.y2 = y2
    }

    /// Validating factory for curves read from data; the error names the bad control value.
    public static func checked(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) throws(MotionParameterError) -> CubicBezier {
        if !isValidX(x1) { throw MotionParameterError(parameter: "CubicBezier.x1", value: x1, expected: "a number in 0...1") }
        if !y1.isFinite { throw MotionParameterError(parameter: "CubicBezier.y1", value: y1, expected: "a finite number") }
        if !isValidX(x2) { throw MotionParameterError(parameter: "CubicBezier.x2", value: x2, expected: "a number in 0...1") }
        if !y2.isFinite { throw MotionParameterError(parameter: "CubicBezier.y2", value: y2, expected: "a finite number") }
        return CubicBezier(x1, y1, x2, y2)
    }

    private static func isValidX(_ x: Double) -> Bool { x.isFinite && x >= 0 && x <= 1 }

    // MARK: Named curves

    /// SwiftUI's `.easeInOut`.
    public static let easeInOut = CubicBezier(0.42, 0, 0.58, 1)
    /// SwiftUI's `.easeOut`.
    public static let easeOut = CubicBezier(0, 0, 0.58, 1)
    /// SwiftUI's `.easeIn`.
    public static let easeIn = CubicBezier(0.42, 0, 1, 1)
    /// The identity curve.
    public static let linear = CubicBezier(0, 0, 1, 1)
    /// The clouds' float curve from the art spec: cubic-bezier(0.25, 0.46, 0.45, 0.94).
    public static let cloud = CubicBezier(0.25, 0.46, 0.45, 0.94)

    // MARK: Evaluation

    /// The curve's y for a time progress x. Inputs are clamped to 0…1; the ends are exact
    /// (0 → 0, 1 → 1).
    public func value(at x: Double) -> Double {
        if !(x > 0) { return 0 }   // also maps NaN to 0
        if x >= 1 { return 1 }
        return sampleY(solveT(forX: x))
    }

    /// dy/dx at time progress x (the curve's slope), used to report an animation's velocity.
    /// At an end where both control handles are degenerate the limit is approached from inside.
    public func slope(at x: Double) -> Double {
        let t = min(max(solveT(forX: min(max(x, 0), 1)), 1e-7), 1 - 1e-7)
        let dx = derivativeX(t)
        return dx > 0 ? derivativeY(t) / dx : 0
    }

    /// The Bézier parameter t whose x equals the given x (0…1): Newton's method from t = x,
    /// falling back to bisection when the derivative vanishes or Newton does not converge.
    public func solveT(forX x: Double) -> Double {
        if !(x > 0) { return 0 }
        if x >= 1 { return 1 }
        let tolerance = 1e-12
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < tolerance { return t }
            let d = derivativeX(t)
            if abs(d) < 1e-9 { break }
            let next = t - error / d
            if next < 0 || next > 1 { break }
            t = next
        }
        // Bisection: x(t) is monotonic on 0…1 because x1, x2 are in 0…1.
        var lo = 0.0, hi = 1.0
        t = x
        for _ in 0..<64 {
            let value = sampleX(t)
            if abs(value - x) < tolerance { return t }
            if value < x { lo = t } else { hi = t }
            t = (lo + hi) / 2
        }
        return t
    }

    /// x(t) and y(t) in Horner form: B(t) = ((a t + b) t + c) t.
    @inline(__always) private func sampleX(_ t: Double) -> Double {
        let c = 3 * x1, b = 3 * (x2 - x1) - c, a = 1 - c - b
        return ((a * t + b) * t + c) * t
    }

    @inline(__always) private func sampleY(_ t: Double) -> Double {
        let c = 3 * y1, b = 3 * (y2 - y1) - c, a = 1 - c - b
        return ((a * t + b) * t + c) * t
    }

    @inline(__always) private func derivativeX(_ t: Double) -> Double {
        let c = 3 * x1, b = 3 * (x2 - x1) - c, a = 1 - c - b
        return (3 * a * t + 2 * b) * t + c
    }

    @inline(__always) private func derivativeY(_ t: Double) -> Double {
        let c = 3 * y1, b = 3 * (y2 - y1) - c, a = 1 - c - b
        return (3 * a * t + 2 * b) * t + c
    }
}
