import Foundation
import Testing
@testable import DarkModeToggle

/// Independent oracle: integrate x'' = −2ζω0 x' − ω0² x with classic RK4.
private func integrate(_ spring: Spring, x0: Double, v0: Double, until t: Double, step: Double = 1e-4) -> (Double, Double) {
    let w0 = 2 * Double.pi / spring.response, z = spring.dampingFraction
    func accel(_ x: Double, _ v: Double) -> Double { -2 * z * w0 * v - w0 * w0 * x }
    var x = x0, v = v0, time = 0.0
    while time < t - 1e-12 {
        let h = min(step, t - time)
        let k1x = v, k1v = accel(x, v)
        let k2x = v + h / 2 * k1v, k2v = accel(x + h / 2 * k1x, v + h / 2 * k1v)
        let k3x = v + h / 2 * k2v, k3v = accel(x + h / 2 * k2x, v + h / 2 * k2v)
        let k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v)
        x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        time += h
    }
    return (x, v)
}

@Suite struct SpringTests {
    static let springs: [Spring] = [
        .toggle,                                         // under-damped (0.82)
        Spring(response: 0.5, dampingFraction: 0.3),     // strongly under-damped
        Spring(response: 0.35, dampingFraction: 1),      // critical
        Spring(response: 0.4, dampingFraction: 1.6),     // over-damped
    ]
    static let starts: [(Double, Double)] = [(-1, 0), (1, 0), (-0.6, 5), (0.3, -8), (0, 3)]

    @Test(arguments: springs)
    func closedFormMatchesRK4(spring: Spring) {
        for (x0, v0) in Self.starts {
            for t in [0.0, 0.03, 0.1, 0.2, 0.35, 0.6, 1.0] {
                let exact = spring.state(displacement: x0, velocity: v0, time: t)
                let (x, v) = integrate(spring, x0: x0, v0: v0, until: t)
                #expect(abs(exact.position - x) < 1e-7, "x0 \(x0) v0 \(v0) t \(t)")
                #expect(abs(exact.velocity - v) < 1e-6, "x0 \(x0) v0 \(v0) t \(t)")
            }
        }
    }

    @Test func initialConditionsHold() {
        for spring in Self.springs {
            let s = spring.state(displacement: -0.7, velocity: 2.5, time: 0)
            #expect(abs(s.position + 0.7) < 1e-12)
            #expect(abs(s.velocity - 2.5) < 1e-12)
        }
    }

    @Test func solutionsAreContinuousAcrossCriticalDamping() {
        // The three closed forms must agree near ζ = 1.
        for zeta in [1 - 1e-4, 1 + 1e-4] {
            let near = Spring(response: 0.35, dampingFraction: zeta)
            let critical = Spring(response: 0.35, dampingFraction: 1)
            for t in [0.05, 0.2, 0.5] {
                let a = near.state(displacement: -1, velocity: 2, time: t)
                let b = critical.state(displacement: -1, velocity: 2, time: t)
                #expect(abs(a.position - b.position) < 1e-4)
                #expect(abs(a.velocity - b.velocity) < 1e-3)
            }
        }
    }

    @Test func toggleSpringOvershootsSlightlyFromRest() {
        // SwiftUI's 0.82 spring overshoots by about 1 % of the distance.
        var peak = -Double.infinity
        for i in 0...2000 {
            peak = max(peak, Spring.toggle.position(displacement: -1, velocity: 0, time: Double(i) / 1000))
        }
        #expect(peak > 0.005 && peak < 0.02)
    }

