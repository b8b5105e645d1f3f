import DarkModeToggle
import Glibc
import Raster
import Testing
@testable import KioskEngine

/// The frames a host leaves out while only the ambient loops move (`KioskApp.ambientFramesToSkip`):
/// two apps get the same input on the 60 Hz grid; one draws every frame, the other only the
/// frames the rule asks for. Every frame the second draws must equal, byte for byte, the first's
/// frame of the same time; a gesture and a theme change run at the full rate; frames are left
/// out at rest, by day and by night.
@Suite struct AmbientFramesTests {
    static let period = 1.0 / 60

    func app(scale: Double) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 600, scale: scale,
                                       typesetter: EstimatingTypesetter(drawsBoxes: true)),
                 preference: .light)
    }

    func differs(_ a: Pixmap, _ b: Pixmap) -> String? {
        guard a.width == b.width, a.height == b.height else { return "size" }
        let va = a.fullView, vb = b.fullView
        for y in 0..<a.height where memcmp(va.row(y), vb.row(y), a.width * 4) != 0 {
            for x in 0..<a.width where a[x, y] != b[x, y] { return "(\(x), \(y))" }
        }
        return nil
    }

    @Test(arguments: [1.0, 1.5])
    func framesShownEqualTheSixtyHertzFrames(scale: Double) {
        let every = app(scale: scale), paced = app(scale: scale)
        let last = 9 * 60
        // A theme change at 2.5 s (light → dark, the page cross-fades), a tap on the Vivid
        // toggle at 6 s (back to light: press, release, the thumb's spring).
        let themeAt = 150, tapAt = 360
        var due = 0, shown = 0, mismatches: [String] = []
        var fullRateFrames = 0, fullRateDue = 0
        for k in 0...last {
            let t = Double(k) * Self.period
            if k == themeAt {
                for a in [every, paced] { _ = a.setDarkMode(true, at: t - 0.001) }
            }
            if k == tapAt {
                let f = every.frame(of: .vivid)
                for a in [every, paced] {
                    _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: t - 0.002))
                    _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: t - 0.001))
                }
            }
            _ = every.renderFrame(at: t)
            let settled = every.isSettled(at: t)
            if !settled { fullRateDue += 1 }
            // An input makes the next frame due at once, as the host draws a frame on input.
            if k == themeAt || k == tapAt { due = k }
            guard k == due else { continue }
            _ = paced.renderFrame(at: t)
            shown += 1
            if !settled { fullRateFrames += 1 }
            if let d = differs(every.frame, paced.frame), mismatches.count < 5 { mismatches.append("frame \(k): \(d)") }
            let skip = paced.ambientFramesToSkip(period: Self.period)
            if !settled { #expect(skip == 0, "frame \(k): \(skip) frames left out while the page moves") }
            due = k + skip + 1
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(fullRateDue > 30, "the theme change and the tap animate (\(fullRateDue) frames)")
        #expect(fullRateFrames == fullRateDue, "while the page moves every frame is drawn (\(fullRateFrames) of \(fullRateDue))")
        #expect(shown < last, "no frame left out")
    }

    /// Nothing is left out with the FPS overlay, with Reduce Motion there are no ambient frames
    /// to pace, and before the first frame there is nothing to count from.
    @Test func noSkipWhereTheRuleDoesNotApply() {
        let fresh = app(scale: 1)
        #expect(fresh.ambientFramesToSkip(period: Self.period) == 0)
        let fps = KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 600, scale: 1, showFPS: true,
                                                 typesetter: EstimatingTypesetter(drawsBoxes: true)), preference: .light)
        var skips = 0
        for k in 0..<120 {
            _ = fps.renderFrame(at: Double(k) * Self.period)
            skips += fps.ambientFramesToSkip(period: Self.period)
        }
        #expect(skips == 0)
        let still = KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 600, scale: 1, reduceMotion: true,
                                                   typesetter: EstimatingTypesetter(drawsBoxes: true)), preference: .light)
        _ = still.renderFrame(at: 0)
        #expect(still.ambientFramesToSkip(period: Self.period) == 0)
        #expect(!still.needsFrames)
    }
}
