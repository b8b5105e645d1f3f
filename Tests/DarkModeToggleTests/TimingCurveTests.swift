import Testing
@testable import DarkModeToggle

/// Bernstein form of a cubic Bézier coordinate with P0 = 0 and P3 = 1: an oracle written
/// independently of the solver's Horner form.
private func bernstein(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
    let u = 1 - t
    return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
}

@Suite struct TimingCurveTests {
    static let named: [CubicBezier] = [.easeInOut, .easeOut, .easeIn, .linear, .cloud]

    @Test func namedCurvesHaveTheDocumentedControlPoints() {
        #expect(CubicBezier.easeInOut == CubicBezier(0.42, 0, 0.58, 1))
        #expect(CubicBezier.easeOut == CubicBezier(0, 0, 0.58, 1))
        #expect(CubicBezier.easeIn == CubicBezier(0.42, 0, 1, 1))
        #expect(CubicBezier.cloud == CubicBezier(0.25, 0.46, 0.45, 0.94))
    }

    @Test(arguments: named)
    func endsAreExact(curve: CubicBezier) {
        #expect(curve.value(at: 0) == 0)
        #expect(curve.value(at: 1) == 1)
        #expect(curve.value(at: -0.5) == 0)
        #expect(curve.value(at: 1.5) == 1)
    }

    @Test func easeInOutIsSymmetricAboutTheMiddle() {
        #expect(abs(CubicBezier.easeInOut.value(at: 0.5) - 0.5) < 1e-12)
        for x in stride(from: 0.0, through: 1.0, by: 0.05) {
            let a = CubicBezier.easeInOut.value(at: x)
            let b = CubicBezier.easeInOut.value(at: 1 - x)
            #expect(abs(a + b - 1) < 1e-10, "x = \(x)")
        }
    }

    @Test func linearIsTheIdentity() {
        for x in stride(from: 0.0, through: 1.0, by: 0.01) {
            #expect(abs(CubicBezier.linear.value(at: x) - x) < 1e-12)
        }
    }

    @Test(arguments: named)
    func monotonic(curve: CubicBezier) {
        var previous = 0.0
        for i in 0...2000 {
            let y = curve.value(at: Double(i) / 2000)
            #expect(y >= previous - 1e-12, "x = \(Double(i) / 2000)")
            previous = y
        }
    }

    /// For a parameter t, the point (x(t), y(t)) lies on the curve: value(at: x(t)) == y(t).
    @Test(arguments: named + [CubicBezier(1, 0, 0, 1), CubicBezier(0.1, -0.6, 0.2, 1.8)])
    func inverseOfTheParametricForm(curve: CubicBezier) {
        for i in 0...400 {
            let t = Double(i) / 400
            let x = bernstein(curve.x1, curve.x2, t)
            let y = bernstein(curve.y1, curve.y2, t)
            #expect(abs(curve.value(at: x) - y) < 1e-7, "t = \(t)")
        }
    }

    @Test func easeOutAgainstAHandSolvedPoint() {
        // At t = 0.5: x = 3·0.25·0.5·0.58 + 0.125 = 0.3425, y = 3·0.25·0.5 + 0.125 = 0.5.
        #expect(abs(CubicBezier.easeOut.value(at: 0.3425) - 0.5) < 1e-10)
    }

    @Test(arguments: named)
    func slopeMatchesFiniteDifferences(curve: CubicBezier) {
        for x in stride(from: 0.05, through: 0.95, by: 0.05) {
            let h = 1e-6
            let numeric = (curve.value(at: x + h) - curve.value(at: x - h)) / (2 * h)
            #expect(abs(curve.slope(at: x) - numeric) < 1e-4, "x = \(x)")
        }
    }

    @Test func easeOutStartsWithAFiniteSlope() {
        // Both handles degenerate at t = 0; the limit is y'/x' → 1 / 0.58.
        #expect(abs(CubicBezier.easeOut.slope(at: 0) - 1 / 0.58) < 1e-3)
    }

    @Test func checkedFactoryNamesTheBadControlPoint() {
        #expect(throws: MotionParameterError(parameter: "CubicBezier.x2", value: 1.2, expected: "a number in 0...1")) {
            try CubicBezier.checked(0.2, 0, 1.2, 1)
        }
        #expect(throws: MotionParameterError.self) { try CubicBezier.checked(.nan, 0, 0.5, 1) }
        #expect((try? CubicBezier.checked(0.25, 0.46, 0.45, 0.94)) == .cloud)
    }
}