    @Test(arguments: springs)
    func settlingTimeIsConservativeAndTight(spring: Spring) {
        let tol = SettleTolerance.progress
        for (x0, v0) in Self.starts {
            let ts = spring.settlingTime(displacement: x0, velocity: v0, positionTolerance: tol.position, velocityTolerance: tol.velocity)
            var lastOutside = 0.0
            for i in 0...20000 {
                let t = Double(i) / 4000   // 0 … 5 s
                let s = spring.state(displacement: x0, velocity: v0, time: t)
                if abs(s.position) >= tol.position || abs(s.velocity) >= tol.velocity { lastOutside = t }
            }
            #expect(ts >= lastOutside, "settled at \(ts) but still outside at \(lastOutside)")
            #expect(ts - lastOutside < 0.2, "settle time \(ts) far after the last excursion \(lastOutside)")
        }
    }

    @Test func checkedFactoryNamesTheBadParameter() {
        #expect(throws: MotionParameterError(parameter: "Spring.response", value: 0, expected: "a finite number > 0 (seconds)")) {
            try Spring.checked(response: 0, dampingFraction: 0.8)
        }
        #expect(throws: MotionParameterError.self) { try Spring.checked(response: 0.3, dampingFraction: -1) }
        #expect((try? Spring.checked(response: 0.35, dampingFraction: 0.82)) == .toggle)
    }

    // MARK: Animators

    @Test func animatorStartsWhereItIsToldAndEndsExactlyAtTheTarget() {
        let a = SpringAnimator(from: 0.2, velocity: 1.5, to: 1, at: 10)
        #expect(abs(a.value(at: 10) - 0.2) < 1e-12)
        #expect(abs(a.velocity(at: 10) - 1.5) < 1e-12)
        #expect(a.value(at: 9) == a.value(at: 10))   // before the start: the start
        #expect(!a.isSettled(at: 10.2))
        #expect(a.isSettled(at: a.settleTime))
        #expect(a.value(at: a.settleTime) == 1)
        #expect(a.velocity(at: a.settleTime + 5) == 0)
        let justBefore = a.settleTime - 1e-9
        #expect(abs(a.value(at: justBefore) - 1) < SettleTolerance.progress.position)
    }

    @Test func retargetingKeepsPositionAndVelocityContinuous() {
        let first = SpringAnimator(from: 0, to: 1, at: 0)
        for tSwitch in [0.05, 0.12, 0.3] {
            let second = first.retargeted(to: 0, at: tSwitch)
            #expect(abs(second.value(at: tSwitch) - first.value(at: tSwitch)) < 1e-12)
            #expect(abs(second.velocity(at: tSwitch) - first.velocity(at: tSwitch)) < 1e-12)
            // The new motion's one-sided derivative at the switch equals the old velocity.
            let h = 1e-6
            let numeric = (second.value(at: tSwitch + h) - second.value(at: tSwitch)) / h
            #expect(abs(numeric - first.velocity(at: tSwitch)) < 1e-3 * max(1, abs(numeric)))
            #expect(second.target == 0)
            #expect(second.value(at: tSwitch + 3) == 0)
        }
    }

    @Test func progressAnimationSwitchesFromEaseToSpringWithoutAJump() {
        let ease = ProgressAnimation.ease(EaseAnimator(from: 0, to: 1, at: 0))
        let spring = ease.springing(to: 0, at: 0.1)
        #expect(abs(spring.value(at: 0.1) - ease.value(at: 0.1)) < 1e-12)
        #expect(abs(spring.velocity(at: 0.1) - ease.velocity(at: 0.1)) < 1e-12)
    }

    @Test func easeAnimatorFollowsItsCurve() {
        let e = EaseAnimator(from: 0.3, to: 1, at: 2)
        #expect(e.value(at: 2) == 0.3)
        #expect(abs(e.value(at: 2.1) - (0.3 + 0.7 * CubicBezier.easeOut.value(at: 0.5))) < 1e-12)
        #expect(e.value(at: 2.2) == 1)
        #expect(!e.isSettled(at: 2.19))
        #expect(e.isSettled(at: 2.2))
        let h = 1e-6
        let numeric = (e.value(at: 2.05 + h) - e.value(at: 2.05 - h)) / (2 * h)
        #expect(abs(e.velocity(at: 2.05) - numeric) < 1e-4)
    }
}
