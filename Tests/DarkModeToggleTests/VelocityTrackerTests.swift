import Testing
import Raster
@testable import DarkModeToggle

@Suite struct VelocityTrackerTests {
    @Test func constantSpeedIsMeasuredExactly() {
        var t = VelocityTracker()
        for i in 0...30 { t.add(time: Double(i) / 60, x: 10 + 5 * Double(i)) }   // 300 pt/s
        #expect(abs(t.velocity(at: 0.5) - 300) < 1e-6)
        #expect(abs(t.velocity(at: 0.5 + 1.0 / 60) - 300) < 1e-6)
    }

    @Test func aFingerThatRestedBeforeLiftingHasNoVelocity() {
        var t = VelocityTracker()
        for i in 0...30 { t.add(time: Double(i) / 60, x: 5 * Double(i)) }
        #expect(t.velocity(at: 0.5 + 0.06) != 0)
        #expect(t.velocity(at: 0.5 + 0.08) == 0)
    }

    @Test func recentSamplesDominate() {
        var t = VelocityTracker()
        var x = 0.0
        for i in 0...12 {                          // 600 pt/s, then 60 pt/s for the last 3 frames
            x += i < 10 ? 10 : 1
            t.add(time: Double(i) / 60, x: x)
        }
        // In the 100 ms window: 4 fast and 3 slow segments; their plain mean is 368.6 pt/s.
        let v = t.velocity(at: 12.0 / 60)
        #expect(v > 60 && v < 250, "weighted towards the slow recent frames, got \(v)")
    }

    @Test func oldSamplesLeaveTheWindow() {
        var t = VelocityTracker()
        for i in 0...10 { t.add(time: Double(i) / 60, x: -20 * Double(i)) }     // fast to the left
        for i in 11...40 { t.add(time: Double(i) / 60, x: -200 + Double(i - 10)) } // 60 pt/s right
        #expect(abs(t.velocity(at: 40.0 / 60) - 60) < 1e-6)
        #expect(t.samples.count <= 9)
    }

    @Test func timeGoingBackwardsIsIgnored() {
        var t = VelocityTracker()
        t.add(time: 1, x: 0)
        t.add(time: 1.01, x: 3)
        t.add(time: 0.5, x: 400)
        #expect(t.samples.count == 2)
        #expect(abs(t.velocity(at: 1.01) - 300) < 1e-9)
    }
}

@Suite struct ReleaseProjectionTests {
    static let metrics = ToggleMetrics(width: 260)

    /// A steady 36 pt/s drag (0.6 pt a frame; claimed on frame 17 at 10.2 pt) released while
    /// moving. The release adds 36 · 0.25 pt of predicted travel (SwiftUI's quarter-second
    /// `predictedEndTranslation`): a drag ending just short of half minus that commits iff the
    /// prediction crosses 0.5.
    @Test(arguments: [(-0.01, false), (0.01, true)])
    func projectionDecidesNearTheMiddle(margin: Double, commits: Bool) {
        let travel = Self.metrics.translationTravel
        let step = 0.6, claimFrame = 17.0
        let projected = 36 * 0.25 / travel
        let wanted = 0.5 - projected + margin
        let frames = claimFrame + (wanted * travel / step).rounded(margin < 0 ? .down : .up)
        var e = ToggleInteraction(metrics: Self.metrics, isOn: false)
        var s = PointerScript(at: 0, location: Point(20, 80))
        s.down()
        s.move(dx: step * frames, over: frames / 60)
        s.up()
        let result = e.feed(s.events)
        let shown = (frames - claimFrame) * step / travel
        #expect(shown < 0.5, "without projection this would never commit")
        #expect(abs(shown - wanted) < step / travel)
        #expect(result.map(\.value) == (commits ? [true] : []))
    }
}
