import Testing
@testable import DarkModeToggle

@Suite struct AmbientTests {
    static let cloudDurations = [3.5, 4.5, 2.5, 5.5]
    static let starDurations = [3.0, 2, 1, 5]

    @Test(arguments: 0...3)
    func cloudsFloatBetweenPlusFiveAndMinusTen(group: Int) {
        let d = Self.cloudDurations[group]
        func y(_ t: Double) -> Double { Ambient.cloudOffsetY(group: group, time: t, reduceMotion: false) }
        #expect(abs(y(0) - 5) < 1e-12)
        #expect(abs(y(d) + 10) < 1e-12)
        #expect(abs(y(2 * d) - 5) < 1e-12)
        #expect(abs(y(3 * d) + 10) < 1e-9)
        // Forward leg follows the cloud curve.
        #expect(abs(y(0.3 * d) - (5 - 15 * CubicBezier.cloud.value(at: 0.3))) < 1e-12)
        // The return leg is the forward leg played backwards.
        for s in [0.1, 0.37, 0.8] {
            #expect(abs(y(d + s * d) - y(d - s * d)) < 1e-9)
        }
        // Periodic and stays within its range.
        #expect(abs(y(1.234) - y(1.234 + 2 * d * 7)) < 1e-9)
        for i in 0...200 {
            let v = y(Double(i) * 0.037)
            #expect(v <= 5 + 1e-12 && v >= -10 - 1e-12)
        }
        #expect(Ambient.cloudOffsetY(group: group, time: 1.7, reduceMotion: true) == 0)
    }

    @Test func cloudGroupsMoveAtTheirOwnPace() {
        let values = (0...3).map { Ambient.cloudOffsetY(group: $0, time: 2.0, reduceMotion: false) }
        #expect(Set(values).count == 4)
    }

    @Test func starGroupZeroIsStatic() {
        for t in stride(from: 0.0, through: 12, by: 0.25) {
            #expect(Ambient.starOpacity(group: 0, time: t, reduceMotion: false) == 1)
        }
    }

    @Test(arguments: 1...4)
    func starsTwinkleWithEaseInOut(group: Int) {
        let d = Self.starDurations[group - 1]
        func o(_ t: Double) -> Double { Ambient.starOpacity(group: group, time: t, reduceMotion: false) }
        #expect(o(0) == 0)
        #expect(abs(o(d) - 1) < 1e-12)
        #expect(abs(o(2 * d)) < 1e-12)
        #expect(abs(o(d / 2) - 0.5) < 1e-9)
        #expect(abs(o(0.2 * d) - CubicBezier.easeInOut.value(at: 0.2)) < 1e-12)
        #expect(abs(o(1.8 * d) - CubicBezier.easeInOut.value(at: 0.2)) < 1e-9)
        #expect(Ambient.starOpacity(group: group, time: 0.7, reduceMotion: true) == 1)
    }

    @Test func snapshotAndActivity() {
        let s = Ambient.state(time: 1.1, reduceMotion: false)
        #expect(s.cloudOffsetsY.count == 4 && s.starOpacities.count == 5)
        #expect(s.cloudOffsetsY[2] == Ambient.cloudOffsetY(group: 2, time: 1.1, reduceMotion: false))
        #expect(s.starOpacities[4] == Ambient.starOpacity(group: 4, time: 1.1, reduceMotion: false))
        let still = Ambient.state(time: 1.1, reduceMotion: true)
        #expect(still.cloudOffsetsY == [0, 0, 0, 0] && still.starOpacities == [1, 1, 1, 1, 1])
        #expect(Ambient.isActive(reduceMotion: false))
        #expect(!Ambient.isActive(reduceMotion: true))
    }

    @Test func accessibilityStateDescribesTheCommittedValue() {
        let dark = AccessibilityState(isDark: true), light = AccessibilityState(isDark: false)
        #expect(dark.label == "Dark Mode" && dark.hint == "Double tap to change appearance")
        #expect(dark.identifier == "darkModeToggle")
        #expect(dark.value == "On" && light.value == "Off")
        #expect(dark.isSelected && !light.isSelected)
        #expect(dark.summary == "Dark Mode: On" && light.summary == "Dark Mode: Off")
    }
}
