import Testing
@testable import DarkModeToggle

@Suite struct MetricsTests {
    @Test func celestialTravelAtWidth130() {
        let m = ToggleMetrics(width: 130)
        #expect(abs(m.celestialOriginX(position: 0) - -90.17) < 0.005)
        #expect(abs(m.celestialOriginX(position: 1) - -22.54) < 0.005)
        #expect(abs(m.translationTravel - 67.63) < 0.005)
    }

    /// The original's source geometry at 130 pt, to 1e-4.
    @Test func sourceGeometryAt130() {
        let m = ToggleMetrics(width: 130)
        #expect(abs(m.height - 80) < 1e-4)
        #expect(abs(m.trackHeight - 51.84971098) < 1e-4)
        #expect(abs(m.celestialScale - 156.0 / 173.0) < 1e-4)
        #expect(abs(m.celestialOriginY - 2.12716763) < 1e-4)
        #expect(abs(m.celestialOriginX(position: 0) - -90.17341040) < 1e-4)
        #expect(abs(m.celestialOriginX(position: 1) - -22.54335260) < 1e-4)
        #expect(abs(m.celestialOriginX(position: 0.5) - -56.35838150) < 1e-4)
        #expect(abs(m.translationTravel - 67.63005780) < 1e-4)
    }

    @Test(arguments: [44.0, 130, 260, 333.3, 1000])
    func aspectRatiosHold(width: Double) {
        let m = ToggleMetrics(width: width)
        #expect(abs(m.height - width * 80 / 130) < 1e-9)
        #expect(abs(m.width / m.trackHeight - 173.0 / 69.0) < 1e-9)
        #expect(abs((m.celestialScale * 173) / m.celestialHeight - 173.0 / 84.0) < 1e-9)
        #expect(abs(m.trackOriginY * 2 + m.trackHeight - m.height) < 1e-9)
    }
}
