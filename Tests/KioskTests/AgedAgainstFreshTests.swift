import Testing
import Raster
@testable import KioskTools
import KioskEngine
import DarkModeToggle
import Appearance

/// The soak's drift check (`AgedAgainstFresh`) on a small page: an app after a stretch of
/// random input draws exactly what a fresh app in its state draws, and an app that got slower
/// is told apart from a fresh one.
@Suite struct AgedAgainstFreshTests {
    static var options: KioskOptions { KioskOptions(pixelWidth: 480, pixelHeight: 360) }

    /// An app after `frames` frames of random input, and the time of its next frame.
    static func agedApp(frames: Int, seed: UInt64) -> (KioskApp, Double) {
        let app = KioskApp(options: options, isDarkMode: false)
        let input = RandomInteraction(seed: seed, toggle: app.layout.togglePixelFrame,
                                      pageWidth: 480, pageHeight: 360, maxIdle: 1)
        let driver = VirtualClockDriver(app: app, input: input)
        for _ in 0..<frames { driver.step() }
        return (app, driver.time(ofFrame: driver.nextFrame))
    }

    static let check = AgedAgainstFresh(seed: 77, warmUpFrames: 120, blocks: 6, blockFrames: 20)

    @Test(arguments: [UInt64(3), 11])
    func agedAppDrawsWhatAFreshOneDraws(seed: UInt64) {
        let (app, next) = Self.agedApp(frames: 3000, seed: seed)
        #expect(app.commitCount > 5, "too little happened before the comparison: \(app.commitCount) commits")
        let r = Self.check.run(aged: app, from: next)
        #expect(r.setupProblem == nil)
        #expect(r.blocks == 6)
        #expect(r.framesCompared == 119 + 6 * 20)
        #expect(r.dirtyMismatches == 0)
        #expect(r.differingPixels == 0)
        #expect(r.cpuRatio > 0 && r.agedCPUMedianMs > 0 && r.freshCPUMedianMs > 0)
    }

    /// The fresh app takes the aged one's preference, mode, focus ring and ambient origin.
    @Test func freshAppTakesTheAgedAppsState() {
        let (app, next) = Self.agedApp(frames: 600, seed: 5)
        _ = app.handleKey(named: "tab", at: next)
        _ = app.handleKey(named: "tab", at: next + 0.01)
        _ = app.choosePreference(.dark, at: next + 0.02)
        let fresh = AgedAgainstFresh.fresh(like: app)
        #expect(fresh.appearancePreference == .dark && fresh.isDarkMode)
        #expect(fresh.focusVisible && fresh.focus == app.focus)
        #expect(fresh.ambientStart == app.ambientStart)
    }

    /// A tap moves the focus without showing the ring (the next Space activates that control):
    /// the fresh app gets the same hidden focus, preference and mode, and draws the same.
    @Test(arguments: [(PageControl.vivid, AppearancePreference.system), (.vivid, .dark), (.button, .light), (.button, .system)])
    func freshAppTakesAFocusMovedByATap(control: PageControl, preference: AppearancePreference) {
        let app = KioskApp(options: Self.options, preference: preference)
        app.renderFrame(at: 0)
        let place = app.frame(of: control).center
        app.handle(PointerEvent(id: 1, phase: .down, location: place, timestamp: 1))
        app.handle(PointerEvent(id: 1, phase: .up, location: place, timestamp: 1.1))
        #expect(app.focus == control && !app.focusVisible)
        let r = Self.check.run(aged: app, from: 5)
        #expect(r.setupProblem == nil)
        #expect(r.dirtyMismatches == 0 && r.differingPixels == 0)
    }

    /// An aged app that draws every frame from scratch (as a cache gone bad would) redraws other
    /// rectangles than a fresh one, and its frames take several times as long: the drift check
    /// sees both. (The ratio is of the same frames timed in alternating blocks; drawing the
    /// whole page from scratch costs about twenty times an incremental frame here — 21–22×
    /// in three runs beside two CPU hogs — far beyond the 1.5× a noisy machine could add.)
    @Test func slowerAgedAppIsCaught() {
        let (app, next) = Self.agedApp(frames: 600, seed: 3)
        app.incremental = false
        let r = Self.check.run(aged: app, from: next)
        #expect(r.setupProblem == nil)
        #expect(r.dirtyMismatches > 0)
        #expect(r.cpuRatio > 1.5, "from scratch against incremental: \(r.cpuRatio)")
        #expect(r.differingPixels == 0, "from scratch draws the same pixels")
    }

    @Test func differingPixelsCountsEveryPixelThatDiffers() {
        let a = Pixmap(width: 5, height: 4), b = Pixmap(width: 5, height: 4)
        #expect(AgedAgainstFresh.differingPixels(a, b) == 0)
        b.fill(IntRect(x: 1, y: 1, width: 2, height: 3), with: 0xFF00_00FF)
        #expect(AgedAgainstFresh.differingPixels(a, b) == 6)
        #expect(AgedAgainstFresh.differingPixels(a, Pixmap(width: 4, height: 4)) == 20)
    }
}
